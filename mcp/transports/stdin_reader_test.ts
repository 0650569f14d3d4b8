import { strict as assert } from "node:assert";
import { stdinReader } from "./stdin_reader.ts";

// An input of `chunks`, then the end; or, with `hang`, a read that waits
// until the input is closed (and then fails, as Deno's does).
function fakeInput(chunks: string[], hang = false) {
  const encoder = new TextEncoder();
  let closed = false;
  let wake: (() => void) | undefined;
  return {
    get closed() {
      return closed;
    },
    async read(buffer: Uint8Array): Promise<number | null> {
      const next = chunks.shift();
      if (next !== undefined) {
        const bytes = encoder.encode(next);
        buffer.set(bytes);
        return bytes.length;
      }
      if (hang && !closed) {
        await new Promise<void>((resolve) => wake = resolve);
        throw new Deno.errors.BadResource("closed");
      }
      return null;
    },
    close() {
      closed = true;
      wake?.();
    },
  };
}

Deno.test("stdinReader: each read's bytes in a chunk of its own, then the end", async () => {
  const reader = stdinReader(fakeInput(['{"a":1}\n', '{"b":2}\n']));
  const first = await reader.read();
  const second = await reader.read();
  assert.equal(new TextDecoder().decode(first.value), '{"a":1}\n');
  assert.equal(new TextDecoder().decode(second.value), '{"b":2}\n');
  // Chunks are kept while reading pauses: no buffer is shared.
  assert.notEqual(first.value?.buffer, second.value?.buffer);
  assert.deepEqual(await reader.read(), { done: true, value: undefined });
  assert.deepEqual(await reader.read(), { done: true, value: undefined });
});

Deno.test("stdinReader: cancel closes the input and ends a read still waiting", async () => {
  const input = fakeInput([], true);
  const reader = stdinReader(input);
  const pending = reader.read();
  await reader.cancel();
  assert.equal(input.closed, true);
  assert.deepEqual(await pending, { done: true, value: undefined });
  assert.deepEqual(await reader.read(), { done: true, value: undefined });
});

Deno.test("stdinReader: a failed read is an error, unless cancelled", async () => {
  const reader = stdinReader({
    read: () => Promise.reject(new Error("EIO")),
    close() {},
  });
  await assert.rejects(reader.read(), /EIO/);
});
