import { strict as assert } from "node:assert";
import { FairGate, GATE_TURN_MS, type GatePlace } from "./fair_gate.ts";

const turn = () => new Promise((resolve) => setTimeout(resolve, 5));

// The place given at once (enter must not have made anyone wait).
function atOnce(place: GatePlace | Promise<GatePlace>): GatePlace {
  assert.ok(!(place instanceof Promise), "a place was free");
  return place;
}

Deno.test("fair gate: free places are taken at once, then owners wait", () => {
  const gate = new FairGate({ places: 2 });
  const a = atOnce(gate.enter({}));
  const b = atOnce(gate.enter({}));
  const c = gate.enter({});
  assert.ok(c instanceof Promise);
  assert.equal(gate.taken, 2);
  assert.equal(gate.waiting, 1);
  gate.leave(a);
  gate.leave(b);
});

Deno.test("fair gate: a freed place goes to owners in turn, not to one owner's queue", async () => {
  const gate = new FairGate({ places: 1 });
  const flood = {};
  const newcomer = {};
  let held = atOnce(gate.enter(flood));
  const order: string[] = [];
  const waits: Promise<void>[] = [];
  const wait = (owner: object, name: string) =>
    waits.push(
      (gate.enter(owner) as Promise<GatePlace>).then((place) => {
        order.push(name);
        held = place;
      }),
    );
  for (let i = 0; i < 5; i++) wait(flood, `flood ${i}`);
  wait(newcomer, "newcomer");
  for (let i = 0; i < 6; i++) {
    gate.leave(held);
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
  gate.leave(held);
  assert.equal(gate.taken, 0);
});

Deno.test("fair gate: after a while of work a place passes on in a later turn of the event loop", async () => {
  const gate = new FairGate({ places: 1 });
  const first = atOnce(gate.enter({}));
  let passed: GatePlace | undefined;
  (gate.enter({}) as Promise<GatePlace>).then((place) => passed = place);
  gate.leave(first);
  await Promise.resolve();
  await Promise.resolve();
  // Not within the microtasks of the one that left: the loop turns first,
  // so that input waiting on sockets is read between two large answers.
  assert.equal(passed, undefined);
  await turn();
  assert.ok(passed !== undefined);
  gate.leave(passed);
});

Deno.test("fair gate: quick hand-overs after a turn pass on at once, until the turn's time is spent", async () => {
  // A clock of its own: only the gate's hand-overs decide, not how busy
  // the machine is.
  let clock = 0;
  const gate = new FairGate({ places: 1, now: () => clock });
  let held = atOnce(gate.enter({}));
  const order: string[] = [];
  const waits = ["a", "b", "c"].map((name) =>
    (gate.enter({}) as Promise<GatePlace>).then((place) => {
      order.push(name);
      held = place;
    })
  );
  gate.leave(held);
  await turn();
  assert.deepEqual(order, ["a"]);
  // Right after the turn: b at once, within the microtasks.
  gate.leave(held);
  await Promise.resolve();
  assert.deepEqual(order, ["a", "b"]);
  // Once GATE_TURN_MS are spent, c waits for a turn again.
  clock += GATE_TURN_MS + 1;
  gate.leave(held);
  await Promise.resolve();
  assert.deepEqual(order, ["a", "b"]);
  await turn();
  assert.deepEqual(order, ["a", "b", "c"]);
  await Promise.all(waits);
  gate.leave(held);
});

Deno.test("fair gate: a holder past its lease keeps running, its place passes on, and leaving later frees nothing twice", async () => {
  const gate = new FairGate({ places: 1, leaseMs: 20 });
  const stuck = atOnce(gate.enter({}));
  const started = performance.now();
  const next = await (gate.enter({}) as Promise<GatePlace>);
  const waited = performance.now() - started;
  assert.ok(waited >= 15 && waited < 1000, `waited ${waited} ms`);
  assert.equal(stuck.lapsed, true);
  assert.equal(gate.taken, 1);
  // The stuck one finishes at last: nothing is freed for it.
  gate.leave(stuck);
  assert.equal(gate.taken, 1);
  gate.leave(next);
  assert.equal(gate.taken, 0);
});

Deno.test("fair gate: needs a place", () => {
  assert.throws(() => new FairGate({ places: 0 }), RangeError);
});
