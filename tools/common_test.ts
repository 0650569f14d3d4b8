import { strict as assert } from "node:assert";
import { Pacer, PROGRESS_INTERVAL_MS } from "./common.ts";

/** Busy work for `ms`, paced as a tool's loop is; the times `onPause` ran. */
async function work(ms: number): Promise<number[]> {
  const reports: number[] = [];
  const start = performance.now();
  const pacer = new Pacer(
    new AbortController().signal,
    () => reports.push(performance.now() - start),
  );
  while (performance.now() - start < ms) await pacer.tick();
  return reports;
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
