import { strict as assert } from "node:assert";
import { parseFlags, VERSION } from "./cli/flags.ts";
import { createServer, toolCaps } from "./main.ts";

function serve(args: string[]) {
  const command = parseFlags(args, Deno.cwd());
  if (command.kind !== "serve") throw new Error(`not serve: ${command.kind}`);
  return command.config;
}

Deno.test("createServer: the program's identity and default capabilities", () => {
  const server = createServer(serve([]));
  assert.deepEqual(server.info, { name: "shipcode-mcp", version: VERSION });
  assert.equal(
    JSON.stringify(server.capabilities),
    '{"tools":{},"resources":{}}',
  );
  assert.deepEqual(server.protocolVersions, ["2025-06-18"]);
  assert.equal(server.logger.level, "error");
});

Deno.test("createServer: flags reach the server; --watch adds subscriptions", () => {
  const server = createServer(
    serve(["--watch", "--page-size", "7", "--log-level", "silent"]),
  );
  assert.equal(server.pageSize, 7);
  assert.equal(server.logger.level, "silent");
  assert.deepEqual(server.capabilities, {
    tools: {},
    resources: { subscribe: true, listChanged: true },
  });
});

Deno.test("createServer: tools and resources are there once the server is ready, not before", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${root}/a.txt`, "a\n");
    const server = createServer(serve(["--root", root]));
    assert.equal(server.tools.list().length, 0);
    assert.equal(server.resources, undefined);
    await server.ready();
    assert.ok(server.tools.list().length > 0);
    assert.ok(server.resources !== undefined);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("toolCaps: each limit comes from its own flag", () => {
  assert.deepEqual(
    toolCaps(serve([
      "--max-entries",
      "2",
      "--max-matches",
      "3",
      "--max-read-bytes",
      "5",
      "--max-depth",
      "7",
    ])),
    { maxEntries: 2, maxMatches: 3, maxReadBytes: 5, maxDepth: 7 },
  );
});
