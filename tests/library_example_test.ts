/**
 * The "Use the library" example of docs/library.md, as written: its code
 * saved in a directory outside the repository (only the clone's path filled
 * in) and run with the command line given there, serves a working MCP server: tools
 * (whose arguments go through the lazily loaded schema validator) and
 * resources answer without an internal error.
 */

import { strict as assert } from "node:assert";
import { join } from "node:path";
import { PROJECT_ROOT } from "./server_command.ts";

const README = await Deno.readTextFile(
  join(PROJECT_ROOT, "docs", "library.md"),
);
const section = README.slice(README.indexOf("## Use the library"));
const code = /```ts\n([\s\S]*?)```/.exec(section)![1];
const commandLine = /```sh\n(deno run [^\n]*example\.ts)\n```/.exec(section);

Deno.test("docs/library.md example: runs as written from outside the repository", async () => {
  assert.ok(commandLine, "the section gives no deno run command");
  assert.ok(code.includes('"/path/to/shipcode-mcp/mod.ts"'));
  const dir = await Deno.makeTempDir({ prefix: "shipcode-example-" });
  try {
    await Deno.writeTextFile(
      join(dir, "example.ts"),
      code.replace("/path/to/shipcode-mcp/", PROJECT_ROOT),
    );
    const [program, ...args] = commandLine[1].split(" ");
    assert.equal(program, "deno");
    const child = new Deno.Command(Deno.execPath(), {
      args,
      cwd: dir,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).spawn();
    const requests = [
      {
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "example", version: "1" },
        },
      },
      { method: "tools/list" },
      { method: "tools/call", params: { name: "echo", arguments: { a: 1 } } },
      { method: "resources/list" },
      { method: "resources/templates/list" },
    ].map((m, id) => JSON.stringify({ jsonrpc: "2.0", id, ...m }) + "\n");
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(requests.join("")));
    await writer.close();
    const out = await child.output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    const responses = new TextDecoder().decode(out.stdout).trimEnd().split(
      "\n",
    ).map((line) => JSON.parse(line));
    assert.equal(responses.length, requests.length, stderr);
    for (const response of responses) {
      assert.equal(response.error, undefined, JSON.stringify(response));
    }
    assert.equal(responses[1].result.tools[0].name, "echo");
    assert.deepEqual(responses[2].result, {
      content: [{ type: "text", text: '{"a":1}' }],
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("docs/library.md examples: each type-checks from outside the repository", async () => {
  const blocks = [...README.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.ok(blocks.length >= 2, "library.md has fewer examples than expected");
  const dir = await Deno.makeTempDir({ prefix: "shipcode-examples-" });
  try {
    const files = [];
    for (const [i, block] of blocks.entries()) {
      const file = join(dir, `example_${i}.ts`);
      await Deno.writeTextFile(
        file,
        block.replaceAll("/path/to/shipcode-mcp/", PROJECT_ROOT),
      );
      files.push(file);
    }
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--quiet", ...files],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("docs/library.md: its table names every subpath export of deno.json and its file", async () => {
  const config = JSON.parse(
    await Deno.readTextFile(join(PROJECT_ROOT, "deno.json")),
  );
  const rows = new Map(
    [...README.matchAll(/^\| `(\.\/[^`]+)` +\| `([^`]+)` /gm)].map((m) => [
      m[1],
      m[2],
    ]),
  );
  const subpaths = Object.entries(config.exports as Record<string, string>)
    .filter(([name]) => name !== ".");
  assert.deepEqual(
    [...rows].sort(),
    subpaths.map(([name, file]) => [name, file.replace(/^\.\//, "")]).sort(),
  );
});
