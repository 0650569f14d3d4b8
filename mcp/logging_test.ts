import { strict as assert } from "node:assert";
import {
  allowsLevel,
  isLoggingLevel,
  LOGGING_LEVELS,
  loggingLevelOf,
} from "./logging.ts";

Deno.test("logging: the eight RFC 5424 levels, in order of severity", () => {
  assert.deepEqual(LOGGING_LEVELS, [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
  ]);
  for (const [i, threshold] of LOGGING_LEVELS.entries()) {
    for (const [j, level] of LOGGING_LEVELS.entries()) {
      assert.equal(
        allowsLevel(threshold, level),
        j >= i,
        `${threshold} ${level}`,
      );
    }
  }
});

Deno.test("logging: names are exact; the server's warn is warning", () => {
  assert.equal(isLoggingLevel("notice"), true);
  for (const bad of ["WARNING", "warn", "toString", "", 3, null, undefined]) {
    assert.equal(isLoggingLevel(bad), false, String(bad));
  }
  assert.equal(loggingLevelOf("warn"), "warning");
  assert.equal(loggingLevelOf("debug"), "debug");
});
