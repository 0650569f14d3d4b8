import { strict as assert } from "node:assert";
import { decode } from "../mcp/jsonrpc.ts";
import { McpServer } from "../mcp/server.ts";
import { Session } from "../mcp/session.ts";
import { handlers, modernHandlers, promptHandlers } from "./mod.ts";

Deno.test("server/discover: versions, capabilities, instructions and identity", async () => {
  const map = { ...handlers, ...promptHandlers, ...modernHandlers };
  const server = new McpServer({
    handlers: map,
    info: { name: "discover-test", version: "2.0.0" },
    protocolVersions: ["2025-11-25", "2026-07-28", "2025-06-18"],
    instructions: "Read the README first.",
  });
  const line = await server.dispatch(
    decode(JSON.stringify({
      jsonrpc: "2.0",
      id: "d",
      method: "server/discover",
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    })),
    new Session(() => {}),
  );
  assert.equal(
    line,
    '{"jsonrpc":"2.0","id":"d","result":{"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25","2025-06-18"],"capabilities":{"tools":{},"resources":{},"prompts":{}},"instructions":"Read the README first.","ttlMs":300000,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"discover-test","version":"2.0.0"}}}}',
  );
});

Deno.test("server/discover: a server without 2026-07-28 answers -32601, even with the handler", async () => {
  const server = new McpServer({
    handlers: { ...handlers, ...modernHandlers },
    info: { name: "discover-test", version: "2.0.0" },
  });
  const line = await server.dispatch(
    decode(
      '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}',
    ),
    new Session(() => {}),
  );
  assert.equal(JSON.parse(line as string).error.code, -32601);
});
