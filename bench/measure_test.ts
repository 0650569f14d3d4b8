import { strict as assert } from "node:assert";
import { median, memoryStatus, parseStatus } from "./measure.ts";

Deno.test("parseStatus reads VmRSS and VmHWM in bytes", () => {
  const status = [
    "Name:\tdeno",
    "VmPeak:\t 3500000 kB",
    "VmHWM:\t  307200 kB",
    "VmRSS:\t  102400 kB",
    "Threads:\t8",
  ].join("\n");
  assert.deepEqual(parseStatus(status), {
    rss: 100 * 2 ** 20,
    peak: 300 * 2 ** 20,
  });
});

Deno.test("parseStatus gives undefined for a process without memory lines", () => {
  // A zombie's status has no Vm lines.
  assert.equal(parseStatus("Name:\tdeno\nState:\tZ (zombie)\n"), undefined);
});

Deno.test("memoryStatus reads this process's memory, with or without --allow-all", async () => {
  const own = await memoryStatus(Deno.pid);
  assert.ok(own !== undefined && own.peak >= own.rss && own.rss > 0);
});

Deno.test("median takes the middle value, or the mean of the middle two", () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.ok(Number.isNaN(median([])));
});
