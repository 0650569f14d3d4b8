/**
 * CONTRIBUTING.md's "Add a tool" example is a working tool: it type-checks as a
 * module of `tools/`, and a server that registers it answers a call with
 * what the file holds.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import type { Tool } from "../mcp/tool.ts";
import type { ToolCaps } from "../tools/mod.ts";
import { Workspace } from "../workspace/workspace.ts";
import { callRaw, TEST_CAPS, toolServer } from "./tools_harness.ts";

const ROOT = new URL("../", import.meta.url);

/** The ```ts blocks of CONTRIBUTING.md's "Add a tool" section, in order. */
async function exampleBlocks(): Promise<string[]> {
  const readme = await Deno.readTextFile(new URL("CONTRIBUTING.md", ROOT));
  const start = readme.indexOf("\n## Add a tool\n");
  assert.notEqual(start, -1, 'CONTRIBUTING.md has no "## Add a tool" section');
  const end = readme.indexOf("\n## ", start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/\n```ts\n([\s\S]*?)\n```\n/g)].map((m) => m[1]);
}

/**
 * The example module written to a temporary directory, its relative
 * imports pointing where they would from `tools/`.
 */
async function writeExample(
  dir: string,
  source: string,
): Promise<string> {
  const text = source
    .replaceAll('from "../', `from "${ROOT.href}`)
    .replaceAll('from "./', `from "${new URL("tools/", ROOT).href}`);
  const path = `${dir}/example_tool.ts`;
  await Deno.writeTextFile(path, text);
  return path;
}

Deno.test("CONTRIBUTING.md: the Add a tool example type-checks, registers and runs", async () => {
  const [module, entry] = await exampleBlocks();
  assert.ok(module !== undefined && entry !== undefined, "two ts blocks");
  const factory = /^(\w+)\(ws, caps\),$/.exec(entry.trim())?.[1];
  assert.ok(factory, `the tools/mod.ts line reads "name(ws, caps),"`);

  const dir = await Deno.makeTempDir({ prefix: "shipcode-readme-tool-" });
  try {
    const path = await writeExample(dir, module);
    const check = await new Deno.Command(Deno.execPath(), {
      args: [
        "check",
        "--quiet",
        `--config=${new URL("deno.json", ROOT).pathname}`,
        `--lock=${new URL("tests/deno.lock", ROOT).pathname}`,
        path,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(
      check.code,
      0,
      new TextDecoder().decode(check.stderr),
    );

    const exports = await import(new URL(`file://${path}`).href) as Record<
      string,
      (ws: Workspace, caps: ToolCaps) => Tool
    >;
    assert.equal(typeof exports[factory], "function", factory);
    const root = `${dir}/root`;
    await Deno.mkdir(root);
    await Deno.writeTextFile(`${root}/notes.txt`, "one two\nthree\n");
    const { server, session } = await toolServer(root);
    const tool = exports[factory](await Workspace.open(root), TEST_CAPS);
    server.tools.register(tool);

    const response = await callRaw(server, session, tool.name, {
      path: "notes.txt",
    });
    const result = response.result as {
      structuredContent?: Record<string, unknown>;
      isError?: boolean;
    };
    assert.notEqual(result.isError, true, JSON.stringify(response));
    assert.deepEqual(result.structuredContent, {
      path: "notes.txt",
      unit: "words",
      count: 3,
    });
    // Its arguments are validated against its schema before it runs.
    const invalid = await callRaw(server, session, tool.name, {
      path: "notes.txt",
      unit: "bytes",
    });
    assert.ok(invalid.error, JSON.stringify(invalid));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
