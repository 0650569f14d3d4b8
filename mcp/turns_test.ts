import { strict as assert } from "node:assert";
import { inSlices, nextTurn } from "./turns.ts";

Deno.test("inSlices: every item, a turn of the event loop between slices", async () => {
  const seen: number[] = [];
  let timerAt: number | undefined;
  setTimeout(() => timerAt = seen.length, 0);
  await inSlices(Array.from({ length: 1000 }, (_, i) => i), 256, (item) => {
    seen.push(item);
  });
  assert.equal(seen.length, 1000);
  assert.deepEqual(seen.slice(0, 3), [0, 1, 2]);
  // A timer due meanwhile ran after the first slice, not after all of them.
  assert.equal(timerAt, 256);
});

Deno.test("nextTurn: resolves after the microtasks queued before it", async () => {
  const order: string[] = [];
  const turn = nextTurn().then(() => order.push("turn"));
  await Promise.resolve().then(() => order.push("microtask"));
  await turn;
  assert.deepEqual(order, ["microtask", "turn"]);
});
