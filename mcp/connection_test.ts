import { strict as assert } from "node:assert";
import {
  BUSY_CODE,
  MAX_CONCURRENT_REQUESTS,
  MAX_HELD_RESPONSES,
  serve,
} from "./connection.ts";
import {
  EMPTY_RESULT,
  ErrorCode,
  idKey,
  type JsonObject,
  type RequestId,
} from "./jsonrpc.ts";
import { type HandlerMap, McpServer } from "./server.ts";
import type { InputEnd, Receiver, Transport } from "./transport.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A transport over lists: the test feeds texts, ends the input, and reads
 * what was sent (with the id each answer was sent for).
 */
class MemoryTransport implements Transport {
  readonly sent: { text: string; answers: RequestId | undefined }[] = [];
  readonly dropped: string[] = [];
  receiver: Receiver | undefined;
  stops = 0;
  closed = false;
  backlog = 0;
  progress = 0;
  broken = false;
  readonly #end = Promise.withResolvers<InputEnd>();

  start(receiver: Receiver): Promise<InputEnd> {
    this.receiver = receiver;
    return this.#end.promise;
  }
  feed(...texts: string[]): void {
    for (const text of texts) this.receiver!.receive(text);
  }
  end(how: InputEnd = "ended"): void {
    this.#end.resolve(how);
  }
  stop(): void {
    this.stops++;
    this.#end.resolve("stopped");
  }
  send(text: string, answers?: RequestId): void {
    this.sent.push({ text, answers });
    this.progress++;
  }
  drop(key: string): boolean {
    this.dropped.push(key);
    return false;
  }
  flush(): Promise<void> {
    return Promise.resolve();
  }
  close(): void {
    this.closed = true;
  }
  texts(): string[] {
    return this.sent.map((s) => s.text);
  }
}

/**
 * The methods these tests lean on, written out here: the connection is
 * tested against the library alone, not against the server's handlers.
 */
const basics: HandlerMap = {
  "ping": { handler: () => EMPTY_RESULT, atOnce: true },
  // Agrees to the version asked for: all the batch test needs of initialize.
  "initialize": {
    handler: (params, { session }) => {
      session.protocolVersion = String(params.protocolVersion);
      session.clientCapabilities = params.capabilities as JsonObject;
      session.state = "initializing";
      return { protocolVersion: session.protocolVersion };
    },
    atOnce: true,
  },
  "notifications/cancelled": {
    handler: (params, { session }) => {
      const id = params.requestId;
      if (typeof id === "string" || typeof id === "number") {
        session.cancel(id, "cancelled by the client");
      }
    },
    atOnce: true,
  },
};

/**
 * A server answering `basics` and `extra`. What it logs goes to `logged`
 * (`LEVEL: message detail`), never to the test run's stderr.
 */
function serverWith(
  extra: HandlerMap = {},
  logged: string[] = [],
): McpServer {
  return new McpServer({
    handlers: { ...basics, ...extra },
    info: { name: "example-mcp", version: "1.0.0" },
    logger: {
      level: "debug",
      log: (level, message, detail) =>
        logged.push(
          detail === undefined
            ? `${level}: ${message}`
            : `${level}: ${message} ${String(detail)}`,
        ),
    },
  });
}

const ping = (id: RequestId) =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"ping"}`;
const call = (id: RequestId, method: string, params = {}) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, params });
const cancel = (id: RequestId) =>
  `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${
    JSON.stringify(id)
  }}}`;
/** The ids of what the transport sent, in order. */
const idsOf = (transport: MemoryTransport) =>
  transport.texts().map((t) => JSON.parse(t).id);

Deno.test("serve: any transport gets answers in request order, each sent with the id it answers", async () => {
  const server = serverWith({
    "test/slow": async () => {
      await sleep(30);
      return { slow: true };
    },
  });
  const transport = new MemoryTransport();
  const done = serve(server, transport);
  transport.feed(call(1, "test/slow"), ping(2), "   ");
  transport.end();
  await done;
  assert.deepEqual(transport.texts(), [
    '{"jsonrpc":"2.0","id":1,"result":{"slow":true}}',
    '{"jsonrpc":"2.0","id":2,"result":{}}',
  ]);
  assert.deepEqual(transport.sent.map((s) => s.answers), [1, 2]);
  assert.equal(transport.closed, true);
});

Deno.test("serve: a rejected input is answered with id null in its place", async () => {
  const server = serverWith({
    "test/slow": async () => {
      await sleep(30);
      return {};
    },
  });
  const transport = new MemoryTransport();
  const done = serve(server, transport);
  transport.feed(call(1, "test/slow"));
  transport.receiver!.reject(ErrorCode.ParseError, "not UTF-8.");
  transport.end();
  await done;
  const [first, second] = transport.texts().map((t) => JSON.parse(t));
  assert.equal(first.id, 1);
  assert.equal(second.id, null);
  assert.equal(second.error.code, ErrorCode.ParseError);
  assert.match(second.error.message, /not UTF-8/);
});

Deno.test("serve: at most MAX_CONCURRENT_REQUESTS handlers run; ping is answered past the queue", async () => {
  let running = 0;
  let peak = 0;
  const gate = Promise.withResolvers<void>();
  const server = serverWith({
    "test/gated": async () => {
      peak = Math.max(peak, ++running);
      await gate.promise;
      running--;
      return {};
    },
  });
  const transport = new MemoryTransport();
  const done = serve(server, transport, { maxWaitMs: 20 });
  const n = MAX_CONCURRENT_REQUESTS + 3;
  for (let id = 1; id <= n; id++) transport.feed(call(id, "test/gated"));
  transport.feed(ping(100));
  await sleep(100);
  assert.equal(peak, MAX_CONCURRENT_REQUESTS);
  assert.deepEqual(transport.texts(), [
    '{"jsonrpc":"2.0","id":100,"result":{}}',
  ]);
  gate.resolve();
  transport.end();
  await done;
  assert.equal(transport.sent.length, n + 1);
  assert.equal(peak, MAX_CONCURRENT_REQUESTS);
});

Deno.test("serve: a cancelled request is taken back from the transport and never answered", async () => {
  const server = serverWith({
    "test/slow": async (_params, { signal }) => {
      await sleep(50);
      return { aborted: signal.aborted };
    },
  });
  const transport = new MemoryTransport();
  const done = serve(server, transport);
  transport.feed(
    call(7, "test/slow"),
    cancel(7),
    ping(8),
  );
  transport.end();
  await done;
  assert.deepEqual(transport.dropped, [idKey(7)]);
  assert.deepEqual(transport.texts(), ['{"jsonrpc":"2.0","id":8,"result":{}}']);
});

Deno.test("serve: batches are answered as one array in 2025-03-26 sessions only", async () => {
  const answers = async (version: string) => {
    const transport = new MemoryTransport();
    const done = serve(serverWith(), transport);
    transport.feed(
      call(1, "initialize", { protocolVersion: version }),
      `[${ping(2)},${ping(3)}]`,
      "[]",
    );
    transport.end();
    await done;
    return transport.texts().slice(1);
  };
  const [batch, empty] = await answers("2025-03-26");
  assert.equal(
    batch,
    '[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":3,"result":{}}]',
  );
  assert.equal(JSON.parse(empty).error.code, ErrorCode.InvalidRequest);
  // Later versions have no batches: an array is one invalid message.
  const later = await answers("2025-06-18");
  assert.equal(later.length, 2);
  for (const text of later) {
    const answer = JSON.parse(text);
    assert.equal(answer.id, null);
    assert.equal(answer.error.code, ErrorCode.InvalidRequest);
  }
});

Deno.test("serve: the signal stops the transport, and requests not started never start", async () => {
  let started = 0;
  const server = serverWith({
    "test/long": async () => {
      started++;
      await sleep(50);
      return {};
    },
  });
  const transport = new MemoryTransport();
  const controller = new AbortController();
  const done = serve(server, transport, { signal: controller.signal });
  const n = MAX_CONCURRENT_REQUESTS + 4;
  for (let id = 1; id <= n; id++) transport.feed(call(id, "test/long"));
  controller.abort();
  await done;
  assert.equal(transport.stops, 1);
  assert.equal(started, MAX_CONCURRENT_REQUESTS);
  assert.equal(transport.sent.length, MAX_CONCURRENT_REQUESTS);
});

Deno.test("serve: pressure asks the transport to wait while the output budget is spent", async () => {
  const server = serverWith({
    "test/big": () => ({ text: "x".repeat(100) }),
  });
  const transport = new MemoryTransport();
  // Nothing is written: what is sent stays counted in the budget.
  transport.send = (text) => transport.receiver!.budget.add(text.length);
  const done = serve(server, transport, { outputBudgetChars: 150 });
  assert.equal(transport.receiver!.pressure(), undefined);
  transport.feed(call(1, "test/big"), call(2, "test/big"));
  const wait = transport.receiver!.pressure();
  assert.ok(wait instanceof Promise);
  assert.ok(transport.receiver!.budget.over);
  transport.end("abandoned");
  await done;
});

Deno.test("serve: onSession gets the session before any message, and it can send at once", async () => {
  const transport = new MemoryTransport();
  let states: string[] = [];
  const done = serve(serverWith(), transport, {
    onSession: (session) => {
      states = [session.state];
      session.notify("notifications/tools/list_changed");
    },
  });
  assert.deepEqual(states, ["new"]);
  transport.feed(ping(1));
  transport.end();
  await done;
  assert.deepEqual(transport.texts(), [
    '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}',
    '{"jsonrpc":"2.0","id":1,"result":{}}',
  ]);
});

Deno.test("serve: a cancelled request is never answered, whether running, held behind a slower one, or not yet started", async () => {
  const gate = Promise.withResolvers<void>();
  let counted = 0;
  const server = serverWith({
    "test/gated": async () => {
      await gate.promise;
      return { gated: true };
    },
    // Ignores its signal on purpose: its late result must still be dropped.
    "test/stubborn": async () => {
      await sleep(50);
      return { stubborn: true };
    },
    "test/count": async () => {
      await Promise.resolve();
      return { count: ++counted };
    },
  });
  const transport = new MemoryTransport();
  const done = serve(server, transport, { maxWaitMs: 60_000 });
  // 1. Running, then finishing after the cancel.
  transport.feed(call("run", "test/stubborn"), cancel("run"));
  // 2. Ready but held back behind a slower request.
  transport.feed(call("slow", "test/gated"), call("held", "test/count"));
  await sleep(20);
  transport.feed(cancel("held"));
  // 3. Never started: behind MAX_CONCURRENT_REQUESTS running ones.
  for (let i = 0; i < MAX_CONCURRENT_REQUESTS; i++) {
    transport.feed(call(`busy${i}`, "test/gated"));
  }
  transport.feed(call("queued", "test/count"));
  await sleep(20);
  transport.feed(cancel("queued"));
  await sleep(100);
  gate.resolve();
  transport.end();
  await done;
  const ids = idsOf(transport);
  for (const id of ["run", "held", "queued"]) {
    assert.ok(!ids.includes(id), `${id} was answered after its cancel`);
  }
  assert.equal(ids.length, 1 + MAX_CONCURRENT_REQUESTS);
  // The queued request never ran; "held" did.
  assert.equal(counted, 1);
  assert.deepEqual(transport.dropped, ["run", "held", "queued"].map(idKey));
});

Deno.test("serve: requests past MAX_CONCURRENT_REQUESTS start in arrival order; with no wait limit every answer, pings among them, leaves in request order", async () => {
  let running = 0;
  let most = 0;
  const started: number[] = [];
  const server = serverWith({
    "test/busy": async (params) => {
      started.push(Number(params.n));
      most = Math.max(most, ++running);
      await sleep(5);
      running--;
      return {};
    },
  });
  const transport = new MemoryTransport();
  // A wait limit far beyond the test: on a loaded machine an answer held
  // 200 ms would be let out of order, and this test is about the order.
  const done = serve(server, transport, { maxWaitMs: 600_000 });
  const expected: number[] = [];
  for (let id = 1; id <= 300; id++) {
    // A ping among them is answered in its place, not before.
    transport.feed(id % 50 === 0 ? ping(id) : call(id, "test/busy", { n: id }));
    expected.push(id);
  }
  transport.end();
  await done;
  assert.equal(most, MAX_CONCURRENT_REQUESTS);
  assert.deepEqual(started, expected.filter((id) => id % 50 !== 0));
  assert.deepEqual(idsOf(transport), expected);
  assert.ok(transport.texts().every((t) => t.endsWith('"result":{}}')));
});

Deno.test("serve: a plain function returning a promise is capped and queued like an async one; only an atOnce row passes", async () => {
  for (const written of ["async", "plain", "atOnce"] as const) {
    const gate = Promise.withResolvers<void>();
    let started = 0;
    const work = () => {
      started++;
      return gate.promise.then(() => ({}));
    };
    const server = serverWith({
      "test/work": written === "async"
        ? async () => await work()
        : written === "plain"
        ? () => work()
        : { handler: () => work(), atOnce: true },
    });
    const transport = new MemoryTransport();
    const done = serve(server, transport, { maxWaitMs: 600_000 });
    for (let id = 1; id <= MAX_CONCURRENT_REQUESTS + 4; id++) {
      transport.feed(call(id, "test/work"));
    }
    await sleep(20);
    assert.equal(
      started,
      written === "atOnce"
        ? MAX_CONCURRENT_REQUESTS + 4
        : MAX_CONCURRENT_REQUESTS,
      written,
    );
    gate.resolve();
    transport.end();
    await done;
    assert.equal(idsOf(transport).length, MAX_CONCURRENT_REQUESTS + 4);
  }
});

Deno.test("serve: pressure asks the transport to wait once MAX_HELD_RESPONSES places are held, by requests waiting to start or by answers behind a slower one", async () => {
  for (const held of ["requests", "pings"]) {
    const gate = Promise.withResolvers<void>();
    const server = serverWith({
      "test/gated": async () => {
        await gate.promise;
        return { gated: true };
      },
    });
    const transport = new MemoryTransport();
    const done = serve(server, transport, { maxWaitMs: 600_000 });
    const message = (id: number) =>
      held === "requests" ? call(id, "test/gated") : ping(id);
    transport.feed(call(1, "test/gated"));
    for (let id = 2; id < MAX_HELD_RESPONSES; id++) transport.feed(message(id));
    assert.equal(transport.receiver!.pressure(), undefined, held);
    transport.feed(message(MAX_HELD_RESPONSES));
    const wait = transport.receiver!.pressure();
    assert.ok(wait instanceof Promise, held);
    // Everything waits behind the first request.
    assert.deepEqual(transport.texts(), [], held);
    gate.resolve();
    await wait;
    transport.end();
    await done;
    assert.deepEqual(
      idsOf(transport),
      Array.from({ length: MAX_HELD_RESPONSES }, (_, i) => i + 1),
      held,
    );
  }
});

Deno.test("serve: by default a ready answer waits at most about 200 ms behind a slow one", async () => {
  // The slow request ends once every ping is sent, not after a fixed 2 s
  // that late timers on a loaded machine could outrun with twelve sleeps.
  const gate = Promise.withResolvers<void>();
  const server = serverWith({
    "test/slow": async () => {
      await gate.promise;
      return { slow: true };
    },
  });
  const transport = new MemoryTransport();
  const at = new Map<string, number>();
  const send = transport.send.bind(transport);
  transport.send = (text, answers) => {
    at.set(JSON.stringify(JSON.parse(text).id), performance.now());
    send(text, answers);
  };
  const done = serve(server, transport);
  transport.feed(call("slow", "test/slow"));
  const sent = new Map<string, number>();
  for (let i = 0; i < 12; i++) {
    await sleep(100);
    sent.set(JSON.stringify(i), performance.now());
    transport.feed(ping(i));
  }
  gate.resolve();
  transport.end();
  await done;
  const waits = [...sent].map(([id, t]) => at.get(id)! - t);
  assert.ok(waits.every((w) => !Number.isNaN(w)), "every ping is answered");
  waits.sort((a, b) => a - b);
  // The first ping waits out the limit; later ones go at once. A loaded
  // machine can delay timers: the median must hold, the worst gets room.
  assert.ok(waits[6] < 300, `median wait ${waits[6]} ms`);
  assert.ok(waits[11] < 1000, `worst wait ${waits[11]} ms`);
  assert.equal(idsOf(transport).at(-1), "slow");
});

const INIT_WITH_SAMPLING = call(0, "initialize", {
  protocolVersion: "2025-06-18",
  capabilities: { sampling: {}, roots: {} },
  clientInfo: { name: "t", version: "1" },
});

/** The requests the server sent the client, by id. */
function clientRequests(transport: MemoryTransport): Map<string, string> {
  const requests = new Map<string, string>();
  for (const text of transport.texts()) {
    const message = JSON.parse(text);
    if (typeof message.method === "string" && message.id !== undefined) {
      requests.set(message.id, message.method);
    }
  }
  return requests;
}

Deno.test("serve: handlers waiting on the client hold no slot; a ping and a ninth request are served, and the answers reach them", async () => {
  const server = serverWith({
    "test/ask": async (_params, ctx) => {
      const roots = await ctx.request("roots/list");
      return { roots };
    },
    "test/quick": async () => {
      await sleep(1);
      return { quick: true };
    },
  });
  const transport = new MemoryTransport();
  const done = serve(server, transport, { maxWaitMs: 20 });
  transport.feed(INIT_WITH_SAMPLING);
  const n = MAX_CONCURRENT_REQUESTS + 2;
  for (let id = 1; id <= n; id++) transport.feed(call(id, "test/ask"));
  await sleep(30);
  // Every handler runs and waits on the client: none is queued.
  assert.equal(clientRequests(transport).size, n);
  transport.feed(ping(100), call(101, "test/quick"));
  await sleep(50);
  const answered = () =>
    transport.texts().map((t) => JSON.parse(t)).filter((m) =>
      "result" in m || "error" in m
    );
  assert.deepEqual(
    answered().map((m) => m.id).filter((id) => id >= 100),
    [100, 101],
  );
  // The client answers every request; each handler gets its answer.
  for (const id of clientRequests(transport).keys()) {
    transport.feed(
      JSON.stringify({
        jsonrpc: "2.0",
        id,
        result: { roots: [{ uri: `file:///${id}` }] },
      }),
    );
  }
  transport.end();
  await done;
  const results = answered().filter((m) => m.id >= 1 && m.id <= n);
  assert.equal(results.length, n);
  const uris = results.map((m) => m.result.roots.roots[0].uri).sort();
  assert.deepEqual(
    uris,
    [...clientRequests(transport).keys()].map((id) => `file:///${id}`).sort(),
  );
});

Deno.test("serve: a handler that waits on the client frees its slot for a queued request, and takes it back", async () => {
  let running = 0;
  let peak = 0;
  const gate = Promise.withResolvers<void>();
  const server = serverWith({
    "test/ask": async (_params, ctx) => await ctx.request("roots/list"),
    "test/gated": async () => {
      peak = Math.max(peak, ++running);
      await gate.promise;
      running--;
      return {};
    },
  });
  const transport = new MemoryTransport();
  const done = serve(server, transport, { maxWaitMs: 20 });
  transport.feed(INIT_WITH_SAMPLING);
  // Eight gated handlers fill the slots; the asking one waits its turn.
  for (let id = 1; id <= MAX_CONCURRENT_REQUESTS; id++) {
    transport.feed(call(id, "test/gated"));
  }
  transport.feed(call(50, "test/ask"), call(51, "test/gated"));
  await sleep(20);
  assert.equal(clientRequests(transport).size, 0);
  gate.resolve();
  await sleep(20);
  const [id] = clientRequests(transport).keys();
  assert.ok(id !== undefined, "the asking handler started");
  transport.feed(JSON.stringify({ jsonrpc: "2.0", id, result: { roots: [] } }));
  transport.end();
  await done;
  const ids = transport.texts().map((t) => JSON.parse(t).id);
  for (const want of [50, 51]) assert.ok(ids.includes(want), `${want}`);
  assert.ok(peak <= MAX_CONCURRENT_REQUESTS);
});

Deno.test("serve: past maxRequestsInFlight a request is refused at once with a clear error; pings still pass", async () => {
  const gate = Promise.withResolvers<void>();
  const server = serverWith({
    "test/gated": async () => {
      await gate.promise;
      return {};
    },
  });
  const transport = new MemoryTransport();
  const done = serve(server, transport, {
    maxWaitMs: 10,
    maxRequestsInFlight: 12,
  });
  for (let id = 1; id <= 15; id++) transport.feed(call(id, "test/gated"));
  transport.feed(ping(100));
  await sleep(40);
  const early = transport.texts().map((t) => JSON.parse(t));
  assert.deepEqual(early.map((m) => m.id).sort((a, b) => a - b), [
    13,
    14,
    15,
    100,
  ]);
  for (const refused of early.filter((m) => m.id !== 100)) {
    assert.equal(refused.error.code, BUSY_CODE);
    assert.match(refused.error.message, /12 requests in flight; wait/);
  }
  gate.resolve();
  await sleep(10);
  // Room again: a new request is served.
  transport.feed(call(16, "test/gated"));
  transport.end();
  await done;
  const results = transport.texts().map((t) => JSON.parse(t)).filter((m) =>
    "result" in m
  );
  assert.deepEqual(
    results.map((m) => m.id).sort((a, b) => a - b),
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16, 100],
  );
});

// What a handler still waiting on the client gets once the input ends, and
// once the connection is given up (the client stopped reading).
const INPUT_ENDED =
  "error: handler for test/ask threw: Error: The client's input ended; it can no longer answer requests.";
const SESSION_CLOSED =
  "error: handler for test/ask threw: Error: The session closed.";

Deno.test("serve: handlers waiting on the client count towards maxRequestsInFlight", async () => {
  const logged: string[] = [];
  const server = serverWith({
    "test/ask": async (_params, ctx) => await ctx.request("roots/list"),
  }, logged);
  const transport = new MemoryTransport();
  const done = serve(server, transport, { maxRequestsInFlight: 3 });
  transport.feed(INIT_WITH_SAMPLING);
  for (let id = 1; id <= 5; id++) transport.feed(call(id, "test/ask"));
  await sleep(20);
  assert.equal(clientRequests(transport).size, 3);
  const refused = transport.texts().map((t) => JSON.parse(t)).filter((m) =>
    m.error?.code === BUSY_CODE
  );
  assert.deepEqual(refused.map((m) => m.id), [4, 5]);
  transport.end();
  await done;
  // The three waiting on the client fail when the session closes, and
  // say so in the log; the refused ones never ran.
  await sleep(0);
  assert.deepEqual(logged, [INPUT_ENDED, INPUT_ENDED, INPUT_ENDED]);
});

Deno.test("serve: reading does not pause for held requests while a handler waits on the client", async () => {
  const first = Promise.withResolvers<void>();
  const never = Promise.withResolvers<void>();
  const logged: string[] = [];
  const server = serverWith({
    "test/ask": async (_params, ctx) => await ctx.request("roots/list"),
    "test/first": async () => {
      await first.promise;
      return {};
    },
    "test/never": async () => {
      await never.promise;
      return {};
    },
  }, logged);
  const transport = new MemoryTransport();
  const done = serve(server, transport, { maxWaitMs: 60_000 });
  transport.feed(INIT_WITH_SAMPLING);
  for (let id = 1; id <= MAX_CONCURRENT_REQUESTS; id++) {
    transport.feed(call(id, "test/first"));
  }
  transport.feed(call(100, "test/ask"));
  for (let id = 1000; id < 1000 + MAX_HELD_RESPONSES; id++) {
    transport.feed(call(id, "test/never"));
  }
  const wait = transport.receiver!.pressure();
  assert.ok(wait instanceof Promise, "held requests pause reading");
  let resumed = false;
  wait.then(() => resumed = true);
  await sleep(10);
  assert.equal(resumed, false);
  // The first handlers finish; the asking one starts and waits on the
  // client: reading resumes though thousands of requests are still held.
  first.resolve();
  await sleep(10);
  assert.equal(clientRequests(transport).size, 1);
  assert.equal(resumed, true);
  assert.equal(transport.receiver!.pressure(), undefined);
  transport.end("abandoned");
  await done;
  await sleep(0);
  assert.deepEqual(logged, [SESSION_CLOSED]);
});

Deno.test("serve: reading pauses at half of maxRequestsInFlight and resumes at a quarter, so a pausing client is not refused", async () => {
  const gates: PromiseWithResolvers<void>[] = [];
  const server = serverWith({
    "test/gated": async () => {
      const gate = Promise.withResolvers<void>();
      gates.push(gate);
      await gate.promise;
      return {};
    },
  });
  const transport = new MemoryTransport();
  const done = serve(server, transport, {
    maxWaitMs: 10,
    maxRequestsInFlight: 40,
  });
  for (let id = 1; id < 20; id++) transport.feed(call(id, "test/gated"));
  assert.equal(transport.receiver!.pressure(), undefined);
  transport.feed(call(20, "test/gated"));
  const wait = transport.receiver!.pressure();
  assert.ok(wait instanceof Promise);
  let resumed = false;
  wait.then(() => resumed = true);
  // Answer requests until 10 (a quarter) are in flight.
  for (let answered = 0; answered < 9; answered++) {
    gates.shift()!.resolve();
    await sleep(1);
  }
  assert.equal(resumed, false);
  gates.shift()!.resolve();
  await sleep(5);
  assert.equal(resumed, true);
  while (gates.length > 0) {
    gates.shift()!.resolve();
    await sleep(1);
  }
  transport.end();
  await done;
  assert.ok(
    transport.texts().every((t) => JSON.parse(t).result !== undefined),
  );
});

Deno.test("serve: a handler that asks the client before its dispatch returns does not hold later answers back", async () => {
  const server = serverWith({
    // Not async: ctx.request is called during dispatch itself.
    "test/ask": (_params, ctx) => ctx.request("roots/list"),
  });
  const transport = new MemoryTransport();
  const done = serve(server, transport); // the default 200 ms wait
  transport.feed(INIT_WITH_SAMPLING, call(1, "test/ask"), ping(2));
  await sleep(50);
  const ids = () => transport.texts().map((t) => JSON.parse(t).id);
  assert.ok(ids().includes(2), "the ping waited behind the asking request");
  transport.feed(
    JSON.stringify({ jsonrpc: "2.0", id: "s1", result: { roots: [] } }),
  );
  transport.end();
  await done;
  assert.ok(ids().includes(1));
});

Deno.test("serve: an onSession hook that throws is logged, and the client is still served", async () => {
  const transport = new MemoryTransport();
  const logged: string[] = [];
  const server = new McpServer({
    handlers: { ping: () => ({}) },
    info: { name: "example-mcp", version: "1.0.0" },
    logger: { level: "debug", log: (_level, message) => logged.push(message) },
  });
  const done = serve(server, transport, {
    onSession: () => {
      throw new Error("hook failed");
    },
  });
  transport.feed(ping(1));
  transport.end();
  await done;
  assert.deepEqual(transport.texts(), ['{"jsonrpc":"2.0","id":1,"result":{}}']);
  assert.ok(logged.includes("onSession failed:"), logged.join("\n"));
});

Deno.test("serve: the transport is told the connection's drain timeout", async () => {
  const transport = new MemoryTransport();
  const done = serve(serverWith(), transport, { drainTimeoutMs: 1234 });
  assert.equal(transport.receiver?.drainTimeoutMs, 1234);
  transport.end();
  await done;
});

Deno.test("serve: after the input ends, work in flight still sends its notifications ahead of its answer, but cannot ask the client", async () => {
  const server = serverWith({
    "test/late": async (_params, ctx) => {
      await sleep(30);
      ctx.notify("notifications/message", { level: "info", data: "late" });
      const asked = await ctx.request("roots/list").then(
        () => "answered",
        (error: Error) => error.message,
      );
      return { asked };
    },
  });
  const transport = new MemoryTransport();
  const done = serve(server, transport);
  transport.feed(call(1, "test/late"));
  transport.end();
  await done;
  assert.deepEqual(transport.texts(), [
    '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"late"}}',
    `{"jsonrpc":"2.0","id":1,"result":{"asked":"The client's input ended; it can no longer answer requests."}}`,
  ]);
});
