/**
 * A real MCP client, the official TypeScript SDK's `Client` over its
 * `StdioClientTransport`, starts each build target of the server as a child
 * process, negotiates, pings and closes.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { Client } from "./sdk.ts";
import {
  type Connection,
  connectSdk,
  type Launch,
  launchCommand,
  LAUNCHES,
  launchStatus,
} from "./sdk_connect.ts";

/** A client connected to a fresh server process, and what it negotiated. */
async function connect(
  launch: Launch,
  args: string[] = [],
): Promise<Connection> {
  const client = new Client({ name: "shipcode-tests", version: "0.0.1" });
  return await connectSdk(client, launch.wire, launchCommand(launch, args));
}

for (const launch of LAUNCHES) {
  const t = launch.name;
  const status = launchStatus(launch);
  if (!status.available) {
    Deno.test({
      ignore: true,
      name: `sdk client [${t}] skipped: ${status.reason}`,
      fn() {},
    });
    continue;
  }

  Deno.test(`sdk client [${t}] connects, negotiates, pings, closes`, async () => {
    const { client, negotiated, stderr, close } = await connect(launch);
    try {
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
    } finally {
      await close();
    }
    if (launch.wire === "stdio") {
      assert.equal(stderr(), "");
    } else {
      // Over HTTP the server says where it listens, and nothing else.
      assert.match(
        stderr(),
        /^shipcode-mcp: serving MCP at http:\/\/127\.0\.0\.1:\d+\/mcp\n$/,
      );
    }
  });

  Deno.test(`sdk client [${t}] gets its own version when the server speaks it`, async () => {
    const { client, negotiated, close } = await connect(launch, [
      "--protocol-versions",
      "2025-06-18,2025-11-25",
    ]);
    try {
      assert.equal(negotiated(), "2025-11-25");
      assert.deepEqual(await client.ping(), {});
    } finally {
      await close();
    }
  });

  Deno.test(`sdk client [${t}] sees a JSON-RPC error for an unknown method`, async () => {
    const { client, close } = await connect(launch);
    try {
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
    } finally {
      await close();
    }
  });
}
