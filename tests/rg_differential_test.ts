/**
 * `--rg`: ripgrep proposes the files a scan reads, and the answer must be
 * byte for byte the plain scan's, on generated trees of the cases where rg
 * and the scan could disagree: hidden and ignored files, `.git`, binary
 * files (NUL early and past the sniffed 8 KiB), invalid UTF-8 (early and
 * late), UTF-16 and UTF-8 byte-order marks, CRLF, files at and over the
 * size cap, symlinks in and out of the root, and files changed between
 * rg's run and the scan's read. Also: without `--rg` rg never runs, and a
 * hostile query reaches rg only as a harmless pattern.
 *
 * Skipped (visibly) where `rg` is not installed.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { prng as rng } from "./prng.ts";
import { programRuns } from "./have_program.ts";
import { Workspace } from "../workspace/workspace.ts";
import { searchTextTool } from "../tools/search_text.ts";
import { scanSearch, stopScanWorkers } from "../tools/scan_pool.ts";
import {
  rgArgs,
  rgClearedCount,
  rgPattern,
  rgRuns,
} from "../tools/rg_candidates.ts";
import { stopRegexWorker } from "../tools/regex_worker.ts";
import type { ToolContext } from "../mcp/tool.ts";
import { permissionFlags } from "../cli/run_command.ts";

const MAX_READ = 9000;
const NEVER = new AbortController().signal;
const ctx = { signal: NEVER, reportProgress() {} } as unknown as ToolContext;

const RG = "/usr/bin/rg";
const hasRg = await programRuns(RG, ["--version"]);

const enc = new TextEncoder();

function utf16(text: string, le: boolean): Uint8Array {
  const out = new Uint8Array(2 + text.length * 2);
  out[0] = le ? 0xff : 0xfe;
  out[1] = le ? 0xfe : 0xff;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out[2 + 2 * i] = le ? c & 0xff : c >> 8;
    out[3 + 2 * i] = le ? c >> 8 : c & 0xff;
  }
  return out;
}

function join(...parts: (Uint8Array | string)[]): Uint8Array {
  const bytes = parts.map((p) => typeof p === "string" ? enc.encode(p) : p);
  const out = new Uint8Array(bytes.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of bytes) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}

// One file's content, of a kind picked by `random`.
function content(random: () => number, path: string): Uint8Array {
  const lines: string[] = [];
  for (let i = 0, n = 1 + Math.floor(random() * 5); i < n; i++) {
    lines.push(
      random() < 0.3
        ? `line ${i} of ${path}: the needle${i} is here`
        : `line ${i} of ${path}: nothing`,
    );
  }
  const text = lines.join(random() < 0.25 ? "\r\n" : "\n") +
    (random() < 0.5 ? "\n" : "");
  const kind = Math.floor(random() * 14);
  switch (kind) {
    case 0:
      return join("x\0", text); // binary
    case 1:
      return join("a".repeat(8300), "\0", text); // NUL past the sniff
    case 2:
      return join(new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]), text); // Latin-1
    case 3:
      return join(text, "b".repeat(8300), new Uint8Array([0xff]), "\n");
    case 4:
      return utf16(text, true);
    case 5:
      return utf16(`caf\u00e9 ${text}`, false);
    case 6:
      return join(new Uint8Array([0xef, 0xbb, 0xbf]), text); // UTF-8 BOM
    case 7:
      return join(text, "x".repeat(Math.max(0, MAX_READ - text.length)));
    case 8:
      return join("needle over\n", "y".repeat(MAX_READ)); // over the cap
    case 9:
      return join(text, "caf\u00e9 \ufffd needle\u00e9\n"); // valid non-ASCII
    case 10:
      return new Uint8Array(0);
    default:
      return enc.encode(text);
  }
}

const DIRS = ["src", "lib", ".hidden", "build", "node_modules", "a", "b"];
const FILES = ["m.ts", "u.js", "R.md", "x.log", ".env", "d.txt", "e.bin"];

/** A tree deep enough for subtree units (depth 3 and more). */
async function generate(seed: number): Promise<string> {
  const random = rng(seed);
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "rg_" }));
  const root = `${base}/root`;
  await Deno.mkdir(root);
  await Deno.writeTextFile(`${base}/secret.txt`, "needle outside\n");
  const dirs = [""];
  for (let i = 0; i < 40; i++) {
    const parent = dirs[Math.floor(random() * dirs.length)];
    if (parent.split("/").length > 5) continue;
    const name = DIRS[Math.floor(random() * DIRS.length)];
    const path = parent === "" ? name : `${parent}/${name}`;
    if (dirs.includes(path)) continue;
    await Deno.mkdir(`${root}/${path}`, { recursive: true });
    dirs.push(path);
  }
  const files: string[] = [];
  for (const dir of dirs) {
    for (let i = 0, n = 1 + Math.floor(random() * 5); i < n; i++) {
      const name = FILES[Math.floor(random() * FILES.length)];
      const path = dir === "" ? name : `${dir}/${name}`;
      await Deno.writeFile(`${root}/${path}`, content(random, path));
      files.push(path);
    }
    if (random() < 0.4) {
      await Deno.writeTextFile(
        `${root}/${dir}/.gitignore`,
        ["*.log", "build/", "!keep.log", "/*.bin"].filter(() => random() < 0.6)
          .join("\n"),
      );
    }
  }
  await Deno.mkdir(`${root}/.git`);
  await Deno.writeTextFile(`${root}/.git/config`, "needle in git\n");
  const deep = dirs.filter((d) => d.split("/").length >= 2);
  for (let i = 0; i < 4 && deep.length > 0; i++) {
    const dir = deep[Math.floor(random() * deep.length)];
    const targets = [
      `${root}/${files[Math.floor(random() * files.length)]}`,
      `${base}/secret.txt`,
      `${root}/.git/config`,
      `${root}/${dirs[Math.floor(random() * dirs.length)]}`,
    ];
    try {
      await Deno.symlink(targets[i], `${root}/${dir}/link${i}.txt`);
    } catch {
      // Taken.
    }
  }
  return root;
}

const QUERIES: Record<string, unknown>[] = [
  { query: "needle" },
  { query: "needle1 is" },
  { query: "caf\u00e9" },
  { query: "\ufffd" },
  { query: "nothing\r" },
  { query: "needle\\d+ is", regex: true },
  { query: "of .*needle", regex: true },
  { query: "NEEDLE", caseSensitive: false },
  { query: "needle", glob: "*.ts" },
  { query: "no such text anywhere" },
];

// Trees made once, then left 2 s: files changed within a second of rg's
// start are read whatever rg says, so fresh trees would test nothing.
const trees: string[] = [];
async function settledTrees(): Promise<string[]> {
  if (trees.length === 0) {
    for (const seed of [1, 2, 3, 4]) trees.push(await generate(seed));
    await new Promise((resolve) => setTimeout(resolve, 2100));
  }
  return trees;
}

function cleanUp(): void {
  for (const root of trees.splice(0)) {
    Deno.removeSync(root.slice(0, -"/root".length), { recursive: true });
  }
  stopScanWorkers();
  stopRegexWorker();
}

Deno.test({
  name:
    "rg differential: search_text with --rg answers byte for byte as the plain scan",
  ignore: !hasRg,
  async fn() {
    try {
      const clearedBefore = rgClearedCount();
      const runsBefore = rgRuns();
      for (const root of await settledTrees()) {
        // Paths, not descriptors: as under the server's --allow-read.
        const ws = await Workspace.open(root, { descriptorPaths: false });
        for (const limit of [3, 100_000]) {
          const caps = { maxMatches: limit, maxReadBytes: MAX_READ };
          const plain = searchTextTool(ws, caps);
          const withRg = searchTextTool(ws, { ...caps, rgPath: RG });
          for (const path of ["", "src", "a/b"]) {
            for (const query of QUERIES) {
              const args = { ...query, path };
              let expected;
              try {
                expected = await plain.run(args, ctx);
              } catch (error) {
                // A path the tree lacks: both refuse it alike.
                await assert.rejects(async () => await withRg.run(args, ctx), {
                  message: (error as Error).message,
                });
                continue;
              }
              const actual = await withRg.run(args, ctx);
              assert.deepEqual(
                actual,
                expected,
                `${root} ${JSON.stringify(args)} limit ${limit}`,
              );
            }
          }
        }
        // The main thread's scan, where the clearing can be counted.
        for (const query of ["needle", "nothing"]) {
          const q = {
            query,
            caseSensitive: true,
            maxReadBytes: MAX_READ,
            limit: 100_000,
            maxLineChars: 100_000,
          };
          const options = { signal: NEVER, budgetMs: 60_000, mainThread: true };
          const expected = await scanSearch(ws, "", q, options);
          const actual = await scanSearch(ws, "", q, {
            ...options,
            rg: { program: RG },
          });
          assert.deepEqual(actual, expected, `${root} ${query}`);
        }
      }
      assert.ok(rgRuns() > runsBefore, "rg ran");
      assert.ok(rgClearedCount() > clearedBefore, "rg spared some reads");
    } finally {
      cleanUp();
    }
  },
});

Deno.test({
  name:
    "rg differential: files changed between rg's run and the scan's read are read as they are then",
  ignore: !hasRg,
  async fn() {
    try {
      for (const root of await settledTrees()) {
        // Paths, not descriptors: as under the server's --allow-read.
        const ws = await Workspace.open(root, { descriptorPaths: false });
        const q = {
          query: "needle",
          caseSensitive: true,
          maxReadBytes: MAX_READ,
          limit: 100_000,
          maxLineChars: 100_000,
        };
        const files: string[] = [];
        for await (const e of ws.walk({})) {
          if (e.isFile && e.depth >= 3 && !ws.isLink(e)) {
            files.push(e.relative);
          }
        }
        assert.ok(files.length >= 4, `${root}: deep files to change`);
        const random = rng(files.length);
        const change = async () => {
          for (let i = 0; i < files.length; i += 3) {
            const at = `${root}/${files[i]}`;
            const kind = Math.floor(random() * 4);
            if (kind === 0) {
              await Deno.writeTextFile(at, "a late needle\n", { append: true });
            } else if (kind === 1) await Deno.writeTextFile(at, "gone\n");
            else if (kind === 2) await Deno.writeFile(at, enc.encode("\0bin"));
            else await Deno.writeTextFile(at, "needle\n".repeat(MAX_READ));
          }
        };
        const outcome = await scanSearch(ws, "", q, {
          signal: NEVER,
          budgetMs: 60_000,
          rg: { program: RG, afterRun: change },
        });
        const expected = await scanSearch(ws, "", q, {
          signal: NEVER,
          budgetMs: 60_000,
        });
        assert.deepEqual(outcome, expected, root);
      }
    } finally {
      cleanUp();
    }
  },
});

Deno.test("rg: without --rg the server may run nothing, and search_text never starts rg", async () => {
  assert.ok(
    !permissionFlags({ http: "", authTokenEnv: "" }).some((f) =>
      f.startsWith("--allow-run")
    ),
  );
  assert.deepEqual(
    permissionFlags({ http: "", authTokenEnv: "", rg: "/usr/bin/rg" })
      .filter((f) => f.startsWith("--allow-run")),
    ["--allow-run=/usr/bin/rg"],
  );
  const base = await Deno.makeTempDir({ prefix: "rg_none_" });
  try {
    await Deno.mkdir(`${base}/a/b/c`, { recursive: true });
    await Deno.writeTextFile(`${base}/a/b/c/f.txt`, "needle\n");
    const ws = await Workspace.open(base, { descriptorPaths: false });
    const before = rgRuns();
    const tool = searchTextTool(ws, { maxMatches: 10, maxReadBytes: 1000 });
    await tool.run({ query: "needle" }, ctx);
    await tool.run({ query: "ne+dle", regex: true }, ctx);
    assert.equal(rgRuns(), before);
  } finally {
    await Deno.remove(base, { recursive: true });
    stopScanWorkers();
    stopRegexWorker();
  }
});

Deno.test("rg: a hostile query reaches rg as one escaped pattern after -e, never as a flag", async () => {
  const hostile = [
    "-e",
    "--pre=/bin/sh",
    "--files",
    "a\0b",
    "x".repeat(5000),
    "(?i)",
    "\\x{0}",
    "$(rm -rf /)",
    "é\u{1F600}",
  ];
  for (const query of hostile) {
    const pattern = rgPattern({ query, regex: false, caseSensitive: true });
    assert.ok(pattern !== undefined, query.slice(0, 20));
    assert.ok(!pattern.startsWith("-"));
    assert.ok(!pattern.includes("\0"));
    assert.match(pattern, /^(?:[A-Za-z0-9_]|\\x\{[0-9a-f]+\})+$/);
    const args = rgArgs(pattern, "/r/-dir", 10);
    assert.equal(args[args.indexOf(pattern) - 1], "-e");
    assert.equal(args.at(-2), "--");
    assert.equal(args[0], "--no-config");
  }
  assert.equal(
    rgPattern({ query: "x".repeat(20_000), regex: false, caseSensitive: true }),
    undefined,
  );
  assert.equal(
    rgPattern({ query: "a\nb", regex: false, caseSensitive: true }),
    undefined,
  );
  assert.equal(
    rgPattern({ query: "\ud800", regex: false, caseSensitive: true }),
    undefined,
  );
  if (!hasRg) return;
  // And rg, given them, answers as the plain scan does.
  const base = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "rg_hostile_" }),
  );
  try {
    await Deno.mkdir(`${base}/a/b/c`, { recursive: true });
    await Deno.writeTextFile(
      `${base}/a/b/c/f.txt`,
      hostile.filter((h) => !h.includes("\0")).join("\n"),
    );
    await Deno.writeTextFile(`${base}/a/b/c/g.txt`, "plain\n");
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const ws = await Workspace.open(base, { descriptorPaths: false });
    const caps = { maxMatches: 100, maxReadBytes: 100_000 };
    const plain = searchTextTool(ws, caps);
    const withRg = searchTextTool(ws, { ...caps, rgPath: RG });
    for (const query of hostile) {
      assert.deepEqual(
        await withRg.run({ query }, ctx),
        await plain.run({ query }, ctx),
      );
    }
  } finally {
    await Deno.remove(base, { recursive: true });
    stopScanWorkers();
    stopRegexWorker();
  }
});
