import { strict as assert } from "node:assert";
import { EMPTY_RESULT, type JsonObject } from "../jsonrpc.ts";
import { type Handler, type HandlerMap, McpServer } from "../server.ts";
import { MAX_CONCURRENT_REQUESTS } from "../connection.ts";
import { serveStdio, type StdioOptions } from "./stdio.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function ping(id: number | string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"ping"}`;
}

function pong(id: number | string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{}}`;
}

function cancel(id: number | string): string {
  return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${
    JSON.stringify(id)
  }}}`;
}

function call(id: number | string, method: string, params = {}): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}

/** An input the test writes lines into, and ends. */

function controlledInput() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
  });
  return {
    stream,
    send(...lines: string[]) {
      controller.enqueue(encoder.encode(lines.join("\n") + "\n"));
    },
    end() {
      controller.close();
    },
  };
}

/** An output that records each line with the time it was written. */

function timedOutput() {
  const lines: { line: string; at: number }[] = [];
  let gate: PromiseWithResolvers<void> | undefined;
  let partial = "";
  return {
    lines,
    text: () => lines.map((l) => l.line + "\n").join(""),
    block() {
      gate = Promise.withResolvers<void>();
    },
    unblock() {
      gate?.resolve();
      gate = undefined;
    },
    async write(bytes: Uint8Array) {
      if (gate) await gate.promise;
      const at = performance.now();
      const text = partial + decoder.decode(bytes);
      const parts = text.split("\n");
      partial = parts.pop()!;
      for (const line of parts) lines.push({ line, at });
      return bytes.length;
    },
  };
}

/**
 * The methods these tests lean on, written out here: the transport is
 * tested against the library alone, not against the server's handlers.
 */
const basics: HandlerMap = {
  "ping": () => EMPTY_RESULT,
  "notifications/cancelled": (params, { session }) => {
    const id = params.requestId;
    if (typeof id === "string" || typeof id === "number") {
      session.cancel(id, "cancelled by the client");
    }
  },
};

function serverWith(extra: Record<string, Handler>): McpServer {
  return new McpServer({
    info: { name: "example-mcp", version: "1.0.0" },
    handlers: { ...basics, ...extra },
  });
}

// Cancelling a request that is running, held back or not started yet is the
// connection's (connection_test.ts); an answer already handed to the
// transport is the transport's to take back.
Deno.test("serveStdio: a cancelled answer still queued for output is never written", async () => {
  let counted = 0;
  const server = serverWith({
    // async: a plain function would be answered at once, never queued.
    "test/count": async () => {
      await Promise.resolve();
      return { count: ++counted };
    },
  });
  const input = controlledInput();
  const output = timedOutput();
  const serving = serveStdio(server, {
    input: input.stream,
    output,
    maxWaitMs: 60_000,
  });
  // Answered, but queued for output behind a write the client does not read.
  output.block();
  input.send(ping("blocked-write"));
  await sleep(20);
  input.send(call("unwritten", "test/count"));
  await sleep(20);
  input.send(cancel("unwritten"));
  await sleep(20);
  output.unblock();
  input.end();
  await serving;
  assert.deepEqual(output.lines.map((l) => JSON.parse(l.line).id), [
    "blocked-write",
  ]);
  // It ran: its answer was dropped from the output queue.
  assert.equal(counted, 1);
});

Deno.test("serveStdio: big answers to a client that does not read stay within the output budget", async () => {
  const answer = "x".repeat(256 * 1024);
  let started = 0;
  const server = serverWith({
    "test/big": async () => {
      started++;
      await sleep(1);
      return { text: answer };
    },
  });
  const total = 2000;
  const lines = [];
  for (let i = 0; i < total; i++) lines.push(call(i, "test/big"));
  const output = timedOutput();
  output.block();
  const budget = 4 * 1024 * 1024;
  const serving = serveStdio(server, {
    input: ReadableStream.from([encoder.encode(lines.join("\n") + "\n")]),
    output,
    outputBudgetChars: budget,
  });
  await sleep(500);
  // Work stops once the budget is spent (plus what was running then).
  const answersInBudget = Math.ceil(budget / answer.length);
  assert.ok(
    started <= answersInBudget + MAX_CONCURRENT_REQUESTS + 1,
    `${started} handlers started while nothing was read`,
  );
  output.unblock();
  await serving;
  assert.equal(started, total);
  assert.equal(output.lines.length, total);
  for (const [i, { line }] of output.lines.entries()) {
    const message = JSON.parse(line);
    assert.equal(message.id, i);
    assert.equal(message.result.text.length, answer.length);
  }
});

Deno.test("serveStdio: a stop signal ends serving within the grace period while output is blocked", async () => {
  const server = serverWith({});
  const input = controlledInput();
  const output = timedOutput();
  output.block();
  const stop = new AbortController();
  const serving = serveStdio(server, {
    input: input.stream,
    output,
    signal: stop.signal,
    stopGraceMs: 200,
  });
  input.send(ping(1), ping(2));
  await sleep(20);
  const start = performance.now();
  stop.abort();
  await serving;
  const took = performance.now() - start;
  assert.ok(took < 2000, `took ${took} ms`);
  output.unblock();
});

Deno.test("serveStdio: at end of input a client that never reads is given up on", async () => {
  const server = serverWith({});
  const input = controlledInput();
  const output = timedOutput();
  output.block();
  const serving = serveStdio(server, {
    input: input.stream,
    output,
    drainTimeoutMs: 200,
  });
  input.send(ping(1));
  input.end();
  const start = performance.now();
  await serving;
  const took = performance.now() - start;
  assert.ok(took < 3000, `took ${took} ms`);
  output.unblock();
});

Deno.test("serveStdio: the end of input is seen while reading is paused for a client that never reads", async () => {
  const server = serverWith({});
  const output = timedOutput();
  output.block();
  let pings = "";
  // Far more answers than the output high-water mark: reading pauses.
  for (let id = 0; id < 5000; id++) pings += ping(id) + "\n";
  const serving = serveStdio(server, {
    input: ReadableStream.from([encoder.encode(pings)]),
    output,
    drainTimeoutMs: 200,
  });
  const start = performance.now();
  await serving;
  const took = performance.now() - start;
  assert.ok(took < 3000, `took ${took} ms`);
  output.unblock();
});

// In-flight work at end of input, with a handler that takes its time.

function slowServer(): McpServer {
  return new McpServer({
    info: { name: "example-mcp", version: "1.0.0" },
    handlers: {
      ...basics,
      "test/slow": async (params) => {
        await new Promise((r) => setTimeout(r, Number(params.ms ?? 50)));
        return { waited: params.ms };
      },
    },
  });
}

function collectingOutput(): {
  write(b: Uint8Array): Promise<number>;
  text(): string;
} {
  let text = "";
  return {
    write(bytes: Uint8Array) {
      text += decoder.decode(bytes);
      return Promise.resolve(bytes.length);
    },
    text: () => text,
  };
}

Deno.test("serveStdio: at end of input, in-flight requests finish before it resolves", async () => {
  const output = collectingOutput();
  const input = ReadableStream.from([
    encoder.encode(
      '{"jsonrpc":"2.0","id":1,"method":"test/slow","params":{"ms":80}}\n' +
        ping(2) + "\n",
    ),
  ]);
  await serveStdio(slowServer(), { input, output });
  // In request order, although ping was ready first.
  assert.equal(
    output.text(),
    '{"jsonrpc":"2.0","id":1,"result":{"waited":80}}\n' + pong(2) + "\n",
  );
});

Deno.test("serveStdio: a stop signal (SIGTERM in main.ts) also lets in-flight work finish", async () => {
  const output = collectingOutput();
  const stop = new AbortController();
  // Input that never ends by itself.
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(
        encoder.encode(
          '{"jsonrpc":"2.0","id":"slow","method":"test/slow","params":{"ms":80}}\n',
        ),
      );
    },
  });
  const serving = serveStdio(slowServer(), {
    input,
    output,
    signal: stop.signal,
  });
  await new Promise((r) => setTimeout(r, 10));
  stop.abort();
  await serving;
  assert.equal(
    output.text(),
    '{"jsonrpc":"2.0","id":"slow","result":{"waited":80}}\n',
  );
});

/** Padding that makes each flood line about 1 KiB. */
const PAD = "x".repeat(1000);

/**
 * Reading stops once 4096 requests are held back, give or take what is
 * read ahead (64 KiB, about 64 padded lines) to notice the end of input.
 */

function assertPausedAt(read: number): void {
  assert.ok(read >= 4096 && read <= 4096 + 80, `read ${read} lines`);
}

/**
 * Feed `total` lines (`lineOf(n)` for n = 1…) through serveStdio, one per
 * read, to a server whose `test/gated` method waits for a gate. Returns how
 * many lines were read once reading stopped by itself, the output by then,
 * and the whole output after the gate opens and the input ends.
 */
async function gatedFlood(
  total: number,
  lineOf: (n: number) => string,
  result: JsonObject,
  options: StdioOptions = {},
): Promise<{ readAtPause: number; outputAtPause: string; output: string }> {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => open = resolve);
  const server = new McpServer({
    info: { name: "example-mcp", version: "1.0.0" },
    handlers: {
      ...basics,
      "test/gated": async () => {
        await gate;
        return result;
      },
    },
  });
  let pulled = 0;
  const input = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled === total) return controller.close();
      pulled++;
      controller.enqueue(encoder.encode(lineOf(pulled) + "\n"));
    },
  }, { highWaterMark: 0 });
  const output = collectingOutput();
  const serving = serveStdio(server, { ...options, input, output });
  // Let the reader run until it stops by itself.
  let before = -1;
  while (before !== pulled) {
    before = pulled;
    await new Promise((r) => setTimeout(r, 20));
  }
  const readAtPause = pulled;
  const outputAtPause = output.text();
  open();
  await serving;
  return { readAtPause, outputAtPause, output: output.text() };
}

Deno.test("serveStdio: a flood of slow requests pauses reading at 4096 held back, then all are answered in order", async () => {
  const total = 10_000;
  const run = await gatedFlood(
    total,
    (id) =>
      `{"jsonrpc":"2.0","id":${id},"method":"test/gated","params":{"pad":"${PAD}"}}`,
    {},
  );
  assertPausedAt(run.readAtPause);
  const expected = Array.from(
    { length: total },
    (_, i) => `{"jsonrpc":"2.0","id":${i + 1},"result":{}}\n`,
  ).join("");
  assert.equal(run.output, expected);
});
