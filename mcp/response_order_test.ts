import { strict as assert } from "node:assert";
import { OutputBudget } from "./output_budget.ts";
import { idKey } from "./jsonrpc.ts";
import { ResponseOrder } from "./response_order.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function recorder() {
  const written: string[] = [];
  return { written, write: (line: string) => void written.push(line) };
}

Deno.test("ResponseOrder: a ready answer waits for an earlier quick one", () => {
  const out = recorder();
  const order = new ResponseOrder(out.write);
  const a = order.add("a");
  const b = order.add("b");
  order.complete(b, "B");
  order.now("C", "c");
  assert.deepEqual(out.written, []);
  order.complete(a, "A");
  assert.deepEqual(out.written, ["A", "B", "C"]);
  assert.equal(order.size, 0);
  order.close();
});

Deno.test("ResponseOrder: after maxWaitMs a slow request loses its place", async () => {
  const out = recorder();
  const order = new ResponseOrder(out.write, { maxWaitMs: 40 });
  const slow = order.add("slow");
  order.now("ping", "p");
  await sleep(10);
  assert.deepEqual(out.written, [], "held while the wait is short");
  const start = performance.now();
  while (out.written.length === 0 && performance.now() - start < 5000) {
    await sleep(5);
  }
  assert.deepEqual(out.written, ["ping"]);
  // Answers after the released request no longer wait for it.
  order.now("ping2", "p2");
  assert.deepEqual(out.written, ["ping", "ping2"]);
  order.complete(slow, "SLOW");
  assert.deepEqual(out.written, ["ping", "ping2", "SLOW"]);
  order.close();
});

Deno.test("ResponseOrder: time spent loading code does not count", async () => {
  const out = recorder();
  let loaded!: () => void;
  let loading: Promise<void> | undefined = new Promise<void>((r) => loaded = r);
  const order = new ResponseOrder(out.write, {
    maxWaitMs: 20,
    loading: () => loading,
  });
  const first = order.add("first");
  order.now("ping", "p");
  await sleep(120);
  assert.deepEqual(out.written, [], "held while code loads");
  loading = undefined;
  loaded();
  // The first call finishes soon after its code loaded: still in order.
  await sleep(1);
  order.complete(first, "FIRST");
  assert.deepEqual(out.written, ["FIRST", "ping"]);
  order.close();
});

Deno.test("ResponseOrder: a cancelled request writes nothing, ready or not", () => {
  const out = recorder();
  const budget = new OutputBudget(1000);
  const order = new ResponseOrder(out.write, { budget });
  const a = order.add("a");
  const b = order.add("b");
  const c = order.add("c");
  order.complete(b, "B-ready");
  assert.equal(budget.used, "B-ready".length);
  assert.equal(order.cancel(idKey("b")), true);
  assert.equal(budget.used, 0);
  assert.equal(order.cancel(idKey("c")), true);
  order.complete(a, "A");
  order.complete(c, "C-late");
  assert.deepEqual(out.written, ["A"]);
  assert.equal(order.cancel(idKey("unknown")), false);
  order.close();
});

Deno.test("ResponseOrder: release(key) lets later answers go at once", () => {
  const out = recorder();
  const order = new ResponseOrder(out.write);
  const waiter = order.add("w");
  order.now("X", "x");
  order.release(idKey("w"));
  assert.deepEqual(out.written, ["X"]);
  order.complete(waiter, "W");
  assert.deepEqual(out.written, ["X", "W"]);
  order.close();
});

Deno.test("ResponseOrder: room() resolves once few enough places are held", async () => {
  const order = new ResponseOrder(() => {});
  const places = Array.from({ length: 10 }, (_, i) => order.add(String(i)));
  let resolved = false;
  const room = order.room(4).then(() => resolved = true);
  for (let i = 0; i < 5; i++) order.complete(places[i], "x");
  await Promise.resolve();
  assert.equal(resolved, false);
  order.complete(places[5], "x");
  await room;
  assert.equal(resolved, true);
  order.close();
});

Deno.test("ResponseOrder: with maxWaitMs Infinity an answer waits as long as it takes, without a timer", async () => {
  const out = recorder();
  let checks = 0;
  const order = new ResponseOrder(out.write, {
    maxWaitMs: Infinity,
    // Asked each time a wait expires: counts how often a timer fired.
    loading: () => {
      checks++;
      return undefined;
    },
  });
  const slow = order.add("slow");
  order.now("quick", "quick");
  await sleep(30);
  assert.deepEqual(out.written, []);
  assert.equal(checks, 0, "no timer fired");
  order.complete(slow, "slow");
  assert.deepEqual(out.written, ["slow", "quick"]);
  order.close();
});
