import { strict as assert } from "node:assert";
import { EMPTY_RESULT, encodeResult, RpcError } from "./jsonrpc.ts";
import type { Logger } from "./log.ts";
import { type Handler, lazyHandler, McpServer } from "./server.ts";
import { Session } from "./session.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    level: "debug",
    lines,
    log(level, message, detail) {
      lines.push(
        `${level} ${message} ${
          detail instanceof Error ? detail.stack : detail ?? ""
        }`,
      );
    },
  };
}

function serverWith(extra: Record<string, Handler>) {
  const logger = memoryLogger();
  let initialized = 0;
  const server = new McpServer({
    info: { name: "shipcode-mcp", version: "1.0.0" },
    handlers: {
      "ping": () => ({}),
      "notifications/initialized": () => {
        initialized++;
      },
      ...extra,
    },
    logger,
  });
  return { server, logger, initialized: () => initialized };
}

/** Every line the dispatcher produced must parse as a JSON-RPC response. */
function parseResponse(line: string | undefined): Record<string, unknown> {
  assert.equal(typeof line, "string");
  const value = JSON.parse(line as string);
  assert.equal(value.jsonrpc, "2.0");
  assert.ok("result" in value !== "error" in value, line);
  return value;
}

Deno.test("server: a request for a notification method is -32601 and says why", async () => {
  const { server, initialized } = serverWith({});
  const session = new Session(() => {});
  for (
    const method of [
      "notifications/initialized",
      "notifications/cancelled",
      "notifications/anything/else",
    ]
  ) {
    const response = parseResponse(
      await server.handleLine(
        `{"jsonrpc":"2.0","id":5,"method":"${method}"}`,
        session,
      ),
    );
    const error = response.error as { code: number; message: string };
    assert.equal(error.code, -32601);
    assert.match(error.message, /is a notification, not a request/);
    assert.ok(error.message.includes(method));
  }
  // The notification's handler did not run for the request.
  assert.equal(initialized(), 0);
  await server.handleLine(
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    session,
  );
  assert.equal(initialized(), 1);
});

Deno.test("server: a request method sent as a notification runs nothing", async () => {
  let calls = 0;
  const { server } = serverWith({ "test/count": () => ({ n: ++calls }) });
  const session = new Session(() => {});
  assert.equal(
    await server.handleLine('{"jsonrpc":"2.0","method":"test/count"}', session),
    undefined,
  );
  assert.equal(calls, 0);
});

Deno.test("server: a handler whose return is no JSON object gets -32603, logged", async () => {
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  const returns: [string, unknown][] = [
    ["undefined", undefined],
    ["null", null],
    ["a string", "text"],
    ["a number", 7],
    ["an array", [1]],
    ["a function", () => {}],
    ["a cycle", cycle],
    ["a BigInt", { n: 1n }],
  ];
  for (const [what, value] of returns) {
    for (const async of [false, true]) {
      const { server, logger } = serverWith({
        "test/bad": () => async ? Promise.resolve(value) : value,
      });
      const line = await server.handleLine(
        '{"jsonrpc":"2.0","id":1,"method":"test/bad"}',
        new Session(() => {}),
      );
      const error = parseResponse(line).error as {
        code: number;
        message: string;
      };
      assert.equal(error.code, -32603, `${what} (async: ${async})`);
      assert.match(error.message, /^Internal error: .*"test\/bad".*log/);
      assert.match(logger.lines.join("\n"), /test\/bad returned no valid/);
    }
  }
});

Deno.test("server: an RpcError whose data cannot be JSON still answers its message", async () => {
  const { server, logger } = serverWith({
    "test/bad-data": () => {
      throw new RpcError(-32602, "Invalid params: x must be small", {
        n: 1n,
      });
    },
  });
  const line = await server.handleLine(
    '{"jsonrpc":"2.0","id":1,"method":"test/bad-data"}',
    new Session(() => {}),
  );
  assert.equal(
    line,
    '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: x must be small"}}',
  );
  assert.match(logger.lines.join("\n"), /error data of test\/bad-data/);
});

Deno.test("encodeResult: refuses what would not be a JSON object", () => {
  assert.equal(
    encodeResult(1, { a: 1 }),
    '{"jsonrpc":"2.0","id":1,"result":{"a":1}}',
  );
  for (const bad of [undefined, null, "x", 3, [], () => {}, Symbol("s")]) {
    assert.throws(() => encodeResult(1, bad), TypeError);
  }
});

Deno.test("server: default capabilities follow the method map, in a fixed key order", () => {
  const info = { name: "example-mcp", version: "1.0.0" };
  const handler: Handler = () => ({});
  const all = new McpServer({
    info,
    handlers: {
      "completion/complete": { handler, capability: "completions" },
      "logging/setLevel": { handler, capability: "logging" },
      "prompts/list": { handler, capability: "prompts" },
      "resources/list": { handler, capability: "resources" },
      "tools/list": { handler, capability: "tools" },
    },
  });
  assert.equal(
    JSON.stringify(all.capabilities),
    '{"tools":{},"resources":{},"prompts":{},"logging":{},"completions":{}}',
  );
  // A bare handler declares nothing, whatever its method's name.
  assert.equal(
    JSON.stringify(
      new McpServer({
        info,
        handlers: { ping: handler, "tools/list": handler },
      })
        .capabilities,
    ),
    "{}",
  );
  const given = { tools: { listChanged: true } };
  assert.equal(
    new McpServer({ info, handlers: {}, capabilities: given }).capabilities,
    given,
  );
});

Deno.test("server: a lazy handler runs only once setup has finished", async () => {
  let setupDone = false;
  const server = new McpServer({
    info: { name: "example-mcp", version: "1.0.0" },
    handlers: {
      "test/lazy": lazyHandler(() =>
        Promise.resolve<Handler>(() => ({ setupDone }))
      ),
    },
    setup: async () => {
      await new Promise((r) => setTimeout(r, 20));
      setupDone = true;
    },
  });
  const response = await server.handle(
    { jsonrpc: "2.0", id: 1, method: "test/lazy" },
    new Session(() => {}),
  );
  assert.deepEqual(response, {
    jsonrpc: "2.0",
    id: 1,
    result: { setupDone: true },
  });
});

Deno.test("server: a failed setup fails the lazy handler's request with -32603, and is retried", async () => {
  let attempts = 0;
  const server = new McpServer({
    info: { name: "example-mcp", version: "1.0.0" },
    logger: memoryLogger(),
    handlers: {
      "test/lazy": lazyHandler(() => Promise.resolve<Handler>(() => ({}))),
    },
    setup: () => {
      attempts++;
      return attempts === 1
        ? Promise.reject(new Error("no workspace"))
        : Promise.resolve();
    },
  });
  const session = new Session(() => {});
  const request = { jsonrpc: "2.0", id: 1, method: "test/lazy" };
  const first = await server.handle(request, session);
  assert.equal((first?.error as { code: number }).code, -32603);
  assert.deepEqual((await server.handle(request, session))?.result, {});
  assert.equal(attempts, 2);
});

Deno.test("server: a handler that throws gets -32603, the stack goes to the log only", async () => {
  const logger = memoryLogger();
  const server = new McpServer({
    info: { name: "example-mcp", version: "1.0.0" },
    handlers: {
      "ping": () => EMPTY_RESULT,
      "test/throws": () => {
        throw new TypeError("secret internals");
      },
      "test/rejects": () => Promise.reject(new Error("async internals")),
    },
    logger,
  });
  const session = new Session(() => {});
  for (const method of ["test/throws", "test/rejects"]) {
    const line = await server.handleLine(
      `{"jsonrpc":"2.0","id":1,"method":"${method}"}`,
      session,
    );
    assert.equal(
      line,
      `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error: the server failed while handling \\"${method}\\"; its log (stderr) has the details."}}`,
    );
  }
  const log = logger.lines.join("\n");
  assert.match(log, /secret internals/);
  assert.match(log, /async internals/);
  // The server goes on.
  assert.equal(
    await server.handleLine(
      '{"jsonrpc":"2.0","id":2,"method":"ping"}',
      session,
    ),
    '{"jsonrpc":"2.0","id":2,"result":{}}',
  );
});

Deno.test("server: a notification handler that throws is logged, never answered", async () => {
  const logger = memoryLogger();
  const server = new McpServer({
    info: { name: "example-mcp", version: "1.0.0" },
    handlers: {
      "notifications/boom": () => {
        throw new Error("boom");
      },
    },
    logger,
  });
  const session = new Session(() => {});
  assert.equal(
    await server.handleLine(
      '{"jsonrpc":"2.0","method":"notifications/boom"}',
      session,
    ),
    undefined,
  );
  assert.match(logger.lines.join("\n"), /boom/);
});

/** A session that records what the server sends it on its own. */
function recordingSession(version = "2025-06-18") {
  const sent: { method: string; params: Record<string, unknown> }[] = [];
  const session = new Session((line) => sent.push(JSON.parse(line)));
  session.protocolVersion = version;
  return { session, sent };
}

Deno.test("reportProgress: only with a progressToken, increasing, never after the response", async () => {
  let late: (() => void) | undefined;
  const { server } = serverWith({
    "test/work": async (_params, ctx) => {
      ctx.reportProgress(1, 10, "first");
      await sleep(5);
      ctx.reportProgress(2, 10, "second");
      ctx.reportProgress(2, 10, "not above the last sent");
      ctx.reportProgress(1, 10, "backwards");
      ctx.reportProgress(Infinity, 10, "not a number");
      ctx.reportProgress(4, undefined, "no total");
      late = () => ctx.reportProgress(100, 100, "after the response");
      return {};
    },
  });
  const { session, sent } = recordingSession();
  const request = (id: number, meta?: object) =>
    server.handle({
      jsonrpc: "2.0",
      id,
      method: "test/work",
      params: meta === undefined ? {} : { _meta: meta },
    }, session);
  await request(1);
  assert.equal(sent.length, 0);
  await request(2, { progressToken: "tok" });
  late!();
  assert.deepEqual(sent.map((m) => m.params), [
    { progressToken: "tok", progress: 1, total: 10, message: "first" },
    { progressToken: "tok", progress: 2, total: 10, message: "second" },
    { progressToken: "tok", progress: 4, message: "no total" },
  ]);
  assert.ok(sent.every((m) => m.method === "notifications/progress"));
});

Deno.test("reportProgress: nothing once the request is cancelled; no message before 2025-03-26", async () => {
  const gate = Promise.withResolvers<void>();
  let report: ((n: number) => void) | undefined;
  const { server } = serverWith({
    "test/work": async (_params, ctx) => {
      report = (n) => ctx.reportProgress(n, undefined, "text");
      await gate.promise;
      return {};
    },
  });
  const { session, sent } = recordingSession("2024-11-05");
  const answer = server.handle({
    jsonrpc: "2.0",
    id: 1,
    method: "test/work",
    params: { _meta: { progressToken: 7 } },
  }, session);
  await sleep(10);
  report!(1);
  session.cancel(1, "stop");
  await sleep(10);
  report!(2);
  gate.resolve();
  assert.equal(await answer, undefined);
  assert.deepEqual(sent.map((m) => m.params), [
    { progressToken: 7, progress: 1 },
  ]);
});

Deno.test("ctx.log and the diagnostics about a session reach that session alone, at its level; the server's own records reach none; stderr's logger gets everything", async () => {
  const { server, logger } = serverWith({
    "test/log": (params, ctx) => {
      ctx.log("notice", { step: params.step }, "worker");
      return {};
    },
    "test/throw": () => {
      throw new Error("kaboom");
    },
  });
  const quiet = recordingSession();
  const loud = recordingSession();
  quiet.session.logLevel = "notice";
  loud.session.logLevel = "notice";
  await server.handle(
    { jsonrpc: "2.0", id: 1, method: "test/throw" },
    quiet.session,
  );
  await server.handle(
    { jsonrpc: "2.0", id: 2, method: "test/log", params: { step: 2 } },
    loud.session,
  );
  await server.handle(
    { jsonrpc: "2.0", id: 3, method: "test/throw" },
    loud.session,
  );
  // Below the level: not sent.
  server.loggerFor(loud.session).log("info", "chatter");
  // The server's own: to no session.
  server.logger.log("error", "process-wide");
  assert.deepEqual(quiet.sent.map((m) => m.params), [{
    level: "error",
    logger: "shipcode-mcp",
    data: "handler for test/throw threw: kaboom",
  }]);
  assert.deepEqual(loud.sent.map((m) => m.params), [
    { level: "notice", logger: "worker", data: { step: 2 } },
    {
      level: "error",
      logger: "shipcode-mcp",
      data: "handler for test/throw threw: kaboom",
    },
  ]);
  const lines = logger.lines.join("\n");
  assert.match(lines, /test\/throw threw: Error: kaboom/);
  assert.match(lines, /chatter/);
  assert.match(lines, /process-wide/);
  // A closed session gets nothing more.
  loud.session.close();
  server.loggerFor(loud.session).log("error", "after close");
  assert.equal(loud.sent.length, 2);
});

Deno.test("server: a handler waits for setup unless its row says atOnce, however it is written", async () => {
  let setupDone = false;
  const release = Promise.withResolvers<void>();
  const server = new McpServer({
    info: { name: "example-mcp", version: "1.0.0" },
    handlers: {
      "test/async": async () => {
        await Promise.resolve();
        return { setupDone };
      },
      // Not `async`, but returns a promise: the same as the one above.
      "test/promise": () => Promise.resolve().then(() => ({ setupDone })),
      "test/plain": () => ({ setupDone }),
      "test/at-once": { handler: () => ({ setupDone }), atOnce: true },
    },
    setup: async () => {
      await release.promise;
      setupDone = true;
    },
  });
  const session = new Session(() => {});
  const waiting = ["test/async", "test/promise", "test/plain"].map((
    method,
    i,
  ) => server.handle({ jsonrpc: "2.0", id: i, method }, session));
  const atOnce = await server.handle(
    { jsonrpc: "2.0", id: 9, method: "test/at-once" },
    session,
  );
  assert.deepEqual(atOnce?.result, { setupDone: false });
  assert.equal(server.answersAtOnce("test/at-once"), true);
  for (const method of ["test/async", "test/promise", "test/plain"]) {
    assert.equal(server.answersAtOnce(method), false, method);
  }
  release.resolve();
  for (const answer of await Promise.all(waiting)) {
    assert.deepEqual(answer?.result, { setupDone: true });
  }
});

Deno.test("server: a lazy handler's module loads while setup runs, not after it", async () => {
  const events: string[] = [];
  const server = new McpServer({
    info: { name: "example-mcp", version: "1.0.0" },
    handlers: {
      "test/lazy": lazyHandler(async () => {
        events.push("load started");
        await new Promise((r) => setTimeout(r, 30));
        events.push("load done");
        return () => ({});
      }),
    },
    setup: async () => {
      events.push("setup started");
      await new Promise((r) => setTimeout(r, 30));
      events.push("setup done");
    },
  });
  await server.handle(
    { jsonrpc: "2.0", id: 1, method: "test/lazy" },
    new Session(() => {}),
  );
  assert.ok(
    events.indexOf("load started") < events.indexOf("setup done"),
    events.join(", "),
  );
});

Deno.test("server: requests whose row says largeAnswer run one at a time across sessions, in turn; a cancelled one never runs", async () => {
  let running = 0;
  let most = 0;
  const ran: string[] = [];
  const server = new McpServer({
    info: { name: "example-mcp", version: "1.0.0" },
    handlers: {
      "test/large": {
        handler: async (params) => {
          running++;
          most = Math.max(most, running);
          ran.push(String(params.who));
          await sleep(2);
          running--;
          return { who: params.who };
        },
        largeAnswer: true,
      },
      "test/small": async () => {
        await sleep(1);
        return { running };
      },
    },
  });
  const flood = new Session(() => {});
  const newcomer = new Session(() => {});
  const answers = [];
  for (let i = 0; i < 8; i++) {
    answers.push(server.handle({
      jsonrpc: "2.0",
      id: i,
      method: "test/large",
      params: { who: `flood ${i}` },
    }, flood));
  }
  const cancelled = server.handle({
    jsonrpc: "2.0",
    id: 99,
    method: "test/large",
    params: { who: "cancelled" },
  }, flood);
  flood.cancel(99, "no longer wanted");
  answers.push(server.handle({
    jsonrpc: "2.0",
    id: 0,
    method: "test/large",
    params: { who: "newcomer" },
  }, newcomer));
  // Other methods do not wait for the gate.
  const small = await server.handle(
    { jsonrpc: "2.0", id: 50, method: "test/small" },
    newcomer,
  );
  assert.ok((small?.result as { running: number }).running <= 1);
  const done = await Promise.all(answers);
  assert.equal(await cancelled, undefined);
  assert.equal(most, 1);
  assert.ok(!ran.includes("cancelled"), ran.join());
  // The newcomer came after nine of the flood and is served second.
  assert.equal(ran.indexOf("newcomer"), 1, ran.join());
  assert.deepEqual(done.at(-1)?.result, { who: "newcomer" });
});

Deno.test("server: a largeAnswer request stuck waiting (on its client, say) holds the gate one lease at most", async () => {
  const never = new Promise<never>(() => {});
  const server = new McpServer({
    info: { name: "example-mcp", version: "1.0.0" },
    handlers: {
      "test/large": {
        handler: async (params) => {
          if (params.stuck === true) await never;
          return { ok: true };
        },
        largeAnswer: true,
      },
    },
  });
  const stuckSession = new Session(() => {});
  const other = new Session(() => {});
  server.handle({
    jsonrpc: "2.0",
    id: 1,
    method: "test/large",
    params: { stuck: true },
  }, stuckSession);
  const started = performance.now();
  const answer = await server.handle(
    { jsonrpc: "2.0", id: 1, method: "test/large", params: {} },
    other,
  );
  assert.deepEqual(answer?.result, { ok: true });
  assert.ok(performance.now() - started < 2_000);
});
