import { strict as assert } from "node:assert";
import { KeptBudget } from "./kept_budget.ts";

Deno.test("KeptBudget: past the budget the least recently used go first, those never resumed before resumed ones", () => {
  const budget = new KeptBudget(100);
  const dropped: string[] = [];
  const open = (name: string) => budget.open(() => dropped.push(name));
  const a = open("a");
  const b = open("b");
  const c = open("c");
  a.charge(30);
  b.charge(30);
  c.charge(30);
  // a came back for: evicted only after every other one.
  a.markResumed();
  // b is used again: c is now the least recently used fresh one.
  b.charge(1);
  const d = open("d");
  d.charge(30);
  assert.deepEqual(dropped, ["c"]);
  assert.equal(budget.used, 91);
  d.charge(40);
  assert.deepEqual(dropped, ["c", "b"]);
  d.charge(30);
  assert.deepEqual(dropped, ["c", "b", "a"]);
  assert.equal(budget.used, 100);
  // Alone past the budget, the charging account goes too.
  d.charge(1);
  assert.deepEqual(dropped, ["c", "b", "a", "d"]);
  assert.equal(budget.used, 0);
  assert.equal(budget.evictions, 4);
});

Deno.test("KeptBudget: released and closed bytes are given back; a bad size is refused", () => {
  const budget = new KeptBudget(10);
  const account = budget.open(() => assert.fail("nothing to evict"));
  account.charge(8);
  account.release(5);
  assert.equal(budget.used, 3);
  account.set(10);
  account.close();
  assert.equal(budget.used, 0);
  assert.throws(() => new KeptBudget(0), /maxKeptBytes must be/);
});
