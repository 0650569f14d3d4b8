/**
 * The server's life as a process: end of input, signals, a client that
 * stops reading, what goes to stdout and stderr, and framing across
 * arbitrary write boundaries. Every available build target is exercised.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { handlers } from "../handlers/mod.ts";
import type { JsonObject } from "../mcp/jsonrpc.ts";
import { McpServer } from "../mcp/server.ts";
import { MAX_CONCURRENT_REQUESTS } from "../mcp/connection.ts";
import { serveStdio, type StdioOptions } from "../mcp/transports/stdio.ts";
import {
  looksLikeJsonRpc,
  readAll,
  readUntil,
  runServer,
  spawnServer,
} from "./process.ts";
import { TARGETS, targetStatus } from "./server_command.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function ping(id: number | string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"ping"}`;
}

function pong(id: number | string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{}}`;
}

/** Resolves to "timeout" when `promise` takes longer than `ms`. */
async function within<T>(
  promise: Promise<T>,
  ms: number,
): Promise<T | "timeout"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

for (const t of TARGETS) {
  const status = targetStatus(t);
  if (!status.available) {
    Deno.test({
      ignore: true,
      name: `process [${t}] skipped: ${status.reason}`,
      fn() {},
    });
    continue;
  }

  Deno.test(`process [${t}] EOF: every request answered, flushed, exit 0`, async () => {
    const count = 5000;
    const lines = Array.from({ length: count }, (_, i) => ping(i)).join("\n");
    const run = await runServer(encoder.encode(lines + "\n"), [], t);
    assert.equal(run.code, 0);
    const expected = Array.from({ length: count }, (_, i) => pong(i) + "\n")
      .join("");
    assert.equal(decoder.decode(run.stdout), expected);
    assert.equal(decoder.decode(run.stderr), "");
  });

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    Deno.test({
      name: `process [${t}] ${signal}: answered requests flushed, exit 0`,
      ignore: Deno.build.os === "windows",
      async fn() {
        const child = spawnServer([], t);
        const writer = child.stdin.getWriter();
        const reader = child.stdout.getReader();
        await writer.write(encoder.encode(ping(1) + "\n" + ping(2) + "\n"));
        const seen = await readUntil(reader, (s) => s.split("\n").length > 2);
        assert.equal(seen, pong(1) + "\n" + pong(2) + "\n");
        child.kill(signal);
        const exit = await within(child.status, 5000);
        assert.notEqual(exit, "timeout", `no exit after ${signal}`);
        if (exit === "timeout") return;
        assert.equal(exit.code, 0);
        assert.equal(exit.signal, null);
        assert.equal(decoder.decode(await readAll(reader)), "");
        assert.equal(await new Response(child.stderr).text(), "");
        await writer.close().catch(() => {});
      },
    });
  }

  Deno.test(`process [${t}] client closes our stdout: quiet exit 0, even with stdin open`, async () => {
    const child = spawnServer([], t);
    await child.stdout.cancel();
    const writer = child.stdin.getWriter();
    // The answer to this ping cannot be written: that alone must end the
    // server, without waiting for stdin to close.
    await writer.write(encoder.encode(ping(1) + "\n"));
    const exit = await within(child.status, 5000);
    if (exit === "timeout") child.kill("SIGKILL");
    assert.notEqual(exit, "timeout", "still running 5 s after stdout closed");
    if (exit === "timeout") return;
    assert.equal(exit.code, 0);
    assert.equal(await new Response(child.stderr).text(), "");
    await writer.close().catch(() => {});
  });

  Deno.test(`process [${t}] logs go to stderr, protocol only to stdout`, async () => {
    const input = [
      "not json",
      '{"jsonrpc":"2.0","id":1,"method":"nope"}',
      '{"jsonrpc":"2.0","method":"notifications/unknown"}',
      '{"jsonrpc":"2.0","id":1,"result":{}}',
      '{"jsonrpc":"2.0","method":"x","params":[]}',
      ping(2),
    ].join("\n") + "\n";
    const run = await runServer(
      encoder.encode(input),
      ["--log-level", "debug"],
      t,
    );
    assert.equal(run.code, 0);
    const stdout = decoder.decode(run.stdout);
    const stderr = decoder.decode(run.stderr);
    const lines = stdout.split("\n");
    assert.equal(lines.pop(), "");
    assert.equal(lines.length, 3);
    for (const line of lines) {
      const message = JSON.parse(line);
      assert.equal(message.jsonrpc, "2.0");
      assert.ok("result" in message || "error" in message, line);
    }
    assert.equal(lines[2], pong(2));
    // Debug logging says something about what it skipped, on stderr.
    assert.ok(stderr.length > 0, "nothing logged at --log-level debug");
    for (const line of stderr.trimEnd().split("\n")) {
      assert.match(line, /^shipcode-mcp (debug|info|warn|error): /);
    }
    assert.ok(!looksLikeJsonRpc(stderr), stderr);
  });

  Deno.test(`process [${t}] framing survives any write boundaries`, async () => {
    // A BOM, CRLF, a multi-byte id split across writes, blank lines, invalid
    // UTF-8 on one line only, and a last line without a newline.
    const bytes = new Uint8Array([
      0xef,
      0xbb,
      0xbf,
      ...encoder.encode(ping("é😀") + "\r\n\r\n"),
      0xff,
      ...encoder.encode("\n" + ping(2) + "\r\n  \n" + ping("✓")),
    ]);
    const child = spawnServer([], t);
    const writer = child.stdin.getWriter();
    const output = child.output();
    // Irregular pieces; a short pause makes separate reads likely.
    let at = 0;
    for (let size = 1; at < bytes.length; size = (size * 7) % 13 + 1) {
      await writer.write(bytes.slice(at, at + size));
      at += size;
      if (size % 3 === 0) await new Promise((r) => setTimeout(r, 1));
    }
    await writer.close();
    const run = await output;
    assert.equal(run.code, 0);
    assert.equal(
      decoder.decode(run.stdout),
      [
        pong("é😀"),
        '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not valid UTF-8; send messages as UTF-8 JSON text."}}',
        pong(2),
        pong("✓"),
      ].join("\n") + "\n",
    );
  });

  Deno.test(`process [${t}] a 20 MB line over the default cap is skipped, the next served`, async () => {
    const huge = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"s":"${
      "a".repeat(20 * 1024 * 1024)
    }"}}`;
    const run = await runServer(
      encoder.encode(huge + "\n" + ping(2) + "\n"),
      [],
      t,
    );
    assert.equal(run.code, 0);
    assert.equal(
      decoder.decode(run.stdout),
      `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: the message is ${huge.length} bytes long and the limit is 8388608 bytes per line; send a smaller message (the server skipped this one)."}}\n` +
        pong(2) + "\n",
    );
  });
}

// In-flight work at end of input, with a handler that takes its time: the
// real binary has none yet, so this runs the transport in-process.
function slowServer(): McpServer {
  return new McpServer({
    info: { name: "shipcode-mcp", version: "1.0.0" },
    handlers: {
      ...handlers,
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

Deno.test("serveStdio: at most MAX_CONCURRENT_REQUESTS handlers run at once; the rest wait in order and all are answered", async () => {
  let running = 0;
  let most = 0;
  const server = new McpServer({
    info: { name: "shipcode-mcp", version: "1.0.0" },
    handlers: {
      ...handlers,
      "test/busy": async () => {
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        return {};
      },
    },
  });
  const lines: string[] = [];
  const expected: string[] = [];
  for (let id = 1; id <= 300; id++) {
    // A ping among them is answered in its place, not before.
    lines.push(
      id % 50 === 0
        ? ping(id)
        : `{"jsonrpc":"2.0","id":${id},"method":"test/busy"}`,
    );
    expected.push(
      id % 50 === 0 ? pong(id) : `{"jsonrpc":"2.0","id":${id},"result":{}}`,
    );
  }
  const output = collectingOutput();
  const input = ReadableStream.from([encoder.encode(lines.join("\n") + "\n")]);
  // No wait limit: on a loaded machine an answer held 200 ms would be let
  // out of order, and this test is about the order.
  await serveStdio(server, { input, output, maxWaitMs: Infinity });
  assert.equal(most, MAX_CONCURRENT_REQUESTS);
  assert.equal(output.text(), expected.join("\n") + "\n");
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
    info: { name: "shipcode-mcp", version: "1.0.0" },
    handlers: {
      ...handlers,
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

Deno.test("serveStdio: pings behind one slow request (no wait limit) are held in order, reading pauses at 4096, and all come out", async () => {
  const total = 20_000;
  const run = await gatedFlood(
    total,
    (id) =>
      id === 1
        ? '{"jsonrpc":"2.0","id":1,"method":"test/gated"}'
        : `{"jsonrpc":"2.0","id":${id},"method":"ping","params":{"pad":"${PAD}"}}`,
    { slow: true },
    { maxWaitMs: 600_000 },
  );
  assertPausedAt(run.readAtPause);
  assert.equal(run.outputAtPause, "");
  const expected = ['{"jsonrpc":"2.0","id":1,"result":{"slow":true}}'];
  for (let id = 2; id <= total; id++) expected.push(pong(id));
  assert.equal(run.output, expected.join("\n") + "\n");
});
