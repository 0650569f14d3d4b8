import { strict as assert } from "node:assert";
import { Workspace } from "../workspace/workspace.ts";
import {
  scanSearch,
  scanWorkersRunning,
  stopScanWorkers,
} from "./scan_pool.ts";
import type { ScanQuery } from "./scan_unit.ts";

const QUERY: ScanQuery = {
  query: "needle",
  caseSensitive: true,
  maxReadBytes: 1 << 20,
  limit: 1_000_000,
  maxLineChars: 400,
};

async function tree(dirs: number, files: number): Promise<string> {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "shipcode-scan-pool-" }),
  );
  const text = "a line\nthe needle here\n".repeat(50);
  for (let d = 0; d < dirs; d++) {
    await Deno.mkdir(`${root}/d${d}`);
    for (let f = 0; f < files; f++) {
      await Deno.writeTextFile(`${root}/d${d}/f${f}.txt`, text);
    }
  }
  return root;
}

Deno.test("scanSearch: a cancel rejects with its reason at once; the next scan answers in full", async () => {
  const root = await tree(20, 60);
  try {
    const ws = await Workspace.open(root);
    const controller = new AbortController();
    const reason = new Error("cancelled by the client");
    const cancelled = scanSearch(ws, "", QUERY, {
      signal: controller.signal,
      budgetMs: 60_000,
      // Cancel as soon as the workers report anything.
      progress: () => controller.abort(reason),
    });
    await assert.rejects(cancelled, (error) => error === reason);
    const full = await scanSearch(ws, "", QUERY, {
      signal: new AbortController().signal,
      budgetMs: 60_000,
    });
    assert.equal(full.searched, 1200);
    assert.equal(full.matches.length, 1200 * 50);
    assert.ok(scanWorkersRunning() > 0);
  } finally {
    stopScanWorkers();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("scanSearch: a cancel while the walk waits for the file system rejects once, with nothing left unhandled", async () => {
  const root = await tree(4, 2);
  try {
    const ws = await Workspace.open(root);
    const controller = new AbortController();
    // The cancel comes while the walk is between entries, waiting on a
    // timer (as it waits on the file system): the call's answer is
    // rejected then, before anything awaits it. An unhandled rejection
    // ends the process, so the test fails if the answer was left so.
    const walk = ws.walk.bind(ws);
    ws.walk = async function* (options) {
      for await (const entry of walk(options)) {
        yield entry;
        if (!controller.signal.aborted) {
          controller.abort("test");
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    };
    await assert.rejects(
      scanSearch(ws, "", QUERY, {
        signal: controller.signal,
        budgetMs: 60_000,
      }),
      (error) => error === "test",
    );
  } finally {
    stopScanWorkers();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("scanSearch: the cap answers the first matches in walk order", async () => {
  const root = await tree(6, 5);
  try {
    const ws = await Workspace.open(root);
    const capped = await scanSearch(ws, "", { ...QUERY, limit: 120 }, {
      signal: new AbortController().signal,
      budgetMs: 60_000,
    });
    // 50 matches a file: the cap falls in the third file of d0.
    assert.deepEqual(
      [...new Set(capped.matches.map((m) => m.path))],
      ["d0/f0.txt", "d0/f1.txt", "d0/f2.txt"],
    );
    assert.equal(capped.matches.length, 120);
    assert.equal(capped.searched, 3);
  } finally {
    stopScanWorkers();
    await Deno.remove(root, { recursive: true });
  }
});
