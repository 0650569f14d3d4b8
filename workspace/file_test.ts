/**
 * Reads are bounded by what is read, not by the size seen at open, and
 * big files neither stall the event loop nor ignore an abort.
 */

import { strict as assert } from "node:assert";
import { RootFs } from "./secure_fs.ts";
import { Workspace } from "./workspace.ts";

async function tempBase(): Promise<string> {
  return await Deno.realPath(
    await Deno.makeTempDir({ prefix: "shipcode-file-" }),
  );
}

/** A child that appends 64 KiB blocks to `path` for `seconds`. */
function startGrower(path: string, seconds: number): Deno.ChildProcess {
  const script = `
    const [path, seconds] = Deno.args;
    const end = Date.now() + Number(seconds) * 1000;
    const block = new TextEncoder().encode("grow line\\n".repeat(6553));
    const file = Deno.openSync(path, { append: true });
    let written = 0;
    while (Date.now() < end && written < 64 * 1024 * 1024) {
      written += file.writeSync(block);
    }
    file.close();
  `;
  return new Deno.Command(Deno.execPath(), {
    args: ["eval", script, path, String(seconds)],
  }).spawn();
}

Deno.test("a file that grows while read: the cap holds against what is read", async () => {
  const base = await tempBase();
  const grower = startGrower(`${base}/grow.log`, 2);
  try {
    await Deno.writeTextFile(`${base}/grow.log`, "start\n", { append: true });
    const ws = await Workspace.open(base);
    // At least 1.5 s of reads while it grows, and until one read finds it
    // past the cap: the grower may start late on a loaded machine.
    const started = Date.now();
    let over = 0;
    while (
      Date.now() - started < 1500 ||
      over === 0 && Date.now() - started < 30_000
    ) {
      // Opened while small, read after it grew: never past the cap.
      using handle = await ws.open("grow.log");
      await new Promise((resolve) => setTimeout(resolve, 5));
      const read = await handle.read({ maxBytes: 65536 });
      assert.ok(read.bytes.length <= 65536, `${read.bytes.length} bytes`);
      if (read.truncated) over++;
    }
    assert.ok(over > 0, "the file never outgrew the cap");
  } finally {
    await grower.status;
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("a 2 GiB sparse file: small reads return at once, long ones yield and stop on abort", async () => {
  const base = await tempBase();
  try {
    const path = `${base}/sparse.bin`;
    const file = await Deno.open(path, { write: true, create: true });
    await file.write(new TextEncoder().encode("text head\n".repeat(820)));
    await file.truncate(2 * 1024 * 1024 * 1024);
    file.close();
    const ws = await Workspace.open(base);
    const started = performance.now();
    const read = await ws.readFile("sparse.bin", { maxBytes: 65536 });
    assert.equal(read.bytes.length, 65536);
    assert.equal(read.truncated, true);
    assert.ok(performance.now() - started < 2000, "small read too slow");

    // Streaming it: timers keep running, and an abort ends it soon. The
    // timer itself aborts the stream once it has run ten times, so the
    // proof is in events, not in how fast a loaded machine runs timers: a
    // stream that never lets the loop turn reads all 2 GiB and ends
    // without the abort; one that ignores the abort yields more chunks.
    using handle = await ws.open("sparse.bin");
    const controller = new AbortController();
    let ticks = 0;
    let chunksAfterAbort = 0;
    const timer = setInterval(() => {
      if (++ticks === 10) controller.abort(new Error("cancelled"));
    }, 1);
    let streamed = 0;
    try {
      await assert.rejects(
        (async () => {
          for await (
            const chunk of handle.chunks({ signal: controller.signal })
          ) {
            streamed += chunk.length;
            if (controller.signal.aborted) chunksAfterAbort++;
          }
        })(),
        /cancelled/,
      );
    } finally {
      clearInterval(timer);
    }
    assert.ok(ticks >= 10, `only ${ticks} timer turns while streaming`);
    assert.ok(streamed < 2 * 1024 * 1024 * 1024, "read it all anyway");
    // The abort is checked around each read: no chunk comes after it.
    assert.equal(chunksAfterAbort, 0, "chunks kept coming after the abort");

    // A big bounded read is asynchronous too: timers run during it.
    ticks = 0;
    const again = setInterval(() => ticks++, 1);
    try {
      const big = await ws.readFile("sparse.bin", { maxBytes: 64 << 20 });
      assert.equal(big.bytes.length, 64 << 20);
    } finally {
      clearInterval(again);
    }
    assert.ok(ticks >= 2, `only ${ticks} timer turns during a 64 MiB read`);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("reads into a scratch buffer when it fits the file, a new one when not", async () => {
  const base = await tempBase();
  try {
    await Deno.writeTextFile(`${base}/long.txt`, "long text\n");
    await Deno.writeTextFile(`${base}/short.txt`, "abc");
    await Deno.writeTextFile(`${base}/big.txt`, "x".repeat(64));
    const ws = await Workspace.open(base);
    const scratch = new Uint8Array(17).fill(0x21);
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    const long = await ws.readFile("long.txt", { maxBytes: 100, scratch });
    assert.equal(long.bytes.buffer, scratch.buffer);
    assert.equal(decode(long.bytes), "long text\n");
    // A shorter file after a longer one: nothing of the first shows.
    const short = await ws.readFile("short.txt", { maxBytes: 100, scratch });
    assert.equal(short.bytes.buffer, scratch.buffer);
    assert.equal(decode(short.bytes), "abc");
    // Larger than the scratch buffer: read whole into a buffer of its own.
    const big = await ws.readFile("big.txt", { maxBytes: 100, scratch });
    assert.notEqual(big.bytes.buffer, scratch.buffer);
    assert.equal(decode(big.bytes), "x".repeat(64));
    // The cap still holds with a scratch buffer.
    const capped = await ws.readFile("long.txt", { maxBytes: 4, scratch });
    assert.equal(decode(capped.bytes), "long");
    assert.equal(capped.truncated, true);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("a file read whole (read, head) takes one read when it ends where its size said, into a buffer of its size", async () => {
  const base = await tempBase();
  const readSync = RootFs.prototype.readSync;
  let reads = 0;
  RootFs.prototype.readSync = function (fd, buffer, position) {
    reads++;
    return readSync.call(this, fd, buffer, position);
  };
  try {
    await Deno.writeTextFile(`${base}/a.txt`, "some text\n");
    await Deno.writeTextFile(`${base}/empty.txt`, "");
    const ws = await Workspace.open(base);
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    const read = await ws.readFile("a.txt", { maxBytes: 100 });
    assert.equal(decode(read.bytes), "some text\n");
    assert.equal(read.truncated, false);
    assert.equal(reads, 1);
    reads = 0;
    assert.equal(
      (await ws.readFile("empty.txt", { maxBytes: 100 })).bytes.length,
      0,
    );
    assert.equal(reads, 1);
    // At the cap: one byte past it is asked for, to tell it was cut.
    reads = 0;
    const capped = await ws.readFile("a.txt", { maxBytes: 4 });
    assert.equal(decode(capped.bytes), "some");
    assert.equal(capped.truncated, true);
    assert.equal(reads, 1);

    // `head` (the ignore files' reader) too, into a buffer of the file's
    // size, not of its cap (a megabyte for each of hundreds of files).
    reads = 0;
    {
      using handle = await ws.open("a.txt");
      const head = handle.head(1024 * 1024);
      assert.equal(decode(head), "some text\n");
      assert.equal(reads, 1);
      assert.ok(head.buffer.byteLength <= 11, `${head.buffer.byteLength}`);
      assert.equal(decode(handle.head(4)), "some");
      // Grown since it was opened: read on, up to the cap.
      await Deno.writeTextFile(`${base}/a.txt`, "more\n".repeat(10), {
        append: true,
      });
      assert.equal(handle.head(1024).length, 60);
      assert.equal(handle.head(13).length, 13);
    }
  } finally {
    RootFs.prototype.readSync = readSync;
    await Deno.remove(base, { recursive: true });
  }
});
