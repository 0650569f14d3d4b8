/**
 * Differential test: on generated trees (nested `.gitignore` files with
 * negations, anchors, `**` and directory-only rules, dotfiles, symlinks in
 * and out of the root, binary, oversized and UTF-16 files), the
 * workspace's walk, `find_files`, `search_text` and `resources/list` must
 * give exactly what a plain reference walk, written here as simply as
 * possible, gives. It pins the results so that speed work cannot change
 * them.
 *
 * The reference matches `.gitignore` patterns by translating each to a
 * regular expression; the generator only writes patterns whose meaning that
 * translation gets right (`*`, `?`, `[ab]`, `**` at a segment's edge).
 *
 * @module
 */

import { prng as rng } from "./prng.ts";
import { strict as assert } from "node:assert";
import { Workspace } from "../workspace/workspace.ts";
import { WorkspaceResources } from "../resources/provider.ts";
import { compareListed } from "../resources/listing.ts";
import { call, textOf, toolServer } from "./tools_harness.ts";
import { stopRegexWorker } from "../tools/regex_worker.ts";
import { searchTextTool } from "../tools/search_text.ts";
import {
  scanSearch,
  scanWorkersRunning,
  setScanWorkers,
  setScanWorkerUrl,
  stopScanWorkers,
} from "../tools/scan_pool.ts";
import type { WorkspaceView } from "../workspace/roots.ts";
import type { ToolContext } from "../mcp/tool.ts";

/** Small caps, so that "oversized" files are cheap to make. */
const MAX_READ = 2048;

const NEVER = new AbortController().signal;

const DIR_NAMES = [
  "src",
  "lib",
  "build",
  "out",
  "node_modules",
  "docs",
  "a",
  "b",
  "logs",
  "tmp",
  ".hidden",
  "deep",
  "über",
  "x y",
];

const FILE_NAMES = [
  "main.ts",
  "util.js",
  "README.md",
  "a.log",
  "keep.log",
  "b.txt",
  "c.txt",
  ".env",
  "notes.tmp",
  "important.tmp",
  "Makefile",
  "x.o",
  "ñ.txt",
  "data.json",
];

const RULES = [
  "*.log",
  "!keep.log",
  "/build",
  "build/",
  "out/",
  "**/tmp",
  "docs/**/*.md",
  "a/**/b",
  "*.tmp",
  "!important.tmp",
  ".env",
  "/a/b",
  "node_modules/",
  "x.o",
  "**/deep/",
  "lib/*.js",
  "?.txt",
  "[ab].txt",
  "logs/*",
  "!logs/keep.log",
  ".hidden",
  "!src",
  "über/",
  "*.json",
  "!data.json",
  "/*.md",
  "deep/**",
  "src/**",
];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)];
}

const utf16le = (text: string) => {
  const out = new Uint8Array(2 + text.length * 2);
  out[0] = 0xff;
  out[1] = 0xfe;
  for (let i = 0; i < text.length; i++) {
    out[2 + 2 * i] = text.charCodeAt(i) & 0xff;
    out[3 + 2 * i] = text.charCodeAt(i) >> 8;
  }
  return out;
};

const utf16be = (text: string) => {
  const out = new Uint8Array(2 + text.length * 2);
  out[0] = 0xfe;
  out[1] = 0xff;
  for (let i = 0; i < text.length; i++) {
    out[2 + 2 * i] = text.charCodeAt(i) >> 8;
    out[3 + 2 * i] = text.charCodeAt(i) & 0xff;
  }
  return out;
};

/** The content of a generated file: text, binary, oversized or UTF-16. */
function content(random: () => number, path: string): Uint8Array {
  const lines: string[] = [];
  const count = 1 + Math.floor(random() * 6);
  for (let i = 0; i < count; i++) {
    lines.push(
      random() < 0.4
        ? `line ${i} of ${path}: the needle${i} is here`
        : `line ${i} of ${path}: nothing`,
    );
  }
  const text = lines.join(random() < 0.2 ? "\r\n" : "\n") +
    (random() < 0.5 ? "\n" : "");
  const kind = random();
  if (kind < 0.08) {
    // Binary: a NUL byte among the text.
    const bytes = new TextEncoder().encode(`needle\0${text}`);
    return bytes;
  }
  if (kind < 0.14) {
    // Oversized: the needle past the read cap and before it.
    return new TextEncoder().encode(
      `needle first\n${"x".repeat(MAX_READ)}\nneedle last\n`,
    );
  }
  if (kind < 0.2) return utf16le(text);
  if (kind < 0.24) return utf16be(text);
  return new TextEncoder().encode(text);
}

/** Make a tree under a new temp dir; returns the root and its sibling. */
async function generate(seed: number): Promise<{ root: string; base: string }> {
  const random = rng(seed);
  const base = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "differential_" }),
  );
  const root = `${base}/root`;
  const outside = `${base}/outside`;
  await Deno.mkdir(root);
  await Deno.mkdir(outside);
  await Deno.writeTextFile(`${outside}/secret.txt`, "needle outside\n");
  await Deno.mkdir(`${outside}/dir`);
  await Deno.writeTextFile(`${outside}/dir/f.txt`, "needle outside dir\n");
  const dirs = [""];
  for (let i = 0; i < 12; i++) {
    const parent = pick(random, dirs);
    if (parent.split("/").length > 4) continue;
    const name = pick(random, DIR_NAMES);
    const path = parent === "" ? name : `${parent}/${name}`;
    if (dirs.includes(path)) continue;
    await Deno.mkdir(`${root}/${path}`, { recursive: true });
    dirs.push(path);
  }
  const files: string[] = [];
  for (const dir of dirs) {
    const count = 1 + Math.floor(random() * 5);
    for (let i = 0; i < count; i++) {
      const name = pick(random, FILE_NAMES);
      const path = dir === "" ? name : `${dir}/${name}`;
      await Deno.writeFile(`${root}/${path}`, content(random, path));
      files.push(path);
    }
    if (random() < 0.6) {
      const rules: string[] = [];
      const count = 1 + Math.floor(random() * 5);
      for (let i = 0; i < count; i++) rules.push(pick(random, RULES));
      if (random() < 0.3) rules.push("# a comment", "");
      await Deno.writeTextFile(`${root}/${dir}/.gitignore`, rules.join("\n"));
    }
  }
  // .git is never served, whatever it holds.
  await Deno.mkdir(`${root}/.git/objects`, { recursive: true });
  await Deno.writeTextFile(`${root}/.git/config`, "needle in git\n");
  await Deno.writeTextFile(`${root}/.git/objects/x`, "needle\n");
  // Links: to files and directories inside, outside, broken, into .git.
  const links: [string, string][] = [
    [pick(random, dirs), `${root}/${pick(random, files)}`],
    [pick(random, dirs), pick(random, dirs) || "."],
    [pick(random, dirs), `${outside}/secret.txt`],
    [pick(random, dirs), `${outside}/dir`],
    [pick(random, dirs), "no-such-file"],
    [pick(random, dirs), `${root}/.git/config`],
    [pick(random, dirs), `${root}/${pick(random, dirs)}`],
  ];
  for (let i = 0; i < links.length; i++) {
    const [dir, target] = links[i];
    const name = random() < 0.3 ? "build" : `link${i}.txt`;
    const at = dir === "" ? `${root}/${name}` : `${root}/${dir}/${name}`;
    try {
      await Deno.symlink(target, at);
    } catch {
      // The name is taken by a file or directory: no link there.
    }
  }
  return { root, base };
}

// ---- The reference: plain recursion, gitignore by regular expression ----

interface RefRule {
  regex: RegExp;
  negative: boolean;
  dirOnly: boolean;
  basename: boolean;
}

function globToRegex(glob: string): string {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*" && glob[i + 1] === "*") {
      const before = i === 0 || glob[i - 1] === "/";
      const after = i + 2 === glob.length || glob[i + 2] === "/";
      if (before && after) {
        if (i + 2 === glob.length) {
          out += ".*";
        } else {
          out += "(?:.*/)?";
          i++; // The slash after.
        }
        i++;
        continue;
      }
      out += "[^/]*";
      i++;
    } else if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else if (c === "[") {
      const end = glob.indexOf("]", i + 1);
      out += `[${glob.slice(i + 1, end).replace(/^!/, "^")}]`;
      i = end;
    } else out += c.replace(/[.+^${}()|\\]/g, "\\$&");
  }
  return out;
}

/**
 * `text` with each UTF-8 byte as one character: git matches bytes (`?` is
 * one byte, so it never matches "ñ"), and so does the reference.
 */
function bytewise(text: string): string {
  return String.fromCharCode(...new TextEncoder().encode(text));
}

function parseRef(text: string): RefRule[] {
  const rules: RefRule[] = [];
  for (let line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    let negative = false;
    if (line.startsWith("!")) {
      negative = true;
      line = line.slice(1);
    }
    let dirOnly = false;
    if (line.endsWith("/")) {
      dirOnly = true;
      line = line.slice(0, -1);
    }
    const basename = !line.includes("/");
    if (line.startsWith("/")) line = line.slice(1);
    rules.push({
      regex: new RegExp(`^${globToRegex(bytewise(line))}$`),
      negative,
      dirOnly,
      basename,
    });
  }
  return rules;
}

interface RefEntry {
  relative: string;
  isFile: boolean;
  isDirectory: boolean;
}

/** What the generated trees exercised, over all seeds. */
const seen = {
  excluded: 0,
  negated: 0,
  linksKept: 0,
  linksDropped: 0,
  binary: 0,
  oversized: 0,
  utf16: 0,
};

class Reference {
  readonly root: string;
  readonly #rules = new Map<string, RefRule[]>();

  constructor(root: string) {
    this.root = root;
  }

  #rulesOf(dir: string): RefRule[] {
    let rules = this.#rules.get(dir);
    if (rules === undefined) {
      try {
        const path = dir === "" ? ".gitignore" : `${dir}/.gitignore`;
        const info = Deno.lstatSync(`${this.root}/${path}`);
        rules = info.isFile
          ? parseRef(Deno.readTextFileSync(`${this.root}/${path}`))
          : [];
      } catch {
        rules = [];
      }
      this.#rules.set(dir, rules);
    }
    return rules;
  }

  /** git's verdict on `path` alone: the deepest file's last match wins. */
  #verdict(path: string, isDir: boolean): boolean {
    const parts = path.split("/");
    for (let depth = parts.length - 1; depth >= 0; depth--) {
      const dir = parts.slice(0, depth).join("/");
      const rules = this.#rulesOf(dir);
      const rest = parts.slice(depth).join("/");
      for (let i = rules.length - 1; i >= 0; i--) {
        const rule = rules[i];
        if (rule.dirOnly && !isDir) continue;
        const subject = rule.basename ? parts[parts.length - 1] : rest;
        if (rule.regex.test(bytewise(subject))) {
          if (rule.negative) seen.negated++;
          return !rule.negative;
        }
      }
    }
    return false;
  }

  /** Excluded: itself, or any directory above it. */
  excluded(path: string, isDir: boolean): boolean {
    const parts = path.split("/");
    if (parts.includes(".git")) return true;
    for (let i = 1; i < parts.length; i++) {
      if (this.#verdict(parts.slice(0, i).join("/"), true)) return true;
    }
    return this.#verdict(path, isDir);
  }

  /** Depth-first, names in code-unit order, a directory's contents after it. */
  walk(dir = ""): RefEntry[] {
    const out: RefEntry[] = [];
    const names = [...Deno.readDirSync(`${this.root}/${dir}`)]
      .sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    for (const entry of names) {
      if (entry.name === ".git") continue;
      const relative = dir === "" ? entry.name : `${dir}/${entry.name}`;
      if (entry.isSymlink) {
        // A link is a file to git; what it leads to must be inside, not
        // in .git, and not excluded either.
        seen.linksDropped++;
        if (this.excluded(relative, false)) continue;
        let real: string;
        let info: Deno.FileInfo;
        try {
          real = Deno.realPathSync(`${this.root}/${relative}`);
          info = Deno.statSync(real);
        } catch {
          continue; // Broken.
        }
        if (real !== this.root && !real.startsWith(`${this.root}/`)) continue;
        if (info.isDirectory && this.excluded(relative, true)) continue;
        const realRelative = real.slice(this.root.length + 1);
        if (
          realRelative !== "" && this.excluded(realRelative, info.isDirectory)
        ) {
          continue;
        }
        seen.linksDropped--;
        seen.linksKept++;
        out.push({
          relative,
          isFile: info.isFile,
          isDirectory: info.isDirectory,
        });
        continue;
      }
      if (this.excluded(relative, entry.isDirectory)) {
        seen.excluded++;
        continue;
      }
      out.push({
        relative,
        isFile: entry.isFile,
        isDirectory: entry.isDirectory,
      });
      if (entry.isDirectory) out.push(...this.walk(relative));
    }
    return out;
  }

  /** What `search_text` should find for `matches` on each line. */
  search(
    matches: (line: string) => boolean,
  ): { lines: string[]; searched: number; skipped: number } {
    const lines: string[] = [];
    let searched = 0;
    let skipped = 0;
    for (const entry of this.walk()) {
      if (!entry.isFile) continue;
      const bytes = Deno.readFileSync(`${this.root}/${entry.relative}`);
      if (bytes.length > MAX_READ) {
        seen.oversized++;
        skipped++;
        continue;
      }
      let text: string;
      if (bytes[0] === 0xff && bytes[1] === 0xfe) {
        seen.utf16++;
        text = new TextDecoder("utf-16le").decode(bytes);
      } else if (bytes[0] === 0xfe && bytes[1] === 0xff) {
        seen.utf16++;
        text = new TextDecoder("utf-16be").decode(bytes);
      } else if (bytes.includes(0)) {
        seen.binary++;
        skipped++;
        continue;
      } else {
        text = new TextDecoder().decode(bytes);
      }
      searched++;
      text.split("\n").forEach((line, i) => {
        if (line.endsWith("\r")) line = line.slice(0, -1);
        if (matches(line)) lines.push(`${entry.relative}:${i + 1}:${line}`);
      });
    }
    return { lines, searched, skipped };
  }
}

// ---- The comparisons ----

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

async function withTree(
  seed: number,
  body: (root: string) => Promise<void>,
): Promise<void> {
  const { root, base } = await generate(seed);
  try {
    await body(root);
  } catch (error) {
    (error as Error).message = `seed ${seed}: ${(error as Error).message}`;
    throw error;
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}

Deno.test("differential: the walk gives what a plain reference walk gives", async () => {
  for (const seed of SEEDS) {
    await withTree(seed, async (root) => {
      const expected = new Reference(root).walk();
      const ws = await Workspace.open(root);
      const actual = [];
      for await (const entry of ws.walk()) {
        actual.push({
          relative: entry.relative,
          isFile: entry.isFile,
          isDirectory: entry.isDirectory,
        });
      }
      assert.deepEqual(actual, expected);
      // Ignored entries are there to be excluded, and some are.
      const all = new Reference(root);
      assert.ok(expected.length > 0);
      assert.ok(
        expected.every((e) => !all.excluded(e.relative, e.isDirectory)),
      );
    });
  }
});

Deno.test("differential: the walk from a subdirectory matches the reference's part", async () => {
  for (const seed of SEEDS) {
    await withTree(seed, async (root) => {
      const reference = new Reference(root).walk();
      const ws = await Workspace.open(root);
      for (const dir of reference.filter((e) => e.isDirectory)) {
        const resolved = await ws.resolve(dir.relative);
        // Reached through a link: listed under its real path; skip those.
        if (resolved.relative !== dir.relative) continue;
        if (resolved.absolute !== `${ws.root}/${dir.relative}`) continue;
        const expected = reference.filter((e) =>
          e.relative.startsWith(`${dir.relative}/`)
        );
        const actual = [];
        for await (const entry of ws.walk({ path: dir.relative })) {
          actual.push({
            relative: entry.relative,
            isFile: entry.isFile,
            isDirectory: entry.isDirectory,
          });
        }
        assert.deepEqual(actual, expected, dir.relative);
      }
    });
  }
});

Deno.test("differential: find_files, search_text and resources/list agree with the reference", async () => {
  try {
    for (const seed of SEEDS) {
      await withTree(seed, async (root) => {
        const reference = new Reference(root);
        const files = reference.walk().filter((e) => e.isFile).map((e) =>
          e.relative
        );
        const { server, session } = await toolServer(root, {
          caps: {
            maxEntries: 100_000,
            maxMatches: 100_000,
            maxReadBytes: MAX_READ,
          },
        });

        const found = await call(server, session, "find_files", {
          pattern: "**",
        });
        assert.deepEqual(
          textOf(found).split("\n").filter((l) => !l.startsWith("[")),
          files,
        );
        const txt = await call(server, session, "find_files", {
          pattern: "*.txt",
        });
        assert.deepEqual(
          textOf(txt).split("\n").filter((l) => !l.startsWith("[")),
          files.filter((f) => f.endsWith(".txt")),
        );

        const literal = reference.search((line) => line.includes("needle"));
        const searched = await call(server, session, "search_text", {
          query: "needle",
        });
        assert.deepEqual(
          textOf(searched).split("\n").filter((l) => !l.startsWith("[")),
          literal.lines,
        );
        // The files skipped are named in the last line's note; the files
        // searched, in the answer to a query that matches nowhere.
        const skippedNote = /(\d+) files? (?:was|were) skipped \(binary/.exec(
          textOf(searched),
        );
        assert.equal(Number(skippedNote?.[1] ?? 0), literal.skipped);
        const nowhere = await call(server, session, "search_text", {
          query: "no needle is ever written like this",
        });
        assert.match(
          textOf(nowhere),
          new RegExp(
            `^\\[(?:.* )?No matches in ${literal.searched} files?\\.\\]$`,
          ),
        );

        const pattern = /needle\d+ is/;
        const regex = reference.search((line) => pattern.test(line));
        const regexed = await call(server, session, "search_text", {
          query: pattern.source,
          regex: true,
        });
        const regexLines = textOf(regexed).split("\n").filter((l) =>
          !l.startsWith("[")
        );
        assert.deepEqual(regexLines, regex.lines);

        const resources = new WorkspaceResources(await Workspace.open(root), {
          maxReadBytes: MAX_READ,
          maxResources: 100_000,
        });
        const listed: string[] = [];
        let after: string | undefined;
        do {
          const page = await resources.list(after, 7, NEVER);
          listed.push(...page.resources.map((r) => r.name));
          after = page.nextKey;
        } while (after !== undefined);
        // Every file once, in the listing's order, page by page or at once.
        const whole = await resources.list(undefined, 100_000, NEVER);
        assert.equal(whole.nextKey, undefined);
        // Files over the read cap are left out: resources/read refuses them.
        const ranked = files.filter((f) =>
          Deno.statSync(`${root}/${f}`).size <= MAX_READ
        ).sort(compareListed);
        assert.deepEqual(whole.resources.map((r) => r.name), ranked);
        assert.deepEqual(listed, ranked);
      });
    }
    // The trees exercised every case at least a few times.
    for (const [what, count] of Object.entries(seen)) {
      assert.ok(count >= 3, `only ${count} of ${what} over all seeds`);
    }
  } finally {
    stopRegexWorker();
  }
});

// The workspace behind a plain view: `search_text` then takes its
// sequential path (one walk, one file after another, on this thread).
function sequentialView(ws: Workspace): WorkspaceView {
  return {
    resolve: (path) => ws.resolve(path),
    open: (target) => ws.open(target),
    readFile: (target, options) => ws.readFile(target, options),
    walk: (options) => ws.walk(options),
  };
}

Deno.test("differential: search_text through scan workers answers exactly as the sequential scan, wherever the cap falls", async () => {
  const ctx = { signal: NEVER, reportProgress() {} } as unknown as ToolContext;
  const queries: Record<string, unknown>[] = [
    { query: "needle" },
    { query: "NEEDLE", caseSensitive: false },
    { query: "needle\\d+ is", regex: true },
    { query: "NEEDLE\\d", regex: true, caseSensitive: false },
    { query: "needle", glob: "*.txt" },
    { query: "no such text anywhere" },
  ];
  const limits = [1, 4, 100_000];
  try {
    for (const seed of SEEDS.slice(0, 4)) {
      await withTree(seed, async (root) => {
        const reference = new Reference(root);
        const ws = await Workspace.open(root);
        const dirs = reference.walk().filter((e) => e.isDirectory).map((e) =>
          e.relative
        );
        const paths = ["", ...dirs.slice(0, 1)];
        for (const limit of limits) {
          const caps = { maxMatches: limit, maxReadBytes: MAX_READ };
          const sequential = searchTextTool(sequentialView(ws), caps);
          const parallel = searchTextTool(ws, caps);
          for (const path of paths) {
            for (const query of queries) {
              const args = { ...query, path };
              const expected = await sequential.run(args, ctx);
              for (const workers of [1, 3]) {
                setScanWorkers(workers);
                const actual = await parallel.run(args, ctx);
                const what = `${
                  JSON.stringify(args)
                }, limit ${limit}, ${workers} workers`;
                // Capped regex searches too: both match file by file and
                // stop after the file that fills the cap, so even the
                // counts agree.
                assert.deepEqual(actual, expected, what);
              }
            }
          }
        }
        // Uncapped, every way agrees with the reference too.
        const literal = reference.search((line) => line.includes("needle"));
        for (const mainThread of [false, true]) {
          const outcome = await scanSearch(ws, "", {
            query: "needle",
            caseSensitive: true,
            maxReadBytes: MAX_READ,
            limit: 100_000,
            maxLineChars: 100_000,
          }, { signal: NEVER, budgetMs: 60_000, mainThread });
          assert.deepEqual(
            outcome.matches.map((m) => `${m.path}:${m.line}:${m.text}`),
            literal.lines,
          );
          assert.equal(outcome.searched, literal.searched);
          assert.equal(outcome.skipped, literal.skipped);
        }
      });
    }
    assert.ok(scanWorkersRunning() > 0, "the scans ran in workers");
  } finally {
    setScanWorkers(2);
    stopScanWorkers();
    stopRegexWorker();
  }
});

Deno.test("differential: a scan worker that cannot start or that crashes never fails the search; the main thread answers alike", async () => {
  const ctx = { signal: NEVER, reportProgress() {} } as unknown as ToolContext;
  const module = (code: string) =>
    new URL(`data:application/javascript,${encodeURIComponent(code)}`);
  const broken = [
    // Fails while loading.
    module("throw new Error('cannot load');"),
    // Starts, then throws on its first job.
    module(
      "self.postMessage({ id: -1, ready: true }); self.onmessage = () => { throw new Error('crashed'); };",
    ),
    // Starts, then answers every job with an error.
    module(
      "self.postMessage({ id: -1, ready: true }); self.onmessage = (e) => self.postMessage({ id: e.data.id, error: 'failed' });",
    ),
  ];
  try {
    await withTree(3, async (root) => {
      const ws = await Workspace.open(root);
      const caps = { maxMatches: 5, maxReadBytes: MAX_READ };
      const args = { query: "needle" };
      const expected = await searchTextTool(sequentialView(ws), caps).run(
        args,
        ctx,
      );
      assert.ok(
        !textOf(expected).startsWith("[No matches"),
        "the tree has matches",
      );
      for (const url of broken) {
        setScanWorkerUrl(url);
        const actual = await searchTextTool(ws, caps).run(args, ctx);
        assert.deepEqual(actual, expected, url.href.slice(0, 80));
      }
    });
  } finally {
    setScanWorkerUrl(undefined);
    stopRegexWorker();
  }
});
