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
