/**
 * The server's life as a process: end of input, signals, a client that
 * stops reading, what goes to stdout and stderr, and framing across
 * arbitrary write boundaries. Every available build target is exercised.
 *
 * @module
 */

import { strict as assert } from "node:assert";
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
        const exit = await within(child.status, 30_000);
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
    const exit = await within(child.status, 30_000);
    if (exit === "timeout") child.kill("SIGKILL");
    assert.notEqual(exit, "timeout", "still running 30 s after stdout closed");
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
