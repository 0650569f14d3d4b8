/**
 * The official SDK client sets a log level and receives log records: from
 * the workspace server (`--features logging`, every build target), whose
 * own diagnostics reach a client that set a level, and from a tool of a
 * server built with the library (`ctx.log`).
 *
 * @module
 */

import { strict as assert } from "node:assert";
import {
  Client,
  LoggingMessageNotificationSchema,
  StdioClientTransport,
} from "./sdk.ts";
import { DENO_RUN_FLAGS } from "../cli/run_command.ts";
import {
  PROJECT_ROOT,
  serverCommand,
  TARGETS,
  targetStatus,
} from "./server_command.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Record {
  level: string;
  logger?: string;
  data: unknown;
}

async function connect(command: string, args: string[]) {
  const transport = new StdioClientTransport({
    command,
    args,
    stderr: "ignore",
    env: { NO_COLOR: "1" },
  });
  const client = new Client({ name: "shipcode-tests", version: "0.0.1" });
  const records: Record[] = [];
  client.setNotificationHandler(
    LoggingMessageNotificationSchema,
    (notification: { params: unknown }) => {
      records.push(notification.params as Record);
    },
  );
  await client.connect(transport);
  return { client, transport, records };
}

for (const t of TARGETS) {
  const status = targetStatus(t);
  if (!status.available) {
    Deno.test({
      ignore: true,
      name: `sdk logging [${t}] skipped: ${status.reason}`,
      fn() {},
    });
    continue;
  }

  Deno.test(`sdk logging [${t}]: declared with --features logging; the server's diagnostics arrive once a level is set`, async () => {
    const { command, args } = serverCommand(["--features", "logging"], t);
    const { client, transport, records } = await connect(command, args);
    try {
      assert.deepEqual(client.getServerCapabilities(), {
        tools: {},
        resources: {},
        logging: {},
      });
      // No level set: a stray response is dropped without a record.
      await transport.send({ jsonrpc: "2.0", id: "nobody", result: {} });
      await client.ping();
      await sleep(50);
      assert.deepEqual(records, []);
      await client.setLoggingLevel("debug");
      await transport.send({ jsonrpc: "2.0", id: "nobody", result: {} });
      await client.ping();
      await sleep(50);
      assert.deepEqual(records, [{
        level: "debug",
        logger: "shipcode-mcp",
        data: "dropped a response nobody waits for",
      }]);
      // Above the level: nothing more.
      await client.setLoggingLevel("error");
      await transport.send({ jsonrpc: "2.0", id: "nobody", result: {} });
      await client.ping();
      await sleep(50);
      assert.equal(records.length, 1);
      await assert.rejects(
        client.setLoggingLevel("verbose" as unknown as "debug"),
        /-32602.*unknown log level "verbose"; use one of debug, info/,
      );
    } finally {
      await client.close();
    }
  });
}

Deno.test("sdk logging [library]: ctx.log sends what the level lets through", async () => {
  const { client, records } = await connect(Deno.execPath(), [
    "run",
    ...DENO_RUN_FLAGS,
    `${PROJECT_ROOT}tests/client_requests_server.ts`,
  ]);
  try {
    await client.callTool({ name: "log", arguments: {} });
    await sleep(50);
    assert.deepEqual(records, []);
    await client.setLoggingLevel("warning");
    await client.callTool({ name: "log", arguments: {} });
    await sleep(50);
    assert.deepEqual(records, [
      { level: "warning", logger: "test", data: { level: "warning" } },
      { level: "error", logger: "test", data: { level: "error" } },
    ]);
  } finally {
    await client.close();
  }
});
