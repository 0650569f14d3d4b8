/**
 * A real MCP client, the official TypeScript SDK's `Client` over its
 * `StdioClientTransport`, starts each build target of the server as a child
 * process, negotiates, pings and closes.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { sdkTest } from "./sdk_connect.ts";

sdkTest("sdk client [launch] connects, negotiates, pings, closes", [], async (
  { client, negotiated },
) => {
  assert.deepEqual(client.getServerVersion(), {
    name: "shipcode-mcp",
    version: "1.0.0",
  });
  assert.deepEqual(client.getServerCapabilities(), {
    tools: {},
    resources: {},
  });
  // The SDK asks for its newest version (2025-11-25); the server offers
  // the only one it speaks by default, and the SDK accepts it.
  assert.equal(negotiated(), "2025-06-18");
  assert.deepEqual(await client.ping(), {});
  assert.deepEqual(await client.ping(), {});
}, {
  after({ launch, stderr }) {
    if (launch.wire === "stdio") {
      assert.equal(stderr(), "");
    } else {
      // Over HTTP the server says where it listens, and nothing else.
      assert.match(
        stderr(),
        /^shipcode-mcp: serving MCP at http:\/\/127\.0\.0\.1:\d+\/mcp\n$/,
      );
    }
  },
});

sdkTest(
  "sdk client [launch] gets its own version when the server speaks it",
  ["--protocol-versions", "2025-06-18,2025-11-25"],
  async ({ client, negotiated }) => {
    assert.equal(negotiated(), "2025-11-25");
    assert.deepEqual(await client.ping(), {});
  },
);

sdkTest(
  "sdk client [launch] sees a JSON-RPC error for an unknown method",
  [],
  async ({ client }) => {
    await assert.rejects(
      client.request(
        { method: "nope/nothing", params: {} },
        // Any result schema: the call must fail before it is used.
        { parse: (value: unknown) => value } as never,
      ),
      (error: unknown) => {
        assert.equal((error as { code?: number }).code, -32601);
        return true;
      },
    );
    assert.deepEqual(await client.ping(), {});
  },
);
