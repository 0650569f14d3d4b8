/**
 * Floors of the tree workloads: what a bare Deno (and Node) program costs to
 * walk the bench tree and to open and read every file in it, next to `find`
 * and `rg --files`, so that a target can be told reachable or not in Deno at
 * all. Each contender is a fresh process, timed from spawn to exit; rounds
 * are interleaved and the medians printed.
 *
 * ```sh
 * deno task bench:floors [--tree /tmp/shipcode-bench-trees/linux] [--runs 5]
 * ```
 *
 * The children are this module run with `--child KIND ROOT`.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { withUsage } from "./usage.ts";
import { IgnoreRules } from "../workspace/gitignore.ts";

const SELF = new URL(import.meta.url).pathname;

/** Every file of `root` (no `.git`), walked with `Deno.readDirSync`. */
function denoWalk(root: string, rules: boolean, visit: (p: string) => void) {
  interface Level {
    rules: IgnoreRules;
    offset: number;
  }
  const levels: Level[] = [];
  const excluded = (path: string, dir: boolean, count: number) => {
    for (let i = count - 1; i >= 0; i--) {
      const v = levels[i].rules.verdictOf(path.slice(levels[i].offset), dir);
      if (v !== undefined) return v;
    }
    return false;
  };
  const walk = (dir: string, rel: string, count: number) => {
    const entries = [...Deno.readDirSync(dir)];
    entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    if (rules && entries.some((e) => e.name === ".gitignore" && e.isFile)) {
      const text = Deno.readFileSync(`${dir}/.gitignore`);
      levels.length = count;
      levels.push({
        rules: IgnoreRules.parse(text),
        offset: rel === "" ? 0 : rel.length + 1,
      });
      count++;
    }
    for (const e of entries) {
      if (e.name === ".git") continue;
      const path = rel === "" ? e.name : `${rel}/${e.name}`;
      if (rules && excluded(path, e.isDirectory, count)) continue;
      if (e.isDirectory) walk(`${dir}/${e.name}`, path, count);
      else if (e.isFile) visit(`${dir}/${e.name}`);
    }
  };
  walk(root, "", 0);
}

async function child(kind: string, root: string): Promise<void> {
  let n = 0;
  if (kind === "walk") denoWalk(root, false, () => n++);
  else if (kind === "walk+rules") denoWalk(root, true, () => n++);
  else if (kind === "read") {
    // open + read (up to 1 MiB) + close of every file, Deno's sync file API.
    const buffer = new Uint8Array(1 << 20);
    denoWalk(root, false, (path) => {
      using file = Deno.openSync(path);
      file.readSync(buffer);
      n++;
    });
  } else if (kind === "read-nodefs") {
    // The same through node:fs, as the server's secure_fs does.
    const fs = await import("node:fs");
    const buffer = new Uint8Array(1 << 20);
    denoWalk(root, false, (path) => {
      const fd = fs.openSync(path, fs.constants.O_RDONLY);
      fs.readSync(fd, buffer, 0, buffer.length, 0);
      fs.closeSync(fd);
      n++;
    });
  } else throw new Error(`unknown child kind ${kind}`);
  console.log(n);
}

const NODE_WALK = `
const fs = require("fs");
const read = process.argv[1] === "read";
const buffer = Buffer.alloc(1 << 20);
let n = 0;
function walk(dir) {
  const entries = fs.readdirSync(dir, { withFileTypes: true });
  entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  for (const e of entries) {
    if (e.name === ".git") continue;
    const p = dir + "/" + e.name;
    if (e.isDirectory()) walk(p);
    else if (e.isFile()) {
      if (read) {
        const fd = fs.openSync(p, "r");
        fs.readSync(fd, buffer, 0, buffer.length, 0);
        fs.closeSync(fd);
      }
      n++;
    }
  }
}
walk(process.argv[2]);
console.log(n);
`;

interface Contender {
  name: string;
  cmd: string[];
}

function contenders(root: string): Contender[] {
  const deno = (perm: string, kind: string): Contender => ({
    name: `deno ${kind} ${
      perm === `--allow-read=${root}` ? "--allow-read=ROOT" : perm
    }`,
    cmd: ["deno", "run", "--no-prompt", perm, SELF, "--child", kind, root],
  });
  return [
    { name: "find -type f", cmd: ["find", root, "-type", "f"] },
    {
      name: "rg --files",
      cmd: ["rg", "--files", "-L", "--hidden", "--no-require-git", root],
    },
    deno("-A", "walk"),
    deno("-A", "walk+rules"),
    { name: "node walk", cmd: ["node", "-e", NODE_WALK, "walk", root] },
    deno(`--allow-read=${root}`, "read"),
    deno("--allow-read", "read"),
    deno("-A", "read"),
    deno("--allow-read", "read-nodefs"),
    deno("-A", "read-nodefs"),
    { name: "node read", cmd: ["node", "-e", NODE_WALK, "read", root] },
  ];
}

async function time(c: Contender): Promise<number> {
  const start = performance.now();
  const out = await new Deno.Command(c.cmd[0], {
    args: c.cmd.slice(1),
    stdout: "null",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`${c.name} failed`);
  return performance.now() - start;
}

function median(xs: number[]): number {
  const s = xs.toSorted((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** What `--help` prints. */
const USAGE = `deno task bench:floors [--tree DIR] [--runs N]

What Deno itself costs on a tree (bare walks, reads under each permission
mode) beside find, rg --files and Node; bench/README.md ("Floors") says more.`;

async function floors(): Promise<number> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      tree: { type: "string", default: "/tmp/shipcode-bench-trees/linux" },
      runs: { type: "string", default: "5" },
      child: { type: "string" },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.child !== undefined) {
    const root = Deno.args[Deno.args.length - 1];
    await child(values.child, root);
    return 0;
  }
  const list = contenders(values.tree);
  const samples = new Map<string, number[]>(list.map((c) => [c.name, []]));
  for (let round = 0; round < Number(values.runs); round++) {
    for (const c of list.toSorted(() => Math.random() - 0.5)) {
      samples.get(c.name)!.push(await time(c));
    }
  }
  const rg = median(samples.get("rg --files")!);
  console.log(`| floor | median | ÷ rg --files |\n|---|---|---|`);
  for (const c of list) {
    const m = median(samples.get(c.name)!);
    console.log(`| ${c.name} | ${m.toFixed(0)} ms | ${(m / rg).toFixed(2)}× |`);
  }
  return 0;
}

if (import.meta.main) {
  Deno.exit(await withUsage("bench:floors", Deno.args, USAGE, floors));
}
