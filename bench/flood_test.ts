import { strict as assert } from "node:assert";
import {
  EDGE_BYTES,
  type FloodLine,
  type FloodPlan,
  LineReader,
  responseId,
  runFlood,
} from "./flood.ts";
import type { CommandSpec } from "./process.ts";

Deno.test("responseId reads the id from a response's first bytes", () => {
  assert.equal(responseId('{"jsonrpc":"2.0","id":42,"result":{}}'), "42");
  assert.equal(
    responseId('{"jsonrpc":"2.0","id":"a\\"b","error":{}}'),
    '"a\\"b"',
  );
  assert.equal(responseId('{"jsonrpc":"2.0","id":null,"error":{}}'), "null");
  assert.equal(responseId('{"jsonrpc":"2.0","method":"x"}'), undefined);
  assert.equal(responseId("garbage"), undefined);
});

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return ReadableStream.from(chunks.map((chunk) => encoder.encode(chunk)));
}

for (const size of [100, 1000, 5000]) {
  Deno.test(`LineReader splits lines across ${size}-byte chunks and keeps only the ends of long ones`, async () => {
    const long = "h".repeat(600) + "m".repeat(1000) + "t".repeat(600);
    const text = `{"a":1}\n{"b":2}\n${long}\nlast\n`;
    const chunks: string[] = [];
    for (let at = 0; at < text.length; at += size) {
      chunks.push(text.slice(at, at + size));
    }
    const lines: FloodLine[] = [];
    const reader = new LineReader(streamOf(chunks), 1024, (l) => lines.push(l));
    await reader.done;
    assert.deepEqual(lines.map((l) => l.whole), [true, true, false, true]);
    assert.equal(lines[0].text, '{"a":1}');
    assert.equal(lines[1].text, '{"b":2}');
    assert.equal(lines[2].bytes, long.length);
    assert.equal(
      lines[2].text,
      `${"h".repeat(EDGE_BYTES)}…${"t".repeat(EDGE_BYTES)}`,
    );
    assert.equal(lines[3].text, "last");
  });
}

/**
 * A stand-in server: answers initialize (id 0), then, per request,
 * `echo` answers `{}`, `silent` never answers, `grow` holds memory until
 * killed.
 */
function fakeServer(behaviour: "echo" | "silent" | "grow"): CommandSpec {
  const code = `
const behaviour = ${JSON.stringify(behaviour)};
const decoder = new TextDecoder();
const encoder = new TextEncoder();
const held = [];
let rest = "";
for await (const chunk of Deno.stdin.readable) {
  const lines = (rest + decoder.decode(chunk, { stream: true })).split("\\n");
  rest = lines.pop();
  for (const line of lines) {
    const message = JSON.parse(line);
    if (message.id === undefined) continue;
    if (message.id === 0 || behaviour === "echo") {
      const out = JSON.stringify({ jsonrpc: "2.0", id: message.id, result: {} });
      await Deno.stdout.write(encoder.encode(out + "\\n"));
    } else if (behaviour === "grow") {
      for (;;) {
        held.push(new Uint8Array(16 * 2 ** 20).fill(1));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }
}`;
  return { command: Deno.execPath(), args: ["eval", code] };
}

function pings(count: number): string[] {
  return Array.from(
    { length: count },
    (_, i) => `{"jsonrpc":"2.0","id":${i + 1},"method":"ping"}`,
  );
}

const MIB = 2 ** 20;

Deno.test("runFlood waits out the pause, then gets every response", async () => {
  const seen: string[] = [];
  const plan: FloodPlan = {
    lines: pings(3),
    pauseMs: 400,
    onResponse: (line) => {
      seen.push(line.text);
      return {};
    },
  };
  const outcome = await runFlood(fakeServer("echo"), plan, {
    timeoutMs: 20_000,
    killBytes: 1024 * MIB,
    sampleMs: 100,
  });
  assert.equal(outcome.failure, undefined);
  assert.equal(seen.length, 3);
  // No response is read before the pause ends.
  assert.ok(outcome.result.ms >= 350, `${outcome.result.ms} ms`);
  assert.ok(outcome.result.rss! > 0);
});

Deno.test("runFlood reports a bad response", async () => {
  const outcome = await runFlood(fakeServer("echo"), {
    lines: pings(2),
    onResponse: () => ({ problem: "not what was asked" }),
  }, { timeoutMs: 20_000, killBytes: 1024 * MIB, sampleMs: 100 });
  assert.match(outcome.failure!, /^2 bad responses; the first: not what/);
});

Deno.test("runFlood ends a run that gets no answers at its time limit", async () => {
  const start = performance.now();
  const outcome = await runFlood(fakeServer("silent"), {
    lines: pings(3),
    onResponse: () => ({}),
  }, { timeoutMs: 1500, killBytes: 1024 * MIB, sampleMs: 100 });
  const elapsed = performance.now() - start;
  assert.match(outcome.failure!, /^timed out: 0 of 3 responses in \d+ s/);
  assert.ok(elapsed < 10_000, `${elapsed} ms`);
});

Deno.test("runFlood kills a server whose peak RSS passes the limit", async () => {
  const outcome = await runFlood(fakeServer("grow"), {
    lines: pings(1),
    onResponse: () => ({}),
  }, { timeoutMs: 60_000, killBytes: 200 * MIB, sampleMs: 50 });
  assert.match(outcome.failure!, /^killed when its peak RSS passed 200 MiB/);
  assert.ok(outcome.result.rss! > 200 * MIB);
  assert.equal(outcome.rssAfter, undefined);
});
