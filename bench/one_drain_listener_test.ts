import { strict as assert } from "node:assert";
import { EventEmitter } from "node:events";
import { OneDrainListener } from "./one_drain_listener.mjs";

/** A stream that is always full: every write asks the writer to wait. */
class FullStream extends EventEmitter {
  written = 0;
  write(_chunk: string): boolean {
    this.written++;
    return false;
  }
}

/** What the SDK's StdioServerTransport does to send one message. */
function send(stdout: {
  write(chunk: string): boolean;
  once(event: string, listener: () => void): unknown;
}, json: string): Promise<void> {
  return new Promise((resolve) => {
    if (stdout.write(json)) resolve();
    else stdout.once("drain", resolve);
  });
}

Deno.test("OneDrainListener keeps one drain listener however many sends wait", async () => {
  const stream = new FullStream();
  const stdout = new OneDrainListener(stream);
  let resolved = 0;
  const sends: Promise<void>[] = [];
  for (let i = 0; i < 10_000; i++) {
    sends.push(send(stdout, `{"id":${i}}\n`).then(() => void resolved++));
  }
  assert.equal(stream.written, 10_000);
  assert.equal(stream.listenerCount("drain"), 1);
  await Promise.resolve();
  assert.equal(resolved, 0, "no send may finish before the stream drains");
  stream.emit("drain");
  await Promise.all(sends);
  assert.equal(resolved, 10_000);
  assert.equal(stream.listenerCount("drain"), 1);
});

Deno.test("the stream itself would gather one drain listener per waiting send", () => {
  // What OneDrainListener is for: the transport on the bare stream.
  const stream = new FullStream();
  stream.setMaxListeners(0);
  for (let i = 0; i < 1000; i++) send(stream, "{}\n");
  assert.equal(stream.listenerCount("drain"), 1000);
});

Deno.test("OneDrainListener passes other events through to the stream", () => {
  const stream = new FullStream();
  const stdout = new OneDrainListener(stream);
  let closes = 0;
  stdout.once("close", () => closes++);
  stream.emit("close");
  stream.emit("close");
  assert.equal(closes, 1);
});
