import { strict as assert } from "node:assert";
import type { Logger } from "../mcp/log.ts";
import { type Handler, McpServer } from "../mcp/server.ts";
import { Session } from "../mcp/session.ts";
import { handlers, loggingHandlers } from "./mod.ts";

interface Sent {
  method: string;
  params: { level: string; logger?: string; data: unknown };
}

function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    level: "debug",
    lines,
    log(level, message, detail) {
      lines.push(
        `${level}: ${message}${detail === undefined ? "" : " "}${
          detail instanceof Error ? detail.message : detail ?? ""
        }`,
      );
    },
  };
}

// A server with logging, two sessions initialized that set `debug`, and
// `test/throw`, a request that fails with the text it is given.
async function twoSessions() {
  const logger = memoryLogger();
  const fails: Handler = (params) => {
    throw new Error(String(params.secret));
  };
  const server = new McpServer({
    info: { name: "shipcode-mcp", version: "1.0.0" },
    handlers: { ...handlers, ...loggingHandlers, "test/throw": fails },
    logger,
  });
  const open = async () => {
    const records: Sent["params"][] = [];
    const session = new Session((line) => {
      const message = JSON.parse(line) as Sent;
      if (message.method === "notifications/message") {
        records.push(message.params);
      }
    });
    await server.handle({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    }, session);
    await server.handle(
      { jsonrpc: "2.0", method: "notifications/initialized" },
      session,
    );
    await server.handle({
      jsonrpc: "2.0",
      id: 2,
      method: "logging/setLevel",
      params: { level: "debug" },
    }, session);
    return { session, records };
  };
  return { server, logger, a: await open(), b: await open() };
}

Deno.test("logging: a record about A's notification goes to A alone", async () => {
  const { server, logger, a, b } = await twoSessions();
  await server.handle(
    { jsonrpc: "2.0", method: "notifications/a-secret-7c1f" },
    a.session,
  );
  assert.deepEqual(a.records, [{
    level: "debug",
    logger: "shipcode-mcp",
    data: "ignored notification notifications/a-secret-7c1f",
  }]);
  assert.deepEqual(b.records, []);
  // stderr still has it.
  assert.ok(logger.lines.some((l) => l.includes("a-secret-7c1f")));
});

Deno.test("logging: a handler that fails on A's request is reported to A alone", async () => {
  const { server, a, b } = await twoSessions();
  const answer = await server.handle({
    jsonrpc: "2.0",
    id: 3,
    method: "test/throw",
    params: { secret: "A's token 5e9a" },
  }, a.session);
  assert.equal((answer?.error as { code: number }).code, -32603);
  assert.deepEqual(a.records, [{
    level: "error",
    logger: "shipcode-mcp",
    data: "handler for test/throw threw: A's token 5e9a",
  }]);
  assert.equal(b.records.length, 0);
  // A stray response and an invalid message: the sender's records too.
  await server.handle({ jsonrpc: "2.0", id: "x", result: {} }, b.session);
  await server.handle({ jsonrpc: "2.0", id: 4 }, b.session);
  assert.equal(a.records.length, 1);
  assert.deepEqual(b.records.map((r) => r.level), ["debug", "info"]);
});

Deno.test("logging: a huge method name makes one capped, escaped record", async () => {
  const { server, logger, a, b } = await twoSessions();
  const method = `notifications/x\nerror: forged${"m".repeat(200_000)}`;
  await server.handle({ jsonrpc: "2.0", method }, a.session);
  assert.equal(a.records.length, 1);
  const data = a.records[0].data as string;
  assert.equal(typeof data, "string");
  assert.ok(data.length < 1100, `a record of ${data.length} characters`);
  assert.ok(
    data.startsWith("ignored notification notifications/x\\nerror: forged"),
    data.slice(0, 80),
  );
  assert.match(data, /mmm… \(\d+ more characters\)$/);
  assert.ok(!data.includes("\n"));
  assert.deepEqual(b.records, []);
  // The server's own log gets it whole: its sink (stderr) escapes and cuts.
  assert.ok(logger.lines.some((l) => l.length > 200_000));
});

Deno.test("logging: the server's process-wide records reach no session", async () => {
  const { server, logger, a, b } = await twoSessions();
  server.logger.log("info", "index ready: 3 files");
  server.logger.log("error", "cannot watch the root:", new Error("gone"));
  assert.deepEqual(a.records, []);
  assert.deepEqual(b.records, []);
  assert.ok(logger.lines.includes("info: index ready: 3 files"));
});

Deno.test("logging: a session's logger follows the level it sets, and nothing after it closes", async () => {
  const { server, a, b } = await twoSessions();
  await server.handle({
    jsonrpc: "2.0",
    id: 5,
    method: "logging/setLevel",
    params: { level: "warning" },
  }, a.session);
  const log = server.loggerFor(a.session);
  log.log("info", "below the level");
  log.log("warn", "at the level");
  assert.deepEqual(a.records, [{
    level: "warning",
    logger: "shipcode-mcp",
    data: "at the level",
  }]);
  a.session.close();
  log.log("error", "after close");
  assert.equal(a.records.length, 1);
  assert.deepEqual(b.records, []);
});
