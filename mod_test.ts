/**
 * A server built with the library, as a user would write one: one `echo`
 * tool, protocol 2025-11-25, capabilities `{"tools":{"listChanged":false}}`
 * and serverInfo `example-mcp 1.0.0`. It answers initialize (params `{}`)
 * and tools/list byte for byte as the reference transcript shows them.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { handlers, type JsonObject, McpServer, Session } from "./mod.ts";

function exampleServer(): McpServer {
  const server = new McpServer({
    handlers,
    info: { name: "example-mcp", version: "1.0.0" },
    protocolVersions: ["2025-11-25"],
    capabilities: { tools: { listChanged: false } },
    strictInitialize: false,
  });
  server.tools.register({
    name: "echo",
    description: "Echoes its input back",
    inputSchema: { type: "object", properties: {} },
    run: (args) => ({
      content: [{ type: "text", text: JSON.stringify(args) }],
    }),
  });
  return server;
}

// The client's requests, in order.
const REQUESTS = [
  { jsonrpc: "2.0", id: 1, method: "initialize", params: {} },
  { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
];

// Written from the reference transcript: result keys in the order it shows
// them.
const EXPECTED = [
  '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":false}},"serverInfo":{"name":"example-mcp","version":"1.0.0"}}}',
  '{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo","description":"Echoes its input back","inputSchema":{"type":"object","properties":{}}}]}}',
];

Deno.test("example server: initialize then tools/list, byte for byte", async () => {
  const server = exampleServer();
  const sent: string[] = [];
  const session = new Session((line) => sent.push(line));
  const responses: (JsonObject | undefined)[] = [];
  for (const request of REQUESTS) {
    responses.push(await server.handle(request, session));
  }
  assert.deepEqual(responses.map((r) => JSON.stringify(r)), EXPECTED);
  // The responses collected into one document, as a client prints them.
  assert.equal(
    JSON.stringify({ responses }),
    `{"responses":[${EXPECTED.join(",")}]}`,
  );
  // Nothing went out on the side (no notifications, no requests).
  assert.deepEqual(sent, []);
  assert.equal(session.protocolVersion, "2025-11-25");
});

Deno.test("example server: the same lines through handleLine", async () => {
  const server = exampleServer();
  const session = new Session(() => {});
  const lines = [];
  for (const request of REQUESTS) {
    lines.push(await server.handleLine(JSON.stringify(request), session));
  }
  assert.deepEqual(lines, EXPECTED);
});

Deno.test("example server: a version the server does not speak gets its own offered", async () => {
  const server = exampleServer();
  const response = await server.handle({
    jsonrpc: "2.0",
    id: "i",
    method: "initialize",
    params: { protocolVersion: "2025-06-18" },
  }, new Session(() => {}));
  assert.equal(
    JSON.stringify(response),
    '{"jsonrpc":"2.0","id":"i","result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":false}},"serverInfo":{"name":"example-mcp","version":"1.0.0"}}}',
  );
});

Deno.test("example server: each session negotiates on its own", async () => {
  const server = exampleServer();
  const a = new Session(() => {});
  const b = new Session(() => {});
  const init = REQUESTS[0];
  assert.equal(JSON.stringify(await server.handle(init, a)), EXPECTED[0]);
  assert.equal(JSON.stringify(await server.handle(init, b)), EXPECTED[0]);
  const again = await server.handle({ ...init, id: 3 }, a);
  assert.equal((again?.error as JsonObject).code, -32600);
});

/** What `deno doc --json` says `path` (project-relative) exports. */
async function documented(
  path: string,
): Promise<{ doc: string; names: string[] }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", path],
    cwd: new URL(".", import.meta.url),
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assert.ok(out.success, `deno doc ${path} failed`);
  const { nodes } = JSON.parse(new TextDecoder().decode(out.stdout));
  const [entry] = Object.values(nodes) as {
    module_doc?: { doc?: string };
    symbols: { name: string }[];
  }[];
  return {
    doc: entry.module_doc?.doc ?? "",
    names: entry.symbols.map((symbol) => symbol.name),
  };
}

const CONFIG = JSON.parse(
  await Deno.readTextFile(new URL("./deno.json", import.meta.url)),
);

Deno.test("mod.ts: a small public API, the rest in documented subpath exports", async () => {
  const root = await documented("mod.ts");
  assert.ok(root.names.length <= 40, `${root.names.length} names`);
  for (const name of ["McpServer", "defineTool", "RpcError", "serveStdio"]) {
    assert.ok(root.names.includes(name), name);
  }
  const exports = CONFIG.exports as Record<string, string>;
  assert.equal(exports["."], "./mod.ts");
  for (const [subpath, file] of Object.entries(exports)) {
    const { doc, names } = await documented(file);
    assert.ok(doc.trim().length > 0, `${subpath} (${file}) has no @module`);
    assert.ok(names.length > 0, `${subpath} exports nothing`);
    // No tuning constant in the root: they are in ./limits.
    if (subpath === ".") {
      assert.deepEqual(names.filter((n) => /^(DEFAULT|MAX)_/.test(n)), []);
    }
  }
});

Deno.test("deno task ci: deno doc --lint covers every export entry", () => {
  const lint = /deno doc --lint ([^&]*)&&/.exec(CONFIG.tasks.ci as string);
  assert.ok(lint, "the ci task runs no deno doc --lint");
  const linted = lint[1].trim().split(/\s+/).sort();
  const entries = Object.values(CONFIG.exports as Record<string, string>)
    .map((file) => file.replace(/^\.\//, "")).sort();
  assert.deepEqual(linted, entries);
});
