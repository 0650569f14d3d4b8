import { strict as assert } from "node:assert";
import { FairGate, GATE_TURN_MS } from "./fair_gate.ts";

const turn = () => new Promise((resolve) => setTimeout(resolve, 5));

Deno.test("fair gate: free places are taken at once, then owners wait", () => {
  const gate = new FairGate(2);
  assert.equal(gate.enter({}), undefined);
  assert.equal(gate.enter({}), undefined);
  assert.ok(gate.enter({}) instanceof Promise);
  assert.equal(gate.taken, 2);
  assert.equal(gate.waiting, 1);
});

Deno.test("fair gate: a freed place goes to owners in turn, not to one owner's queue", async () => {
  const gate = new FairGate(1);
  const flood = {};
  const newcomer = {};
  assert.equal(gate.enter(flood), undefined);
  const order: string[] = [];
  const waits = [];
  for (let i = 0; i < 5; i++) {
    waits.push(gate.enter(flood)?.then(() => order.push(`flood ${i}`)));
  }
  waits.push(gate.enter(newcomer)?.then(() => order.push("newcomer")));
  for (let i = 0; i < 6; i++) {
    gate.leave();
    await turn();
  }
  await Promise.all(waits);
  // The newcomer came after five of the flood, and is served first.
  assert.deepEqual(order, [
    "newcomer",
    "flood 0",
    "flood 1",
    "flood 2",
    "flood 3",
    "flood 4",
  ]);
  assert.equal(gate.taken, 1);
  gate.leave();
  assert.equal(gate.taken, 0);
});

Deno.test("fair gate: after a while of work a place passes on in a later turn of the event loop", async () => {
  const gate = new FairGate(1);
  const first = {};
  gate.enter(first);
  let passed = false;
  gate.enter({})?.then(() => passed = true);
  gate.leave();
  await Promise.resolve();
  await Promise.resolve();
  // Not within the microtasks of the one that left: the loop turns first,
  // so that input waiting on sockets is read between two large answers.
  assert.equal(passed, false);
  await turn();
  assert.equal(passed, true);
});

Deno.test("fair gate: needs a place", () => {
  assert.throws(() => new FairGate(0), RangeError);
});

Deno.test("fair gate: quick hand-overs after a turn pass on at once, until the turn's time is spent", async () => {
  const gate = new FairGate(1);
  gate.enter({});
  const order: string[] = [];
  const waits = ["a", "b", "c"].map((name) =>
    gate.enter({})?.then(() => order.push(name))
  );
  gate.leave();
  await turn();
  assert.deepEqual(order, ["a"]);
  // Right after the turn: b at once, within the microtasks.
  gate.leave();
  await Promise.resolve();
  assert.deepEqual(order, ["a", "b"]);
  // Once GATE_TURN_MS are spent, c waits for a turn again.
  const until = performance.now() + GATE_TURN_MS + 1;
  while (performance.now() < until) { /* work */ }
  gate.leave();
  await Promise.resolve();
  assert.deepEqual(order, ["a", "b"]);
  await turn();
  assert.deepEqual(order, ["a", "b", "c"]);
  await Promise.all(waits);
});
