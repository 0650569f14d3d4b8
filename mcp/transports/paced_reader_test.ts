import { strict as assert } from "node:assert";
import { PacedReader } from "./paced_reader.ts";

/** A stream the test enqueues chunks into and closes. */
function controlled() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let pulls = 0;
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    pull() {
      pulls++;
    },
  }, { highWaterMark: 0 });
  return {
    stream,
    pulls: () => pulls,
    send: (n: number) => controller.enqueue(new Uint8Array(n)),
    close: () => controller.close(),
  };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

Deno.test("PacedReader: chunks in order, then undefined at the end", async () => {
  const input = controlled();
  const reader = new PacedReader(input.stream);
  input.send(1);
  input.send(2);
  input.close();
  assert.equal((await reader.next())?.length, 1);
  assert.equal((await reader.next())?.length, 2);
  assert.equal(await reader.next(), undefined);
  reader.release();
});

Deno.test("PacedReader: a pause reads ahead up to its limit, and the chunks are kept", async () => {
  const input = controlled();
  const reader = new PacedReader(input.stream, { readAheadBytes: 10 });
  for (let i = 0; i < 5; i++) input.send(4);
  const gate = Promise.withResolvers<void>();
  const paused = reader.pause(gate.promise);
  await tick();
  // 4 + 4 + 4 reaches the limit of 10: the rest stays in the stream.
  assert.equal(reader.aheadBytes, 12);
  gate.resolve();
  await paused;
  let total = 0;
  for (let i = 0; i < 5; i++) total += (await reader.next())!.length;
  assert.equal(total, 20);
  assert.equal(reader.abandoned, false);
  reader.release();
});

Deno.test("PacedReader: the end of input behind a pause is seen; the pause lasts while the output moves", async () => {
  const input = controlled();
  let progress = 0;
  const reader = new PacedReader(input.stream, {
    drainTimeoutMs: 300,
    progress: () => progress,
  });
  input.close();
  const moving = setInterval(() => progress++, 50);
  const started = performance.now();
  const paused = reader.pause(new Promise(() => {}));
  await new Promise((r) => setTimeout(r, 600));
  assert.equal(reader.abandoned, false, "abandoned while the output moved");
  clearInterval(moving);
  await paused;
  const waited = performance.now() - started;
  assert.equal(reader.abandoned, true);
  assert.ok(waited >= 850, `gave up after ${waited} ms`);
  assert.equal(await reader.next(), undefined);
  reader.release();
});

Deno.test("PacedReader: a pause that resumes after the end of input is not abandoned", async () => {
  const input = controlled();
  const reader = new PacedReader(input.stream, { drainTimeoutMs: 5_000 });
  input.close();
  await reader.pause(new Promise((r) => setTimeout(r, 150)));
  assert.equal(reader.abandoned, false);
  reader.release();
});

Deno.test("PacedReader: stop wakes a pause at once and ends reading", async () => {
  const input = controlled();
  const reader = new PacedReader(input.stream);
  const paused = reader.pause(new Promise(() => {}));
  await tick();
  reader.stop();
  await paused;
  assert.equal(reader.stopped, true);
  assert.equal(await reader.next(), undefined);
  // A later pause does not wait.
  await reader.pause(new Promise(() => {}));
  reader.release();
});

Deno.test("PacedReader: a read error is thrown after the chunks before it", async () => {
  let sent = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (!sent) {
        sent = true;
        c.enqueue(new Uint8Array(3));
      } else c.error(new Error("broken pipe"));
    },
  });
  const reader = new PacedReader(stream);
  assert.equal((await reader.next())?.length, 3);
  await assert.rejects(reader.next(), /broken pipe/);
  reader.release();
});
