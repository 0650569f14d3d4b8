/**
 * The connection's limits (`mcp/connection.ts`), through the real server
 * process on stdio: pings are not held behind long searches, SIGTERM and
 * end of input end the process even when the client never reads stdout,
 * and memory stays bounded under big unread answers and a flood of queued
 * searches.
 *
 * Only the `source` target runs these: the bundle is the same code, and
 * each case costs seconds.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { spawnServer } from "./process.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const INITIALIZE =
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"limits","version":"1"}}}';

function toolCall(id: number | string, name: string, args: object): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args },
  });
}

/**
 * Peak resident memory of process `pid` so far, in MiB (Linux). Read by
 * `cat`: Deno grants reading `/proc` only with every permission.
 */
async function peakMiB(pid: number): Promise<number> {
  const { stdout } = await new Deno.Command("cat", {
    args: [`/proc/${pid}/status`],
    stdout: "piped",
    stderr: "null",
  }).output();
  const status = decoder.decode(stdout);
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

async function exitWithin(
  child: Deno.ChildProcess,
  ms: number,
): Promise<Deno.CommandStatus | "timeout"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), ms);
  });
  const result = await Promise.race([child.status, timeout]);
  clearTimeout(timer);
  if (result === "timeout") {
    child.kill("SIGKILL");
    await child.status;
  }
  return result;
}

/** Reads complete lines from a child's stdout. */
function lineReader(stream: ReadableStream<Uint8Array>) {
  const reader = stream.getReader();
  let buffer = "";
  return {
    async *lines(): AsyncGenerator<string> {
      for (;;) {
        let at;
        while ((at = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, at);
          buffer = buffer.slice(at + 1);
          yield line;
        }
        const { value, done } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
      }
    },
    cancel: () => reader.cancel(),
  };
}

const onLinux = Deno.build.os === "linux";

let tree: Promise<string> | undefined;

/**
 * 150 files of 512 KiB (75 MiB) to search, made once for this file's tests.
 * Files this big are read asynchronously, so a search gives the event loop
 * a turn between files.
 */
function searchTree(): Promise<string> {
  return tree ??= (async () => {
    const root = await Deno.makeTempDir({ prefix: "limits_search_" });
    const line = "alpha beta gamma delta epsilon zeta eta theta iota\n";
    const text = line.repeat(Math.floor(512 * 1024 / line.length));
    for (let f = 0; f < 150; f++) {
      await Deno.writeTextFile(`${root}/f${f}.txt`, text);
    }
    return root;
  })();
}

Deno.test({
  name: "limits: pings sent during long searches do not wait for them",
  ignore: !onLinux,
  async fn() {
    const root = await searchTree();
    const child = spawnServer(["--root", root], "source");
    const writer = child.stdin.getWriter();
    const out = lineReader(child.stdout);
    const lines = out.lines();
    // Warm up: the first call loads the tools (which holds the order).
    await writer.write(encoder.encode(
      INITIALIZE + "\n" +
        toolCall("warm", "search_text", { query: "warm", path: "f0.txt" }) +
        "\n",
    ));
    // (next() by hand: leaving a for-await loop would end the generator.)
    for (;;) {
      const { value, done } = await lines.next();
      if (done || value.includes('"warm"')) break;
    }
    const count = 32;
    let searches = "";
    // Searches that decode every file: a case-insensitive query with a
    // non-ASCII letter is not tested on raw bytes first, so each search
    // reads and decodes all 75 MiB (a plain missing literal skips them).
    for (let k = 0; k < count; k++) {
      searches += toolCall(`s${k}`, "search_text", {
        query: `nomatch${k}é`,
        caseSensitive: false,
      }) + "\n";
    }
    await writer.write(encoder.encode(searches));
    const sentAt = new Map<number, number>();
    const answeredAt = new Map<number, number>();
    let searchesDone = 0;
    const sending = (async () => {
      for (let id = 1; id <= 100 && searchesDone === 0; id++) {
        await sleep(50);
        sentAt.set(id, performance.now());
        await writer.write(
          encoder.encode(`{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`),
        );
      }
    })();
    let searchesAnswered = 0;
    while (searchesAnswered < count) {
      const { value: line, done } = await lines.next();
      if (done) break;
      const id = JSON.parse(line).id;
      if (typeof id === "number") answeredAt.set(id, performance.now());
      else if (++searchesAnswered === count) searchesDone = performance.now();
    }
    await sending;
    await writer.close();
    await out.cancel();
    await child.status;
    child.stderr.cancel();
    // Every ping sent well before the searches ended was answered before
    // they ended, most within 1 s (a held ping is released after 200 ms;
    // the walk's synchronous stretches and a loaded machine delay some
    // more: 300 ms left a loaded 2-core machine only 100 ms). Before,
    // every ping waited for all the searches, which take seconds.
    const early = [...sentAt].filter(([, at]) => at + 1000 < searchesDone);
    assert.ok(early.length >= 5, "the searches ended too soon to tell");
    const waits = [];
    for (const [id, sent] of early) {
      const answered = answeredAt.get(id);
      assert.ok(
        answered !== undefined && answered < searchesDone,
        `ping ${id} waited for the searches`,
      );
      waits.push(answered - sent);
    }
    waits.sort((a, b) => a - b);
    const median = waits[Math.floor(waits.length / 2)];
    assert.ok(median < 1000, `median ping wait ${median.toFixed(0)} ms`);
  },
});

Deno.test({
  name: "limits: SIGTERM ends the server while the client does not read stdout",
  ignore: !onLinux,
  async fn() {
    const child = spawnServer([], "source");
    const writer = child.stdin.getWriter();
    let pings = "";
    for (let id = 0; id < 100_000; id++) {
      pings += `{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`;
    }
    // Not awaited: the server stops reading once its output is stuck.
    writer.write(encoder.encode(pings)).catch(() => {});
    await sleep(1500);
    const start = performance.now();
    child.kill("SIGTERM");
    const exit = await exitWithin(child, 10_000);
    assert.notEqual(exit, "timeout", "still running 10 s after SIGTERM");
    assert.ok(performance.now() - start < 10_000);
    writer.close().catch(() => {});
    await child.stdout.cancel();
    await child.stderr.cancel();
  },
});

Deno.test({
  name: "limits: end of input ends the server even if stdout is never read",
  ignore: !onLinux,
  async fn() {
    const child = spawnServer([], "source");
    const writer = child.stdin.getWriter();
    let pings = "";
    // More answers than a pipe holds, little enough input to be read whole.
    for (let id = 0; id < 2500; id++) {
      pings += `{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`;
    }
    await writer.write(encoder.encode(pings));
    await writer.close();
    const exit = await exitWithin(child, 20_000);
    assert.notEqual(exit, "timeout", "still running 20 s after end of input");
    await child.stdout.cancel();
    await child.stderr.cancel();
  },
});

Deno.test({
  name:
    "limits: 2,000 unread read_file answers of 1 MB files keep memory bounded, then all arrive",
  ignore: !onLinux,
  async fn() {
    const root = await Deno.makeTempDir({ prefix: "limits_read_" });
    try {
      const line =
        "const value = compute(alpha, beta, gamma); // ordinary source text\n";
      const text = line.repeat(Math.ceil(1024 * 1024 / line.length));
      for (let i = 0; i < 20; i++) {
        await Deno.writeTextFile(`${root}/f${i}.txt`, text);
      }
      const child = spawnServer(["--root", root], "source");
      const writer = child.stdin.getWriter();
      const total = 2000;
      let input = INITIALIZE + "\n";
      for (let id = 1; id <= total; id++) {
        input += toolCall(id, "read_file", { path: `f${id % 20}.txt` }) + "\n";
      }
      await writer.write(encoder.encode(input));
      // The client reads nothing for a while.
      let peak = 0;
      for (let i = 0; i < 8; i++) {
        await sleep(500);
        peak = Math.max(peak, await peakMiB(child.pid));
      }
      assert.ok(peak < 300, `peak memory ${peak.toFixed(0)} MiB`);
      await writer.close();
      // Answers that waited too long left out of order: check the set.
      const seen = new Set<number>();
      for await (const line of lineReader(child.stdout).lines()) {
        const match = /^\{"jsonrpc":"2\.0","id":(\d+),"result":\{/.exec(line);
        assert.ok(match, `not a result: ${line.slice(0, 200)}`);
        const id = Number(match[1]);
        assert.ok(!seen.has(id), `answered twice: ${id}`);
        seen.add(id);
      }
      assert.equal(seen.size, total + 1);
      assert.equal((await child.status).code, 0);
      await child.stderr.cancel();
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "limits: 10,000 queued search_text calls with unread answers hold little memory",
  ignore: !onLinux,
  async fn() {
    // Small files: the memory measured is the answers', not the files'.
    const root = await Deno.makeTempDir({ prefix: "limits_flood_" });
    try {
      const text = "alpha beta gamma delta epsilon zeta eta theta iota\n"
        .repeat(400);
      for (let f = 0; f < 200; f++) {
        await Deno.writeTextFile(`${root}/f${f}.txt`, text);
      }
      const child = spawnServer(["--root", root], "source");
      const writer = child.stdin.getWriter();
      let input = INITIALIZE + "\n";
      // Every line matches: each answer is tens of KB.
      for (let id = 1; id <= 10_000; id++) {
        input += toolCall(id, "search_text", { query: "alpha" }) + "\n";
      }
      const writing = writer.write(encoder.encode(input)).catch(() => {});
      // The client reads nothing.
      let peak = 0;
      for (let i = 0; i < 20; i++) {
        await sleep(400);
        peak = Math.max(peak, await peakMiB(child.pid));
      }
      assert.ok(peak < 300, `peak memory ${peak.toFixed(0)} MiB`);
      child.kill("SIGTERM");
      const exit = await exitWithin(child, 10_000);
      assert.notEqual(exit, "timeout", "still running 10 s after SIGTERM");
      await writing;
      writer.close().catch(() => {});
      await child.stdout.cancel();
      await child.stderr.cancel();
    } finally {
      await Deno.remove(root, { recursive: true });
      // The last test here: the shared tree goes too.
      if (tree) await Deno.remove(await tree, { recursive: true });
    }
  },
});
