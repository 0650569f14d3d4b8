import { strict as assert } from "node:assert";
import {
  matchLines,
  RegexBudget,
  RegexTimeoutError,
  stopRegexWorker,
} from "./regex_worker.ts";

// About 8 MB of lines that a simple regex scans in well over 5 ms.
const BIG_TEXT = "xyzzy plugh\n".repeat(700_000);

Deno.test("matchLines: a job over its budget fails alone; the jobs queued behind it still finish", async () => {
  try {
    const slow = matchLines("q.*z$", "", [BIG_TEXT], 10, new RegexBudget(5));
    const fine = matchLines("b", "", ["a\nb\nab"], 10, new RegexBudget(5_000));
    await assert.rejects(slow, RegexTimeoutError);
    assert.deepEqual(await fine, [[0, 2, "b"], [0, 3, "ab"]]);
  } finally {
    stopRegexWorker();
  }
});

Deno.test("matchLines: time spent waiting behind another call's matching is not charged", async () => {
  try {
    const started = performance.now();
    const first = matchLines(
      "q.*z$",
      "",
      [BIG_TEXT],
      10,
      new RegexBudget(60_000),
    );
    // Queued behind the first job: were the wait charged, this budget
    // would lose at least the first job's whole run.
    const budget = new RegexBudget(60_000);
    const second = matchLines("b", "", ["a\nb"], 10, budget);
    assert.deepEqual(await first, []);
    const waited = performance.now() - started;
    assert.deepEqual(await second, [[0, 2, "b"]]);
    const charged = 60_000 - budget.remainingMs;
    assert.ok(waited > 20, `the first job took only ${waited} ms`);
    // Matching one short line takes microseconds; a loaded machine may
    // add a few milliseconds, never the first job's run.
    assert.ok(
      charged < waited / 2,
      `charged ${charged} ms after waiting ${waited} ms`,
    );
  } finally {
    stopRegexWorker();
  }
});

Deno.test("matchLines: a job that throws fails alone, with its own error", async () => {
  try {
    const broken = matchLines("([", "", ["x"], 10, new RegexBudget(5_000));
    const fine = matchLines("x", "", ["x"], 10, new RegexBudget(5_000));
    await assert.rejects(broken, /Invalid regular expression/);
    assert.deepEqual(await fine, [[0, 1, "x"]]);
  } finally {
    stopRegexWorker();
  }
});

Deno.test("matchLines: a final newline ends the last line without adding an empty one", async () => {
  try {
    const budget = new RegexBudget(5_000);
    assert.deepEqual(await matchLines("^$", "", ["a\n"], 10, budget), []);
    assert.deepEqual(await matchLines("^$", "", ["a\n\nb"], 10, budget), [
      [0, 2, ""],
    ]);
  } finally {
    stopRegexWorker();
  }
});

Deno.test("matchLines: a main thread too busy to take the answer is not charged", async () => {
  try {
    // Start the worker first, so its start-up is not part of this.
    await matchLines("a", "", ["a"], 10, new RegexBudget(60_000));
    // The worker answers at once; the main thread takes it 1.1 s later,
    // past the budget: charged, that wait would use it all up. The job's
    // round-trip room is a minute, so however slowly a loaded machine
    // schedules either thread, the answer is taken before the worker is
    // given up on, and only the worker's own matching time is charged.
    const budget = new RegexBudget(1000, 60_000);
    const job = matchLines("b", "", ["a\nb"], 10, budget);
    const until = performance.now() + 1100;
    while (performance.now() < until) { /* busy */ }
    assert.deepEqual(await job, [[0, 2, "b"]]);
    assert.ok(budget.remainingMs > 0, `${budget.remainingMs} ms left`);
  } finally {
    stopRegexWorker();
  }
});

Deno.test("matchLines: once a budget is spent, its next job fails at once", async () => {
  try {
    const budget = new RegexBudget(5);
    await assert.rejects(
      matchLines("q.*z$", "", [BIG_TEXT], 10, budget),
      RegexTimeoutError,
    );
    assert.ok(budget.remainingMs <= 0);
    await assert.rejects(
      matchLines("b", "", ["b"], 10, budget),
      RegexTimeoutError,
    );
  } finally {
    stopRegexWorker();
  }
});
