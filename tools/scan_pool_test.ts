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
