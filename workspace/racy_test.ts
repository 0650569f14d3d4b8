import { strict as assert } from "node:assert";
import { COARSE_RACY_MS, isRacy, RACY_MS } from "./racy.ts";

Deno.test("isRacy: times with milliseconds are trusted once older than the fine window", () => {
  const changed = 1_700_000_000_123;
  assert.equal(isRacy(changed + RACY_MS, changed), true);
  assert.equal(isRacy(changed + RACY_MS + 1, changed), false);
  // The latest of several times counts.
  assert.equal(isRacy(changed + 150, changed, changed + 60), true);
});

Deno.test("isRacy: times in whole seconds get the coarse window", () => {
  const changed = 1_700_000_000_000;
  assert.equal(isRacy(changed + 1_000, changed), true);
  assert.equal(isRacy(changed + COARSE_RACY_MS, changed, changed), true);
  assert.equal(isRacy(changed + COARSE_RACY_MS + 1, changed), false);
  // One time with milliseconds shows the clock is fine.
  assert.equal(isRacy(changed + 200, changed, changed + 7), false);
});

Deno.test("isRacy: unknown times are never trusted", () => {
  assert.equal(isRacy(Date.now(), NaN), true);
  assert.equal(isRacy(Date.now(), 1_000_123, NaN), true);
  assert.equal(isRacy(Date.now()), true);
});
