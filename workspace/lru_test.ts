import { strict as assert } from "node:assert";
import { Lru } from "./lru.ts";

Deno.test("Lru: bounded by entries and by weight, least recently used goes first", () => {
  const lru = new Lru<string, number>(3, 10);
  lru.set("a", 1);
  lru.set("b", 2);
  lru.set("c", 3);
  assert.equal(lru.get("a"), 1); // a is now the most recent
  lru.set("d", 4);
  assert.equal(lru.get("b"), undefined);
  assert.equal(lru.size, 3);
  lru.set("heavy", 5, 9);
  assert.ok(lru.weight <= 10);
  assert.equal(lru.get("heavy"), 5);
  assert.equal(lru.get("c"), undefined);
  lru.set("too-heavy", 6, 11);
  assert.equal(lru.get("too-heavy"), undefined);
  lru.delete("heavy");
  assert.equal(lru.weight, lru.size);
  for (let i = 0; i < 10_000; i++) lru.set(`k${i}`, i);
  assert.equal(lru.size, 3);
});
