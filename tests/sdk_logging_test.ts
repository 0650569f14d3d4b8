/**
 * The official SDK client sets a log level and receives log records: from
 * the workspace server (`--features logging`, every build target), whose
 * diagnostics about a session reach that session once it set a level (and
 * no other session: over HTTP, one client never reads another's records),
 * and from a tool of a server built with the library (`ctx.log`).
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { pathToFileURL } from "node:url";
import {
  Client,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  StreamableHTTPClientTransport,
} from "./sdk.ts";
import { DENO_RUN_FLAGS } from "../cli/run_command.ts";
import { PROJECT_ROOT, serverCommand } from "./server_command.ts";
import {
  connectSdk,
  httpCommand,
  sdkTest,
  type ServerSpec,
  startHttpServer,
  type Wire,
} from "./sdk_connect.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Record {
  level: string;
  logger?: string;
  data: unknown;
}

// Over HTTP a record the server sends on its own travels on the session's
// GET stream, not in the answer to the next request: wait for it.
async function until(check: () => boolean, ms = 10_000): Promise<boolean> {
  const end = performance.now() + ms;
  while (!check()) {
    if (performance.now() > end) return false;
    await sleep(10);
  }
  return true;
}

/** The log records `client` receives from now on. */
function collectRecords(client: Client): Record[] {
  const records: Record[] = [];
  client.setNotificationHandler(
    LoggingMessageNotificationSchema,
    (notification: { params: unknown }) => {
      records.push(notification.params as Record);
    },
  );
  return records;
}

async function connect(wire: Wire, spec: ServerSpec) {
  const client = new Client({ name: "shipcode-tests", version: "0.0.1" });
  const records = collectRecords(client);
  const { transport, close } = await connectSdk(client, wire, spec);
  return { client, transport, records, close };
}

sdkTest(
  "sdk logging [launch]: declared with --features logging; the server's diagnostics arrive once a level is set",
  ["--features", "logging"],
  async ({ client, transport }, records) => {
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
    assert.ok(await until(() => records.length > 0), "no record in 10 s");
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
  },
  { prepare: collectRecords },
);

for (const wire of ["stdio", "http"] as const) {
  const name = wire === "stdio" ? "library" : "library http";
  Deno.test(`sdk logging [${name}]: ctx.log sends what the level lets through`, async () => {
    const spec: ServerSpec = {
      command: Deno.execPath(),
      args: [
        "run",
        ...DENO_RUN_FLAGS,
        `${PROJECT_ROOT}tests/client_requests_server.ts`,
      ],
    };
    const { client, records, close } = await connect(
      wire,
      wire === "http" ? httpCommand(spec) : spec,
    );
    try {
      await client.callTool({ name: "log", arguments: {} });
      await sleep(50);
      assert.deepEqual(records, []);
      await client.setLoggingLevel("warning");
      await client.callTool({ name: "log", arguments: {} });
      assert.ok(await until(() => records.length >= 2), "no records in 10 s");
      await sleep(50);
      assert.deepEqual(records, [
        { level: "warning", logger: "test", data: { level: "warning" } },
        { level: "error", logger: "test", data: { level: "error" } },
      ]);
    } finally {
      await close();
    }
  });
}

Deno.test("sdk logging [http]: two sessions at debug; A's notification names and roots reach A alone, capped", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const root = `${dir}/alpha-root-3d5b`;
  await Deno.mkdir(root);
  await Deno.writeTextFile(`${root}/a.txt`, "a\n");
  const server = await startHttpServer(
    httpCommand(
      serverCommand(["--features", "logging", "--allow-roots", dir], "source"),
    ),
  );
  const clients: { client: Client; records: Record[] }[] = [];
  const open = async (roots?: { uri: string }[]) => {
    const client = new Client(
      { name: "shipcode-tests", version: "0.0.1" },
      { capabilities: roots === undefined ? {} : { roots: {} } },
    );
    const records: Record[] = [];
    client.setNotificationHandler(
      LoggingMessageNotificationSchema,
      (notification: { params: unknown }) => {
        records.push(notification.params as Record);
      },
    );
    if (roots !== undefined) {
      client.setRequestHandler(ListRootsRequestSchema, () => ({ roots }));
    }
    const transport = new StreamableHTTPClientTransport(new URL(server.url));
    await client.connect(transport);
    await client.setLoggingLevel("debug");
    clients.push({ client, records });
    return { client, transport, records };
  };
  try {
    const b = await open();
    const a = await open([{ uri: pathToFileURL(root).href }]);
    // A's roots are served once it asks for something; its notification
    // with a distinctive (and long) method name is ignored, with a record.
    await a.client.callTool({ name: "list_directory", arguments: {} });
    const method = `notifications/a-secret-9f2e-${"m".repeat(100_000)}`;
    await a.transport.send({ jsonrpc: "2.0", method });
    await a.client.ping();
    assert.ok(
      await until(() =>
        a.records.some((r) => String(r.data).includes("a-secret-9f2e"))
      ),
      JSON.stringify(a.records).slice(0, 500),
    );
    const ignored = a.records.find((r) =>
      String(r.data).includes("a-secret-9f2e")
    )!;
    assert.equal(ignored.level, "debug");
    assert.match(
      String(ignored.data),
      /^ignored notification notifications\/a-secret-9f2e-m+… \(\d+ more characters\)$/,
    );
    assert.ok(String(ignored.data).length < 1100);
    // B did nothing: it is sent nothing, A's names and roots least of all.
    await b.client.ping();
    await sleep(300);
    assert.deepEqual(b.records, []);
  } finally {
    for (const { client } of clients) await client.close().catch(() => {});
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
