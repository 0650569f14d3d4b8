import { strict as assert } from "node:assert";
import { loadNodeFs } from "../workspace/secure_fs.ts";
import {
  INPUT_EVERY_MS,
  Pacer,
  PROGRESS_INTERVAL_MS,
  SLICE_MS,
} from "./common.ts";

/**
 * Work for `ms` on a clock the test drives, paced as a tool's loop is: one
 * millisecond per step. The times `onPause` ran. The pacer reads
 * `performance.now()`, so it is stood in for while the work runs: with the
 * real clock, a loaded machine that stalls the test between its loop's
 * check and the pacer's tick makes a short call look long.
 */
async function work(ms: number): Promise<number[]> {
  const realNow = performance.now;
  let clock = 1_000;
  const start = clock;
  performance.now = () => clock;
  try {
    const reports: number[] = [];
    const pacer = new Pacer(
      new AbortController().signal,
      () => reports.push(clock - start),
    );
    while (clock - start < ms) {
      clock++;
      await pacer.tick();
    }
    return reports;
  } finally {
    performance.now = realNow;
  }
}

Deno.test("Pacer: a call shorter than the interval reports nothing", async () => {
  assert.deepEqual(await work(PROGRESS_INTERVAL_MS / 2), []);
});

Deno.test("Pacer: a long call reports at most once per interval, the first after one", async () => {
  const reports = await work(PROGRESS_INTERVAL_MS * 4);
  assert.ok(reports.length >= 1, "a long call reports");
  assert.ok(reports.length <= 4, `${reports.length} reports`);
  assert.ok(reports[0] >= PROGRESS_INTERVAL_MS, `first at ${reports[0]} ms`);
  for (let i = 1; i < reports.length; i++) {
    assert.ok(
      reports[i] - reports[i - 1] >= PROGRESS_INTERVAL_MS,
      `reports at ${reports.join(", ")} ms`,
    );
  }
});

Deno.test("Pacer: a cancelled call stops at its next check", async () => {
  const controller = new AbortController();
  const pacer = new Pacer(controller.signal);
  controller.abort(new Error("cancelled"));
  assert.throws(() => pacer.due(), /cancelled/);
  await assert.rejects(pacer.tick(), /cancelled/);
});

Deno.test("Pacer: a timer turn (input read) at most every INPUT_EVERY_MS of work, cheaper turns between", async () => {
  // The cheaper turn is setImmediate's, from the module the workspace
  // loads before any walk or read.
  await loadNodeFs();
  const realSetTimeout = globalThis.setTimeout;
  let timers = 0;
  globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
    timers++;
    return realSetTimeout(...args);
  }) as typeof setTimeout;
  const ms = INPUT_EVERY_MS * 10;
  try {
    await work(ms);
  } finally {
    globalThis.setTimeout = realSetTimeout;
  }
  // Pauses come every SLICE_MS: a timer at each would be ms / SLICE_MS.
  assert.ok(ms / SLICE_MS >= 2 * (ms / INPUT_EVERY_MS + 1));
  assert.ok(timers >= ms / INPUT_EVERY_MS - 1, `${timers} timer turns`);
  assert.ok(timers <= ms / INPUT_EVERY_MS + 1, `${timers} timer turns`);
});
