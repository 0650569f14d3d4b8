/**
 * Differential test of `--index`: on generated trees (nested `.gitignore`
 * files, links in and out of the root, binary, oversized and UTF-16
 * files, names that are not UTF-8, the characters whose lower case is
 * ASCII), `find_files` and `search_text` answered from the index must be
 * exactly what the scan answers (text, structured counts, notes), for
 * literal, case-insensitive and regex queries, paths, globs and limits
 * that cut the results; and again after files change, appear, vanish and
 * `.gitignore` rules change, once the index has caught up; and for an
 * index reloaded from its cache (`--index-cache`), before and after the
 * tree changed while no index ran. It also checks that the index did
 * answer (no walk happened) for the queries it can.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { handlers } from "../handlers/mod.ts";
import { McpServer } from "../mcp/server.ts";
import { Session } from "../mcp/session.ts";
import { workspaceTools } from "../tools/mod.ts";
import { stopRegexWorker } from "../tools/regex_worker.ts";
import {
  SCAN_WORKERS,
  scanWorkersRunning,
  stopScanWorkers,
} from "../tools/scan_pool.ts";
import { WARM_INDEX_TEXT_FILES } from "../tools/search_text.ts";
import {
  setWorkerCandidates,
  WORKER_CANDIDATES,
  workerSearches,
} from "../tools/search_indexed.ts";
import type { WorkspaceView } from "../workspace/roots.ts";
import { TextIndex } from "../workspace/text_index.ts";
import { Workspace } from "../workspace/workspace.ts";
import { prng } from "./prng.ts";
import { call, TEST_CAPS } from "./tools_harness.ts";
import { within } from "./within.ts";

const MAX_READ = 2048;

const WORDS = [
  "needle",
  "Needle",
  "NEEDLE",
  "needle1 is",
  "needle22 is",
  "haystack",
  "static int foo_probe(",
  "static  int bar_probe (",
  "xİy",
  "oK ok",
  "ünïcödé",
  "a",
  "the",
  "\t",
];

const DIRS = ["src", "lib", "build", "docs", "a", "a/b", "x y", "über", "deep"];
const FILES = [
  "main.c",
  "util.js",
  "README.md",
  "a.log",
  "keep.log",
  "b.txt",
  "Makefile",
  "ñ.txt",
];
const RULES = ["*.log", "!keep.log", "/build", "docs/**/*.md", "a/b", "*.o"];

function text(random: () => number): string {
  const lines: string[] = [];
  const count = 1 + Math.floor(random() * 8);
  for (let i = 0; i < count; i++) {
    const words: string[] = [];
    const n = 1 + Math.floor(random() * 5);
    for (let j = 0; j < n; j++) {
      words.push(WORDS[Math.floor(random() * WORDS.length)]);
    }
    lines.push(words.join(" "));
  }
  return lines.join(random() < 0.2 ? "\r\n" : "\n") +
    (random() < 0.5 ? "\n" : "");
}

function utf16(value: string, littleEndian: boolean): Uint8Array {
  const out = new Uint8Array(2 + value.length * 2);
  out[0] = littleEndian ? 0xff : 0xfe;
  out[1] = littleEndian ? 0xfe : 0xff;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    out[2 + 2 * i] = littleEndian ? code & 0xff : code >> 8;
    out[3 + 2 * i] = littleEndian ? code >> 8 : code & 0xff;
  }
  return out;
}

function content(random: () => number): Uint8Array {
  const kind = random();
  const body = text(random);
  if (kind < 0.07) return new TextEncoder().encode(`needle\0${body}`);
  if (kind < 0.12) {
    return new TextEncoder().encode(`needle\n${"x".repeat(MAX_READ)}\n`);
  }
  if (kind < 0.17) return utf16(body, true);
  if (kind < 0.2) return utf16(body, false);
  return new TextEncoder().encode(body);
}

async function generate(seed: number): Promise<string> {
  const random = prng(seed);
  const base = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "index_differential_" }),
  );
  const root = `${base}/root`;
  await Deno.mkdir(root);
  await Deno.mkdir(`${base}/outside`);
  await Deno.writeTextFile(`${base}/outside/f.txt`, "needle outside\n");
  for (const dir of DIRS) {
    if (random() < 0.2) continue;
    await Deno.mkdir(`${root}/${dir}`, { recursive: true });
  }
  const dirs = [
    "",
    ...DIRS.filter((d) => {
      try {
        return Deno.statSync(`${root}/${d}`).isDirectory;
      } catch {
        return false;
      }
    }),
  ];
  for (const dir of dirs) {
    const at = dir === "" ? root : `${root}/${dir}`;
    for (const name of FILES) {
      if (random() < 0.4) continue;
      await Deno.writeFile(`${at}/${name}`, content(random));
    }
    if (random() < 0.5) {
      const rules = RULES.filter(() => random() < 0.4);
      await Deno.writeTextFile(`${at}/.gitignore`, rules.join("\n"));
    }
  }
  await Deno.writeTextFile(`${root}/always.c`, "needle1 is always here\n");
  await Deno.mkdir(`${root}/.git`);
  await Deno.writeTextFile(`${root}/.git/config`, "needle in git\n");
  const targets = [
    `${root}/${dirs[Math.floor(random() * dirs.length)]}`,
    `${base}/outside/f.txt`,
    `${base}/outside`,
    "missing",
  ];
  for (let i = 0; i < targets.length; i++) {
    const dir = dirs[Math.floor(random() * dirs.length)];
    await Deno.symlink(targets[i], `${root}/${dir}/link${i}`).catch(() => {});
  }
  const files = dirs.flatMap((d) =>
    FILES.map((f) => d === "" ? f : `${d}/${f}`)
  ).filter((p) => {
    try {
      return Deno.lstatSync(`${root}/${p}`).isFile;
    } catch {
      return false;
    }
  });
  if (files.length > 0) {
    const file = files[Math.floor(random() * files.length)];
    await Deno.symlink(`${root}/${file}`, `${root}/filelink.txt`);
  }
  if (seed % 3 === 0) {
    // A name that is not UTF-8: the walk leaves it out, and says so.
    await new Deno.Command("sh", {
      args: [
        "-c",
        `printf 'needle\\n' > "$1/bad$(printf '\\377')name.txt"`,
        "sh",
        root,
      ],
    }).output();
  }
  return root;
}

/** A server with the workspace tools over `view`, indexed by `index`. */
async function server(
  view: WorkspaceView,
  index?: TextIndex,
  maxReadBytes = MAX_READ,
): Promise<{ server: McpServer; session: Session }> {
  const server = new McpServer({
    info: { name: "shipcode-mcp", version: "1" },
    handlers,
    protocolVersions: ["2025-06-18"],
  });
  const caps = {
    ...TEST_CAPS,
    maxReadBytes,
    maxEntries: 100_000,
    maxMatches: 100_000,
  };
  for (const tool of workspaceTools(view, caps, index)) {
    server.tools.register(tool);
  }
  const session = new Session(() => {});
  await server.handle({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "test", version: "1" },
    },
  }, session);
  return { server, session };
}

/** `ws`, counting its walks. */
function counting(ws: Workspace): { view: WorkspaceView; walks: () => number } {
  let walks = 0;
  return {
    view: {
      resolve: (path) => ws.resolve(path),
      open: (target) => ws.open(target),
      readFile: (target, options) => ws.readFile(target, options),
      walk: (options) => {
        walks++;
        return ws.walk(options);
      },
    },
    walks: () => walks,
  };
}

const SEARCHES: Record<string, unknown>[] = [
  { query: "needle" },
  { query: "needle", limit: 1 },
  { query: "needle", limit: 3 },
  { query: "needle", limit: 7 },
  { query: "NEEDLE", caseSensitive: false },
  { query: "Needle", caseSensitive: false, limit: 4 },
  { query: "needle22 is" },
  { query: "no such text here" },
  { query: "xİy" },
  { query: "XİY", caseSensitive: false },
  { query: "ok ok", caseSensitive: false },
  { query: "ünïcödé" },
  { query: "ÜNÏCÖDÉ", caseSensitive: false },
  { query: "ne" },
  { query: "needle", glob: "*.txt" },
  { query: "needle", glob: "**/*.md", limit: 2 },
  { query: "needle", path: "src" },
  { query: "needle", path: "a", limit: 2 },
  { query: "needle", path: "link0" },
  { query: "needle", path: "filelink.txt" },
  { query: String.raw`needle\d+ is`, regex: true },
  { query: String.raw`needle\d+ is`, regex: true, limit: 2 },
  { query: String.raw`static\s+int\s+\w+_probe\(`, regex: true },
  { query: String.raw`static\s+int\s+\w+_probe\(`, regex: true, limit: 3 },
  { query: "NEEDLE[0-9]", regex: true, caseSensitive: false },
  { query: "ne+dle", regex: true },
  { query: "(needle|haystack)", regex: true },
  { query: "hay(?:st)ack", regex: true, glob: "*.c" },
  { query: "o[kK] ok", regex: true, caseSensitive: false },
];

const FINDS: Record<string, unknown>[] = [
  { pattern: "**" },
  { pattern: "*", limit: 1 },
  { pattern: "*", limit: 5 },
  { pattern: "*.txt" },
  { pattern: "Makefile" },
  { pattern: "**/*.md", path: "docs" },
  { pattern: "*", path: "a", limit: 2 },
  { pattern: "*", path: "link0" },
];

/**
 * Queries on the whole tree with three known characters in a row: the
 * index answers them whenever it is current.
 */
const ANSWERABLE = new Set(
  [
    { query: "needle" },
    { query: "needle", limit: 3 },
    { query: "NEEDLE", caseSensitive: false },
    { query: "needle22 is" },
    { query: String.raw`needle\d+ is`, regex: true, limit: 2 },
    { pattern: "**" },
    { pattern: "*", limit: 5 },
  ].map((args) => JSON.stringify(args)),
);

/** The answer of `to` to a call, or its error as text. */
function answer(
  to: { server: McpServer; session: Session },
  tool: string,
  args: Record<string, unknown>,
): Promise<unknown> {
  return call(to.server, to.session, tool, args).catch((error) =>
    String(error)
  );
}

/** Run every query on both servers; returns how many the index answered. */
async function compare(
  scan: { server: McpServer; session: Session },
  indexed: { server: McpServer; session: Session },
  walks: () => number,
): Promise<number> {
  let answered = 0;
  const must = new Set(ANSWERABLE);
  for (
    const [tool, list] of [
      ["search_text", SEARCHES],
      ["find_files", FINDS],
    ] as const
  ) {
    for (const args of list) {
      const expected = await answer(scan, tool, args);
      const before = walks();
      const actual = await answer(indexed, tool, args);
      assert.deepEqual(actual, expected, `${tool} ${JSON.stringify(args)}`);
      if (walks() === before) {
        answered++;
        must.delete(JSON.stringify(args));
      }
    }
  }
  assert.deepEqual([...must], [], "the index did not answer these");
  return answered;
}

async function caughtUp(index: TextIndex, seen: number): Promise<void> {
  // Changes reach the watch within milliseconds; wait for them, then for
  // the index to apply them.
  for (let i = 0; i < 3000 && index.changesSeen === seen; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.ok(index.changesSeen > seen, "the watch reported no change");
  await within(index.whenCurrent());
  await new Promise((resolve) => setTimeout(resolve, 100));
  await within(index.whenCurrent());
}

Deno.test("index: find_files and search_text answer as the scan does, before and after changes", async () => {
  try {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const root = await generate(seed);
      const ws = await Workspace.open(root);
      const index = TextIndex.start(ws, { maxReadBytes: MAX_READ });
      try {
        const scan = await server(await Workspace.open(root));
        const { view, walks } = counting(ws);
        const indexed = await server(view, index);
        await within(index.whenCurrent());
        assert.ok(index.view() !== undefined, `seed ${seed}: not built`);
        const answered = await compare(scan, indexed, walks);
        assert.ok(
          answered >= 20,
          `seed ${seed}: the index answered ${answered}`,
        );

        // Content changes only: each file indexed again.
        let seen = index.changesSeen;
        await Deno.writeTextFile(
          `${root}/always.c`,
          "needle22 is new\nNEEDLE\n",
        );
        await Deno.writeTextFile(
          `${root}/Makefile`,
          "static int new_probe(\n",
        ).catch(() => {});
        await caughtUp(index, seen);
        await compare(scan, indexed, walks);

        // Files appear and vanish, rules change, a directory appears.
        seen = index.changesSeen;
        await Deno.writeTextFile(`${root}/fresh.txt`, "needle fresh\n");
        await Deno.remove(`${root}/README.md`).catch(() => {});
        await Deno.writeTextFile(`${root}/.gitignore`, "*.txt\n!b.txt\n");
        await Deno.mkdir(`${root}/new/dir`, { recursive: true });
        await Deno.writeTextFile(`${root}/new/dir/n.c`, "needle1 is here\n");
        await caughtUp(index, seen);
        await compare(scan, indexed, walks);

        // A file written in the new directory is seen there too.
        seen = index.changesSeen;
        await Deno.writeTextFile(
          `${root}/new/dir/m.c`,
          "static int m_probe(\n",
        );
        await caughtUp(index, seen);
        await compare(scan, indexed, walks);
      } catch (error) {
        (error as Error).message = `seed ${seed}: ${(error as Error).message}`;
        throw error;
      } finally {
        index.close();
        await Deno.remove(`${root}/..`, { recursive: true });
      }
    }
  } finally {
    stopRegexWorker();
  }
});

/**
 * A generated tree, its index once current, a server that scans the tree
 * and one that answers from the index (given the workspace itself: the
 * scan workers read only for a Workspace).
 */
async function scanAndIndexed(seed: number) {
  const root = await generate(seed);
  const ws = await Workspace.open(root);
  const index = TextIndex.start(ws, { maxReadBytes: MAX_READ });
  try {
    const scan = await server(await Workspace.open(root));
    const indexed = await server(ws, index);
    await within(index.whenCurrent());
    return { root, index, scan, indexed };
  } catch (error) {
    index.close();
    await Deno.remove(`${root}/..`, { recursive: true });
    throw error;
  }
}

Deno.test("index: candidates read by the scan workers answer as the scan does", async () => {
  const { warm, cold, capped } = WORKER_CANDIDATES;
  // Every search with a candidate goes to the workers, capped ones too.
  setWorkerCandidates(1, 1, true);
  const before = workerSearches();
  try {
    for (const seed of [1, 2, 3]) {
      const { root, index, scan, indexed } = await scanAndIndexed(seed);
      try {
        for (const args of SEARCHES) {
          const expected = await answer(scan, "search_text", args);
          const actual = await answer(indexed, "search_text", args);
          assert.deepEqual(
            actual,
            expected,
            `seed ${seed}: search_text ${JSON.stringify(args)}`,
          );
        }
      } finally {
        index.close();
        await Deno.remove(`${root}/..`, { recursive: true });
      }
    }
    assert.ok(
      workerSearches() - before >= 30,
      `the workers answered ${workerSearches() - before} searches`,
    );
  } finally {
    setWorkerCandidates(warm, cold, capped);
    stopScanWorkers();
    stopRegexWorker();
  }
});

Deno.test("index: a large index keeps the scan workers warm; capped searches go to them", async () => {
  const { warm, cold, capped } = WORKER_CANDIDATES;
  const least = WARM_INDEX_TEXT_FILES.least;
  // Every index is large; searches of a candidate or more go to warm
  // workers, and to cold ones never.
  WARM_INDEX_TEXT_FILES.least = 1;
  setWorkerCandidates(1, Infinity, false);
  stopScanWorkers();
  const { root, index, scan, indexed } = await scanAndIndexed(4);
  try {
    // Started once the index is ready, before any search.
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(scanWorkersRunning(), SCAN_WORKERS);
    for (const args of [{ query: "needle", limit: 3 }, { query: "needle" }]) {
      const before = workerSearches();
      assert.deepEqual(
        await answer(indexed, "search_text", args),
        await answer(scan, "search_text", args),
      );
      assert.equal(workerSearches() - before, 1, JSON.stringify(args));
    }
    index.close();
    // Not held any more: stopped once idle.
    const stopped = Date.now() + 10_000;
    while (scanWorkersRunning() > 0 && Date.now() < stopped) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(scanWorkersRunning(), 0);
  } finally {
    index.close();
    WARM_INDEX_TEXT_FILES.least = least;
    setWorkerCandidates(warm, cold, capped);
    stopScanWorkers();
    stopRegexWorker();
    await Deno.remove(`${root}/..`, { recursive: true });
  }
});

Deno.test("index: a view is not given while changes wait to be applied", async () => {
  const root = await generate(7);
  const ws = await Workspace.open(root);
  const index = TextIndex.start(ws, { maxReadBytes: MAX_READ, quietMs: 200 });
  try {
    assert.equal(index.view(), undefined);
    await within(index.whenCurrent());
    assert.ok(index.view() !== undefined);
    const seen = index.changesSeen;
    await Deno.writeTextFile(`${root}/b.txt`, "changed\n");
    for (let i = 0; i < 3000 && index.changesSeen === seen; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Reported, not yet applied (applying waits 200 ms of quiet).
    assert.equal(index.view(), undefined);
    await within(index.whenCurrent());
    assert.ok(index.view() !== undefined);
  } finally {
    index.close();
    await Deno.remove(`${root}/..`, { recursive: true });
  }
});

Deno.test("index: regex searches cut by a limit stop where the scan's batches do", async () => {
  // Enough text for the scan's regex batches (32 Ki characters first, then
  // doubling) to be flushed many times before the end.
  const random = prng(99);
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "index_batches_" }),
  );
  for (let d = 0; d < 12; d++) {
    await Deno.mkdir(`${root}/d${d}`);
    for (let f = 0; f < 25; f++) {
      const lines: string[] = [];
      for (let l = 0; l < 40 + Math.floor(random() * 200); l++) {
        const r = random();
        lines.push(
          r < 0.03
            ? `static int f${d}_${f}_${l}_probe(struct device *dev)`
            : r < 0.06
            ? `  ret = platform_driver_probe(dev); /* needle ${l} */`
            : `  x = y + ${Math.floor(random() * 1000)}; // filler text`,
        );
      }
      await Deno.writeTextFile(`${root}/d${d}/f${f}.c`, lines.join("\n"));
    }
  }
  const ws = await Workspace.open(root);
  const live = TextIndex.start(ws, { maxReadBytes: 1 << 20 });
  try {
    const scan = await server(await Workspace.open(root), undefined, 1 << 20);
    const { view, walks } = counting(ws);
    const indexed = await server(view, live, 1 << 20);
    await within(live.whenCurrent());
    for (
      const args of [
        { query: String.raw`static\s+int\s+\w+_probe\(`, regex: true },
        ...[1, 5, 20, 50, 120, 300].map((limit) => ({
          query: String.raw`static\s+int\s+\w+_probe\(`,
          regex: true,
          limit,
        })),
        { query: "needle", regex: true, limit: 40 },
        {
          query: "NEEDLE \\d+ \\*",
          regex: true,
          caseSensitive: false,
          limit: 7,
        },
        { query: "needle", limit: 33 },
      ]
    ) {
      const expected = await call(
        scan.server,
        scan.session,
        "search_text",
        args,
      );
      const before = walks();
      const actual = await call(
        indexed.server,
        indexed.session,
        "search_text",
        args,
      );
      assert.deepEqual(actual, expected, JSON.stringify(args));
      assert.equal(
        walks(),
        before,
        `the index did not answer ${JSON.stringify(args)}`,
      );
    }
  } finally {
    live.close();
    stopRegexWorker();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("index: reloaded from its cache, and caught up after changes made while no index ran, it answers as the scan does", async () => {
  try {
    for (const seed of [1, 2, 3, 4]) {
      const root = await generate(seed);
      const cacheDir = await Deno.makeTempDir({ prefix: "index_diff_cache_" });
      const start = async () => {
        const ws = await Workspace.open(root);
        const index = TextIndex.start(ws, { maxReadBytes: MAX_READ, cacheDir });
        await within(index.whenCurrent());
        return { ws, index };
      };
      const check = async (what: string) => {
        const { ws, index } = await start();
        try {
          const scan = await server(await Workspace.open(root));
          const { view, walks } = counting(ws);
          const indexed = await server(view, index);
          assert.ok(index.view() !== undefined, `${what}: not built`);
          await compare(scan, indexed, walks);
          return index.stats!;
        } finally {
          index.close();
        }
      };
      try {
        assert.deepEqual((await check("first")).cache, ["none", "saved"]);
        assert.equal((await check("reloaded")).cache[0], "loaded");
        // Changed while no index ran: content (the same size, and the
        // same modification time), files appearing and vanishing, rules,
        // a new directory, a link retargeted.
        const always = `${root}/always.c`;
        const { mtime } = await Deno.stat(always);
        await Deno.writeTextFile(always, "NEEDLE1 is always here\n");
        await Deno.utime(always, mtime!, mtime!);
        await Deno.writeTextFile(`${root}/fresh.txt`, "needle fresh\n");
        await Deno.remove(`${root}/README.md`).catch(() => {});
        await Deno.writeTextFile(`${root}/.gitignore`, "*.txt\n!b.txt\n");
        await Deno.mkdir(`${root}/new/dir`, { recursive: true });
        await Deno.writeTextFile(`${root}/new/dir/n.c`, "needle1 is here\n");
        await Deno.remove(`${root}/filelink.txt`).catch(() => {});
        await Deno.symlink(always, `${root}/filelink.txt`);
        const caught = await check("changed while down");
        assert.deepEqual(caught.cache, ["loaded", "saved"]);
        assert.ok(caught.read > 0);
      } catch (error) {
        (error as Error).message = `seed ${seed}: ${(error as Error).message}`;
        throw error;
      } finally {
        await Deno.remove(`${root}/..`, { recursive: true });
        await Deno.remove(cacheDir, { recursive: true });
      }
    }
  } finally {
    stopRegexWorker();
  }
});
