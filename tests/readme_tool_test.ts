/**
 * CONTRIBUTING.md's "Add a tool" steps, followed literally in a copy of the
 * repository: the example module saved where the section says
 * (`tools/count_words.ts`), its import and its entry added to the list in
 * `tools/mod.ts`, then `deno check` of `tools/mod.ts` and a call of the new
 * tool through the tool list, as the server registers it. The real tree is
 * not touched.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { join } from "node:path";
import { PROJECT_ROOT } from "./server_command.ts";

/** What the copy needs: the tool list's graph, a server and the config. */
const COPIED = [
  "deno.json",
  "deno.lock",
  "tests/deno.lock",
  "mcp",
  "handlers",
  "resources",
  "symbols",
  "tools",
  "workspace",
];

/** The "Add a tool" section of CONTRIBUTING.md. */
async function section(): Promise<string> {
  const text = await Deno.readTextFile(join(PROJECT_ROOT, "CONTRIBUTING.md"));
  const start = text.indexOf("\n## Add a tool\n");
  assert.notEqual(start, -1, 'CONTRIBUTING.md has no "## Add a tool" section');
  const end = text.indexOf("\n## ", start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

/** Copy `from` (a file or a folder) to `to`, test files left out. */
async function copy(from: string, to: string): Promise<void> {
  const info = await Deno.stat(from);
  await Deno.mkdir(join(to, ".."), { recursive: true });
  if (info.isFile) return await Deno.copyFile(from, to);
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.name.endsWith("_test.ts")) continue;
    await copy(join(from, entry.name), join(to, entry.name));
  }
}

/**
 * `tools/mod.ts` with `importLine` after its last import of a sibling
 * module and `entry` at the end of the list `workspaceTools` returns.
 */
function splice(mod: string, importLine: string, entry: string): string {
  const imports = [...mod.matchAll(/^import [^;]* from "\.\/[^"]+";\n/gm)];
  assert.ok(imports.length > 0, "tools/mod.ts imports no tool module");
  const last = imports[imports.length - 1];
  const afterImports = last.index! + last[0].length;
  const withImport = mod.slice(0, afterImports) + importLine + "\n" +
    mod.slice(afterImports);
  const list = /\n( +)\]\.map\(reportingWorkspaceErrors\);/.exec(withImport);
  assert.ok(list, "tools/mod.ts has no list of tools");
  const indent = list[1] + "  ";
  return withImport.slice(0, list.index) + `\n${indent}${entry}` +
    withImport.slice(list.index);
}

// Run in the copy: the tool list as the server registers it, one call of
// the new tool, one with an argument its schema refuses.
const CALL = `
import { handlers } from "./handlers/mod.ts";
import { McpServer } from "./mcp/server.ts";
import { Session } from "./mcp/session.ts";
import { workspaceTools } from "./tools/mod.ts";
import { Workspace } from "./workspace/workspace.ts";

const ws = await Workspace.open(Deno.args[0]);
const caps = { maxEntries: 100, maxMatches: 10, maxReadBytes: 1000, maxDepth: 4 };
const server = new McpServer({
  handlers,
  info: { name: "shipcode-mcp", version: "1.0.0" },
});
for (const tool of workspaceTools(ws, caps)) server.tools.register(tool);
const session = new Session(() => {});
const answers = [];
for (const [id, method, params] of [
  [1, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "test", version: "1" },
  }],
  [2, "tools/call", { name: Deno.args[1], arguments: { path: "notes.txt" } }],
  [3, "tools/call", {
    name: Deno.args[1],
    arguments: { path: "notes.txt", unit: "bytes" },
  }],
]) {
  answers.push(await server.handle({ jsonrpc: "2.0", id, method, params }, session));
}
console.log(JSON.stringify(answers));
`;

Deno.test("CONTRIBUTING.md: the Add a tool steps, followed in a copy, type-check and the tool answers", async () => {
  const text = await section();
  const [module, entry] = [...text.matchAll(/\n```ts\n([\s\S]*?)\n```\n/g)]
    .map((m) => m[1]);
  assert.ok(module !== undefined && entry !== undefined, "two ts blocks");
  const file = /For example, `(tools\/\w+\.ts)`/.exec(text)?.[1];
  assert.ok(file, "the section names the example's file");
  const importLine = /\(`(import \{ \w+ \} from "\.\/\w+\.ts";)`\)/.exec(
    text,
  )?.[1];
  assert.ok(importLine, "the section gives the import line for tools/mod.ts");
  assert.match(entry.trim(), /^\w+\(ws, caps\),$/);
  const toolName = /name: "(\w+)"/.exec(module)?.[1];
  assert.ok(toolName, "the example names its tool");

  const dir = await Deno.makeTempDir({ prefix: "shipcode-add-a-tool-" });
  try {
    for (const path of COPIED) {
      await copy(join(PROJECT_ROOT, path), join(dir, path));
    }
    await Deno.writeTextFile(join(dir, file), module + "\n");
    const modPath = join(dir, "tools", "mod.ts");
    await Deno.writeTextFile(
      modPath,
      splice(await Deno.readTextFile(modPath), importLine, entry.trim()),
    );
    await Deno.writeTextFile(join(dir, "call_tool.ts"), CALL);

    const check = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--quiet", "--lock=tests/deno.lock", "tools/mod.ts"],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    assert.equal(check.code, 0, new TextDecoder().decode(check.stderr));

    const root = join(dir, "root");
    await Deno.mkdir(root);
    await Deno.writeTextFile(join(root, "notes.txt"), "one two\nthree\n");
    const run = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        "--no-check",
        "--allow-read",
        "--allow-sys=uid",
        "--no-prompt",
        "--lock=tests/deno.lock",
        "call_tool.ts",
        root,
        toolName,
      ],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    const stderr = new TextDecoder().decode(run.stderr);
    assert.equal(run.code, 0, stderr);
    const [, call, invalid] = JSON.parse(
      new TextDecoder().decode(run.stdout),
    ) as { result?: Record<string, unknown>; error?: unknown }[];
    assert.notEqual(call.result?.isError, true, JSON.stringify(call));
    assert.deepEqual(call.result?.structuredContent, {
      path: "notes.txt",
      unit: "words",
      count: 3,
    });
    // Its arguments are validated against its schema before it runs.
    assert.ok(invalid.error, JSON.stringify(invalid));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
