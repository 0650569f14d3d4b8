/**
 * A real MCP client, the official TypeScript SDK's `Client` over its
 * `StdioClientTransport`, starts each build target of the server as a child
 * process, negotiates, pings and closes.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { Client, StdioClientTransport } from "./sdk.ts";
import {
  serverCommand,
  type Target,
  TARGETS,
  targetStatus,
} from "./server_command.ts";

/** A client connected to a fresh server process, and what it negotiated. */
async function connect(
  t: Target,
  args: string[] = [],
): Promise<{
  client: Client;
  transport: StdioClientTransport;
  negotiated: () => string | undefined;
  stderr: () => string;
}> {
  const { command, args: fullArgs } = serverCommand(args, t);
  const transport = new StdioClientTransport({
    command,
    args: fullArgs,
    stderr: "pipe",
    env: { NO_COLOR: "1" },
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array | string) => {
    stderr += typeof chunk === "string"
      ? chunk
      : new TextDecoder().decode(chunk);
  });
  // The client reports the version it settled on to a transport that wants
  // it (the HTTP transport does); giving stdio the hook lets us observe it.
  let negotiated: string | undefined;
  Object.assign(transport, {
    setProtocolVersion(version: string) {
      negotiated = version;
    },
  });
  const client = new Client({ name: "shipcode-tests", version: "0.0.1" });
  await client.connect(transport);
  return {
    client,
    transport,
    negotiated: () => negotiated,
    stderr: () => stderr,
  };
}

for (const t of TARGETS) {
  const status = targetStatus(t);
  if (!status.available) {
    Deno.test({
      ignore: true,
      name: `sdk client [${t}] skipped: ${status.reason}`,
      fn() {},
    });
    continue;
  }

  Deno.test(`sdk client [${t}] connects, negotiates, pings, closes`, async () => {
    const { client, negotiated, stderr } = await connect(t);
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
      await client.close();
    }
    assert.equal(stderr(), "");
  });

  Deno.test(`sdk client [${t}] gets its own version when the server speaks it`, async () => {
    const { client, negotiated } = await connect(t, [
      "--protocol-versions",
      "2025-06-18,2025-11-25",
    ]);
    try {
      assert.equal(negotiated(), "2025-11-25");
      assert.deepEqual(await client.ping(), {});
    } finally {
      await client.close();
    }
  });

  Deno.test(`sdk client [${t}] sees a JSON-RPC error for an unknown method`, async () => {
    const { client } = await connect(t);
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
      await client.close();
    }
  });
}
