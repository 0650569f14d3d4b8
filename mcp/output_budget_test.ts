import { strict as assert } from "node:assert";
import { OutputBudget } from "./output_budget.ts";

Deno.test("OutputBudget: over the limit until half of it is written", async () => {
  const budget = new OutputBudget(100);
  budget.add(100);
  assert.equal(budget.over, false);
  budget.add(1);
  assert.equal(budget.over, true);
  let room = false;
  const waiting = budget.room().then(() => room = true);
  budget.remove(40);
  await Promise.resolve();
  assert.equal(budget.over, false);
  assert.equal(room, false, "no room until half the limit");
  budget.remove(11);
  await waiting;
  assert.equal(room, true);
  assert.equal(budget.used, 50);
});

Deno.test("OutputBudget: a positive limit is required", () => {
  assert.throws(() => new OutputBudget(0), RangeError);
});
