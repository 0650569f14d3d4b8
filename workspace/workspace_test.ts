/**
 * The workspace over the fixture tree (open, resolve, ignore rules, walk),
 * and against a hostile tree: swap races, FIFOs, absurd paths, link
 * fan-out, unreadable, vanishing and oddly named entries, and the walk's
 * fairness to the event loop and cost per page.
 */

import { strict as assert } from "node:assert";
import { lstatCalls } from "./lstat_calls.ts";
import {
  MAX_PATH_BYTES,
  type WalkEntry,
  walkSkips,
  Workspace,
  WorkspaceError,
} from "./workspace.ts";
import { canMakeFifo, NO_FIFO, programRuns } from "../tests/have_program.ts";
import { makeTempWorkspace } from "../tests/tools_fixture.ts";
import {
  canDropPrivileges,
  lockedTree,
  runUnprivileged,
  UNPRIVILEGED_HOW,
} from "../tests/unprivileged.ts";

const SECRET = "SECRET-OUTSIDE-THE-ROOT-4c1d";
const INSIDE = "inside the root\n";

async function tempBase(): Promise<string> {
  return await Deno.realPath(
    await Deno.makeTempDir({ prefix: "shipcode-ws-sec-" }),
  );
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof WorkspaceError) return error.code;
    throw error;
  }
  return "resolved";
}

async function walkAll(
  ws: Workspace,
  options: Parameters<Workspace["walk"]>[0] = {},
): Promise<WalkEntry[]> {
  const out: WalkEntry[] = [];
  for await (const entry of ws.walk(options)) out.push(entry);
  return out;
}

/** The walk as `depth relative` lines, directories with a trailing `/`. */
async function walkLines(
  ws: Workspace,
  options: Parameters<Workspace["walk"]>[0] = {},
): Promise<string[]> {
  return (await walkAll(ws, options)).map((entry) =>
    `${entry.depth} ${entry.relative}${entry.isDirectory ? "/" : ""}`
  );
}

/**
 * A child process that, until the file `stop` exists (at most two
 * minutes), swaps `root/dir` between a real directory and a link to a
 * directory outside, and `root/f.txt` between a real file and a link to a
 * file outside, as fast as it can: by three renames, or (`exchange`)
 * atomically with renameat2(RENAME_EXCHANGE). It prints how many swaps.
 */
function startSwapper(
  root: string,
  stop: string,
  exchange: boolean,
): Deno.ChildProcess {
  if (exchange) {
    return new Deno.Command("python3", {
      args: ["-c", EXCHANGER, root, stop],
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
  }
  const script = `
    const [root, stop] = Deno.args;
    const end = Date.now() + 120_000;
    const stopped = () => {
      try {
        Deno.statSync(stop);
        return true;
      } catch {
        return false;
      }
    };
    const swap = (a, b, c) => {
      try { Deno.renameSync(a, c); Deno.renameSync(b, a); Deno.renameSync(c, b); } catch {}
    };
    let flips = 0;
    const pause = new Int32Array(new SharedArrayBuffer(4)); let turns = 0;
    while (Date.now() < end) {
      swap(root + "/dir", root + "/dir.link", root + "/dir.tmp");
      swap(root + "/f.txt", root + "/f.link", root + "/f.tmp");
      flips++;
      if (++turns % 5 === 0) Atomics.wait(pause, 0, 0, 1); // Leave the other core some time.
      if (turns % 50 === 0 && stopped()) break;
    }
    console.log(flips);
  `;
  return new Deno.Command(Deno.execPath(), {
    args: ["eval", script, root, stop],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
}

// Atomic swaps: no moment where the name is missing, and no pause.
const EXCHANGER = `
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
root, stop = sys.argv[1], sys.argv[2]
pairs = [(root + "/dir", root + "/dir.link"), (root + "/f.txt", root + "/f.link")]
pairs = [(a.encode(), b.encode()) for a, b in pairs]
end = time.time() + 120
flips = 0
while time.time() < end and not os.path.exists(stop):
    for _ in range(50):
        for a, b in pairs:
            libc.renameat2(-100, a, -100, b, 2)
        flips += 1
    time.sleep(0.001)
print(flips)
`;

const hasExchange = await programRuns("python3", [
  "-c",
  "import ctypes; ctypes.CDLL(None).renameat2",
]);

async function swapTree(): Promise<{ base: string; root: string }> {
  const base = await tempBase();
  const root = `${base}/root`;
  await Deno.mkdir(`${base}/outside`, { recursive: true });
  await Deno.writeTextFile(`${base}/outside/file.txt`, `${SECRET}\n`);
  await Deno.writeTextFile(`${base}/outside/only-outside.txt`, `${SECRET}\n`);
  await Deno.writeTextFile(`${base}/secret.txt`, `${SECRET}\n`);
  await Deno.mkdir(`${root}/dir`, { recursive: true });
  await Deno.writeTextFile(`${root}/dir/file.txt`, INSIDE);
  await Deno.writeTextFile(`${root}/f.txt`, INSIDE);
  await Deno.symlink("../outside", `${root}/dir.link`);
  await Deno.symlink("../secret.txt", `${root}/f.link`);
  return { base, root };
}

// /proc/self/fd paths need --allow-all under Deno's permission checks.
const procUsable = (() => {
  try {
    Deno.statSync("/proc/self/fd/0");
    return true;
  } catch {
    return false;
  }
})();

const SWAP_VARIANTS = [
  {
    descriptorPaths: true,
    exchange: false,
    label: "descriptor paths",
    skip: procUsable ? "" : "skipped: /proc/self/fd needs --allow-all",
  },
  {
    descriptorPaths: false,
    exchange: false,
    label: "re-checked opens",
    skip: "",
  },
  {
    descriptorPaths: false,
    exchange: true,
    label: "re-checked opens, atomic exchanges",
    skip: hasExchange ? "" : "skipped: needs python3 and renameat2",
  },
];

for (const { descriptorPaths, exchange, label, skip } of SWAP_VARIANTS) {
  Deno.test(
    {
      name: `swap race: no byte from outside ever comes back (${label}${
        skip ? `: ${skip}` : ""
      })`,
      ignore: skip !== "",
    },
    async () => {
      const { base, root } = await swapTree();
      const ws = await Workspace.open(root, { descriptorPaths });
      assert.equal(await ws.descriptorPaths(), descriptorPaths);
      const decoder = new TextDecoder();
      const swapper = startSwapper(root, `${base}/stop`, exchange);
      let inside = 0;
      let calls = 0;
      const minInside = exchange ? 0 : 20;
      const seen = (text: string, where: string) => {
        assert.ok(!text.includes(SECRET), `secret leaked through ${where}`);
        assert.ok(!text.includes("only-outside"), `outside listed: ${where}`);
        if (text.includes("inside the root")) inside++;
      };
      // At least 3 s of calls racing the swaps, and as long as it takes a
      // loaded machine to make enough of them to tell (at most a minute).
      const started = Date.now();
      const racing = () => {
        const elapsed = Date.now() - started;
        return elapsed < 3000 ||
          elapsed < 60_000 && (calls <= 200 || inside <= minInside);
      };
      try {
        while (racing()) {
          // A breath per round, for other tests sharing the machine.
          await new Promise((resolve) => setTimeout(resolve, 1));
          for (const path of ["dir/file.txt", "f.txt"]) {
            calls++;
            try {
              const read = await ws.readFile(path, { maxBytes: 4096 });
              seen(decoder.decode(read.bytes), `readFile ${path}`);
              assert.equal(read.info.size, INSIDE.length, "an outside size");
            } catch (error) {
              if (!(error instanceof WorkspaceError)) throw error;
            }
          }
          calls++;
          try {
            for await (const entry of ws.walk({ path: "dir", sizes: true })) {
              seen(entry.relative, "walk");
              if (!entry.isFile) continue;
              assert.equal(entry.size, INSIDE.length, "an outside size");
              try {
                const read = await ws.readFile(entry, { maxBytes: 4096 });
                seen(decoder.decode(read.bytes), `walk read ${entry.relative}`);
              } catch (error) {
                if (!(error instanceof WorkspaceError)) throw error;
              }
            }
          } catch (error) {
            if (!(error instanceof WorkspaceError)) throw error;
          }
          for await (const entry of ws.walk()) {
            seen(entry.relative, "root walk");
          }
        }
      } finally {
        await Deno.writeTextFile(`${base}/stop`, "");
        const flips = Number(
          new TextDecoder().decode((await swapper.output()).stdout),
        );
        await Deno.remove(base, { recursive: true });
        assert.ok(flips > 100, `the swapper only flipped ${flips} times`);
      }
      assert.ok(calls > 200, `only ${calls} calls`);
      assert.ok(inside > minInside, `only ${inside} reads saw the inside file`);
    },
  );
}

// Root may give a directory to another user (the times-put-back case).
const asRoot = Deno.uid() === 0;

// The luckiest adversary a loop of swaps can be, as `variant` says:
// - "in step": before each look at the directory or through it, the tree
//   is put in whichever state that look must see to pass (dir a link out
//   when the file is looked at, a real directory when the directory is);
// - "times put back": the same, in a directory of another user than the
//   root's owner, who sets its times back after each swap (utimes), all
//   within one second;
// - "times put back, tree of another user": the same, with the root also
//   that user's (the server's own user is the one trusted, not the
//   root's owner);
// - "kept descriptor": the same, after a walk's lookup of the file (an
//   open checked after the fact) under the same swaps.
for (
  const variant of [
    "in step",
    "times put back",
    "times put back, tree of another user",
    "kept descriptor",
  ]
) {
  const timed = variant.startsWith("times put back");
  const skip = timed && !asRoot
    ? ": skipped: needs root to give a directory to another user"
    : "";
  Deno.test({
    name:
      `swap race: a read by path whose every check falls in step with the swaps still gets no outside byte (re-checked opens, ${variant}${skip})`,
    ignore: skip !== "",
  }, async () => {
    if (timed) {
      // Just past a second's start: the whole race fits in that second.
      while (Date.now() % 1000 > 50) {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    }
    const { base, root } = await swapTree();
    // Where the swaps happen: the root, or a directory of another user.
    let parent = root;
    let owned = false;
    if (timed) {
      parent = `${root}/sub`;
      await Deno.mkdir(parent);
      await Deno.rename(`${root}/dir`, `${parent}/dir`);
      await Deno.symlink("../../outside", `${parent}/dir.link`);
      await Deno.chown(parent, 65534, 65534);
      if (variant.endsWith("another user")) {
        for (const path of [root, `${parent}/dir`]) {
          await Deno.chown(path, 65534, 65534);
        }
      }
      owned = true;
    }
    if (variant === "kept descriptor") {
      // Only a file unchanged for a while keeps its descriptor.
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const path = `${parent.slice(root.length + 1)}${
      parent === root ? "" : "/"
    }dir/file.txt`;
    const ws = await Workspace.open(root, { descriptorPaths: false });
    const decoder = new TextDecoder();
    const read = () =>
      ws.readFile(path, { maxBytes: 4096 }).then(
        (result) => decoder.decode(result.bytes),
        (error) => {
          if (!(error instanceof WorkspaceError)) throw error;
          return `refused: ${error.message}`;
        },
      );
    const lstat = Deno.lstatSync;
    let out = false;
    let swaps = 0;
    let parentTimes: Deno.FileInfo | undefined;
    const swap = () => {
      Deno.renameSync(`${parent}/dir`, `${parent}/dir.tmp`);
      Deno.renameSync(`${parent}/dir.link`, `${parent}/dir`);
      Deno.renameSync(`${parent}/dir.tmp`, `${parent}/dir.link`);
      if (parentTimes?.atime && parentTimes.mtime) {
        Deno.utimeSync(parent, parentTimes.atime, parentTimes.mtime);
      }
      out = !out;
      swaps++;
    };
    const inStep = (looked: string | URL) => {
      const wanted = looked === `${parent}/dir/file.txt`
        ? true
        : looked === `${parent}/dir`
        ? false
        : out;
      if (wanted !== out) swap();
      return lstat(looked);
    };
    const stubbed = Deno as { lstatSync: typeof Deno.lstatSync };
    try {
      assert.equal(await read(), INSIDE, "a calm read");
      if (owned) parentTimes = lstat(parent);
      if (variant === "kept descriptor") {
        stubbed.lstatSync = inStep;
        try {
          for await (const _ of ws.walk({ path })) {
            // A file: the walk refuses it, after looking it up.
          }
        } catch (error) {
          if (!(error instanceof WorkspaceError)) throw error;
        }
      }
      stubbed.lstatSync = inStep;
      const text = await read();
      stubbed.lstatSync = lstat;
      assert.ok(swaps > 0, "the adversary never had a turn");
      assert.ok(!text.includes(SECRET), `secret leaked: ${text}`);
      parentTimes = undefined;
      if (out) swap();
      // Once the swaps stop, the same read gets the file again.
      assert.equal(await read(), INSIDE, "a read after the swaps");
    } finally {
      stubbed.lstatSync = lstat;
      await Deno.remove(base, { recursive: true });
    }
  });
}

const hasMkfifo = await canMakeFifo();

Deno.test({
  name: `a FIFO is opened without blocking and refused as not a file${
    hasMkfifo ? "" : ` (${NO_FIFO})`
  }`,
  ignore: !hasMkfifo,
}, async () => {
  const base = await tempBase();
  try {
    assert.ok(await programRuns("mkfifo", [`${base}/pipe`]), "mkfifo failed");
    await Deno.writeTextFile(`${base}/ok.txt`, INSIDE);
    const ws = await Workspace.open(base);
    const started = performance.now();
    using handle = await ws.open("pipe");
    assert.equal(handle.info.isFifo, true);
    assert.equal(
      await codeOf(ws.readFile("pipe", { maxBytes: 10 })),
      "not_a_file",
    );
    const entries = await walkAll(ws, { sizes: true });
    const pipe = entries.find((e) => e.relative === "pipe");
    assert.ok(pipe !== undefined && !pipe.isFile && !pipe.isDirectory);
    assert.equal(
      await codeOf(ws.readFile(pipe, { maxBytes: 10 })),
      "not_a_file",
    );
    assert.ok(performance.now() - started < 5000);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("absurd paths are refused at once, before any lookup", async () => {
  const base = await tempBase();
  try {
    await Deno.mkdir(`${base}/a`);
    const ws = await Workspace.open(base);
    await ws.resolve(""); // Load and open the root first.
    for (
      const path of [
        "a/".repeat(20_000),
        "a/".repeat(300),
        "x".repeat(MAX_PATH_BYTES + 1),
      ]
    ) {
      const started = performance.now();
      assert.equal(await codeOf(ws.resolve(path)), "invalid");
      assert.equal(await codeOf(ws.readFile(path, { maxBytes: 1 })), "invalid");
      // Seconds, not ms: a loaded machine may stall any call for a moment;
      // a lookup per segment or a quadratic check of the 40 KB path is
      // caught by the codes above, one quadratic in the length takes seconds.
      assert.ok(performance.now() - started < 2000, "slow refusal");
    }
    // Long but legal: resolution stays linear (missing after the first).
    const started = performance.now();
    assert.equal(await codeOf(ws.resolve("b/".repeat(250))), "not_found");
    assert.equal(await codeOf(ws.resolve("a/".repeat(250))), "not_found");
    assert.ok(performance.now() - started < 2000, "slow lookup");
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("link fan-out: 30 levels of two links each walk in bounded time, each directory once", async () => {
  const base = await tempBase();
  try {
    for (let level = 0; level < 30; level++) {
      await Deno.mkdir(`${base}/l${level}`);
      await Deno.writeTextFile(`${base}/l${level}/f.txt`, `${level}\n`);
      if (level < 29) {
        await Deno.symlink(`../l${level + 1}`, `${base}/l${level}/x`);
        await Deno.symlink(`../l${level + 1}`, `${base}/l${level}/y`);
      }
    }
    // A chain that starts outside the walked directory: through links only.
    await Deno.mkdir(`${base}/top`);
    await Deno.symlink("../l0", `${base}/top/a`);
    await Deno.symlink("../l0", `${base}/top/b`);
    const ws = await Workspace.open(base);
    const started = performance.now();
    const entries = await walkAll(ws);
    const files = entries.filter((e) => e.isFile).map((e) => e.relative);
    assert.equal(files.length, 30);
    assert.equal(new Set(files).size, 30);
    for (const walked of ["top", "l0/x", "top/a/x/y"]) {
      const sub = await walkAll(ws, { path: walked });
      assert.ok(sub.length <= 4, `${walked}: ${sub.length} entries`);
    }
    assert.ok(performance.now() - started < 10_000, "fan-out walk too slow");
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("bad entries are skipped and counted: non-UTF-8 names, too deep, vanished", async () => {
  const base = await tempBase();
  try {
    await Deno.writeTextFile(`${base}/ok.txt`, INSIDE);
    await Deno.writeTextFile(`${base}/real\uFFFD.txt`, INSIDE);
    // A name that is not UTF-8, and a subtree deeper than PATH_MAX: both
    // made by a child, since a JS string cannot hold the one and a path
    // cannot reach the other.
    const bad = await new Deno.Command("sh", {
      args: ["-c", `printf x > "$1/bad$(printf '\\377').txt"`, "sh", base],
    }).output();
    assert.ok(bad.success, "could not make a non-UTF-8 name");
    const script = `
      Deno.chdir(Deno.args[0]);
      Deno.mkdirSync("deep");
      Deno.chdir("deep");
      for (let i = 0; i < 20; i++) {
        Deno.mkdirSync("d".repeat(250));
        Deno.chdir("d".repeat(250));
      }
      Deno.writeTextFileSync("leaf.txt", "x");
    `;
    const made = await new Deno.Command(Deno.execPath(), {
      args: ["eval", script, base],
    }).output();
    assert.ok(made.success, new TextDecoder().decode(made.stderr));
    const ws = await Workspace.open(base);
    const skips = walkSkips();
    const entries = await walkAll(ws, { skips, sizes: true });
    const names = entries.map((e) => e.relative);
    assert.ok(names.includes("ok.txt"));
    assert.ok(names.includes("real\uFFFD.txt"));
    assert.ok(!names.some((n) => n.startsWith("bad")), "lossy name listed");
    assert.equal(skips.badNames, 1);
    assert.ok(skips.tooDeep >= 1, "deep subtree not counted");
    assert.ok(
      entries.every((e) =>
        new TextEncoder().encode(e.relative).length <= MAX_PATH_BYTES
      ),
    );
    // What is listed reads back exactly as given.
    for (const entry of entries.filter((e) => e.isFile)) {
      await ws.readFile(entry.relative, { maxBytes: 100 });
    }
    // Vanishing mid-walk: delete everything after the walk has listed it.
    const iterator = ws.walk({ sizes: true, skips });
    const first = await iterator.next();
    assert.equal(first.done, false);
    await Deno.remove(`${base}/real\uFFFD.txt`);
    await Deno.remove(`${base}/deep`, { recursive: true });
    const rest: string[] = [];
    for await (const entry of iterator) rest.push(entry.relative);
    assert.ok(!rest.includes("real\uFFFD.txt"));
    assert.ok(skips.vanished >= 1, "vanished entry not counted");
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("names with ':' and '\\' are listed and read back; so is a root with '\\'", async () => {
  const base = await tempBase();
  try {
    const root = `${base}/C:\\back\\slash root`;
    await Deno.mkdir(root);
    const names = [
      "notes:v2.md",
      "C:\\temp.txt",
      "back\\slash.txt",
      "a\\..\\b",
    ];
    for (const name of names) await Deno.writeTextFile(`${root}/${name}`, name);
    const ws = await Workspace.open(root);
    const listed = (await walkAll(ws)).map((e) => e.relative).sort();
    assert.deepEqual(listed, [...names].sort());
    for (const name of names) {
      const read = await ws.readFile(name, { maxBytes: 100 });
      assert.equal(new TextDecoder().decode(read.bytes), name);
    }
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("walk gives the event loop a turn every few milliseconds and stops on abort", async () => {
  const base = await tempBase();
  try {
    for (let d = 0; d < 100; d++) {
      await Deno.mkdir(`${base}/d${d}`);
      for (let f = 0; f < 300; f++) {
        await Deno.writeFile(`${base}/d${d}/f${f}.txt`, new Uint8Array());
      }
    }
    const ws = await Workspace.open(base);
    // Counted in entries, not ms: the walk gives a turn every 8 ms of wall
    // time, so on a loaded machine each turn comes after fewer entries,
    // never more. With the consumer's 10 µs per entry, 8 ms is at most 800
    // entries; a walk that never yields goes all 30,100 without a turn.
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    let entries = 0;
    let sinceTick = 0;
    let mostWithoutTurn = 0;
    let lastTicks = 0;
    try {
      for await (const _ of ws.walk({ sizes: true })) {
        entries++;
        if (ticks === lastTicks) sinceTick++;
        else [lastTicks, sinceTick] = [ticks, 1];
        mostWithoutTurn = Math.max(mostWithoutTurn, sinceTick);
        // The consumer's own synchronous work counts too.
        const until = performance.now() + 0.01;
        while (performance.now() < until) { /* busy */ }
      }
    } finally {
      clearInterval(timer);
    }
    assert.equal(entries, 100 * 301);
    assert.ok(ticks > 0, "no timer turn during the walk");
    assert.ok(
      mostWithoutTurn <= 5_000,
      `${mostWithoutTurn} entries in a row without a timer turn`,
    );
    // Abort from a timer: the walk notices within a few milliseconds.
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("stop")), 20);
    let aborted = 0;
    await assert.rejects(
      (async () => {
        for await (const _ of ws.walk({ signal: controller.signal })) {
          const until = performance.now() + 0.01;
          while (performance.now() < until) { /* busy */ }
        }
      })().finally(() => aborted = performance.now()),
      /stop/,
    );
    assert.ok(aborted > 0);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("paging with `after` reuses the sorted listing of a large directory", async () => {
  const base = await tempBase();
  const readDirSync = Deno.readDirSync;
  try {
    for (let f = 0; f < 5000; f++) {
      await Deno.writeFile(
        `${base}/f${String(f).padStart(5, "0")}`,
        new Uint8Array(),
      );
    }
    // Older than the "racy" window, so the listing may be kept.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ws = await Workspace.open(base);
    let reads = 0;
    Deno.readDirSync = (path: string | URL) => {
      reads++;
      return readDirSync(path);
    };
    let after: string | undefined;
    const pages: string[][] = [];
    for (let page = 0; page < 50; page++) {
      const names: string[] = [];
      for await (const entry of ws.walk({ after })) {
        names.push(entry.relative);
        if (names.length === 100) break;
      }
      pages.push(names);
      after = names[names.length - 1];
    }
    assert.equal(pages.flat().length, 5000);
    assert.equal(new Set(pages.flat()).size, 5000);
    assert.ok(reads <= 4, `the directory was read ${reads} times for 50 pages`);
    // A change to the directory is seen by the next page.
    await Deno.writeFile(`${base}/zzz`, new Uint8Array());
    const last: string[] = [];
    for await (const entry of ws.walk({ after: "f04999" })) {
      last.push(entry.relative);
    }
    assert.deepEqual(last, ["zzz"]);
  } finally {
    Deno.readDirSync = readDirSync;
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("12,000 distinct missing deep paths leave memory flat", async () => {
  const base = await tempBase();
  try {
    await Deno.writeTextFile(`${base}/.gitignore`, "*.log\n");
    const ws = await Workspace.open(base);
    await ws.resolve("");
    const heap = () => Deno.memoryUsage().heapUsed;
    const before = heap();
    for (let i = 0; i < 12_000; i++) {
      const path = Array.from({ length: 60 }, (_, j) => `p${i}x${j}`).join("/");
      assert.equal(await codeOf(ws.resolve(path)), "not_found");
    }
    const grown = heap() - before;
    assert.ok(grown < 40 * 1024 * 1024, `heap grew by ${grown} bytes`);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test({
  name:
    `without permission: unreadable entries are skipped and counted (${UNPRIVILEGED_HOW})`,
  ignore: !canDropPrivileges,
  async fn() {
    const base = await lockedTree("shipcode-ws-sec-");
    try {
      const result = await runUnprivileged(
        `
        const { Workspace, walkSkips, WorkspaceError } = await import(Deno.args[0]);
        const ws = await Workspace.open(Deno.args[1]);
        const skips = walkSkips();
        const listed = [];
        for await (const e of ws.walk({ skips, sizes: true })) listed.push(e.relative);
        let code = "read";
        try { await ws.readFile("locked.txt", { maxBytes: 100 }); }
        catch (error) { code = error instanceof WorkspaceError ? error.code : String(error); }
        // A walk of the directory that cannot be opened fails as unreadable.
        let walkCode = "walked";
        try { for await (const _ of ws.walk({ path: "locked_dir" })) {} }
        catch (error) { walkCode = error instanceof WorkspaceError ? error.code : String(error); }
        console.log(JSON.stringify({ uid: Deno.uid(), listed, skips, code, walkCode }));
      `,
        [new URL("./workspace.ts", import.meta.url).href, base],
      ) as {
        listed: string[];
        skips: { unreadable: number };
        code: string;
        walkCode: string;
      };
      assert.deepEqual(result.listed, [
        "locked.txt",
        "locked_dir",
        "ok.txt",
        "sub",
        "sub/y.txt",
      ]);
      assert.equal(result.skips.unreadable, 1);
      assert.equal(result.code, "unreadable");
      assert.equal(result.walkCode, "unreadable");
    } finally {
      await Deno.chmod(`${base}/locked_dir`, 0o755).catch(() => {});
      await Deno.remove(base, { recursive: true });
    }
  },
});

Deno.test("links whose targets end in '/' or '/.' resolve to the directory, open", async () => {
  const base = await tempBase();
  try {
    await Deno.mkdir(`${base}/d/e`, { recursive: true });
    await Deno.writeTextFile(`${base}/d/e/f.txt`, INSIDE);
    await Deno.symlink("d/e/", `${base}/slash`);
    await Deno.symlink("d/e/.", `${base}/dot`);
    await Deno.symlink("d/../d/e//", `${base}/messy`);
    const ws = await Workspace.open(base);
    for (const link of ["slash", "dot", "messy"]) {
      const resolved = await ws.resolve(link);
      assert.ok(resolved.info.isDirectory, link);
      assert.equal(resolved.absolute, `${base}/d/e`);
      const entries = await walkAll(ws, { path: link, sizes: true });
      assert.deepEqual(entries.map((e) => e.relative), [`${link}/f.txt`]);
      assert.equal(entries[0].size, INSIDE.length);
    }
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

// The fixture workspace (tests/fixtures/ws): open, resolve, ignore, walk.

Deno.test("Workspace.open makes the root real and refuses non-directories", async () => {
  await using tmp = await makeTempWorkspace();
  const ws = await Workspace.open(`${tmp.root}/src/..`);
  assert.equal(ws.root, tmp.root);
  assert.equal(ws.includeIgnored, false);
  await assert.rejects(
    Workspace.open(`${tmp.root}/README.md`),
    (e: unknown) => e instanceof WorkspaceError && e.code === "not_a_directory",
  );
  await assert.rejects(
    Workspace.open(`${tmp.root}/nope`),
    (e: unknown) => e instanceof WorkspaceError && e.code === "not_found",
  );
});

Deno.test("resolve: relative, root, absolute inside, normalisation", async () => {
  await using tmp = await makeTempWorkspace();
  const ws = await Workspace.open(tmp.root);
  for (const root of ["", ".", "./", "/", tmp.root, `${tmp.root}/`]) {
    const r = await ws.resolve(root === "/" ? "./." : root);
    assert.equal(r.relative, "");
    assert.equal(r.absolute, tmp.root);
    assert.ok(r.info.isDirectory);
  }
  const main = await ws.resolve("./src//main.ts");
  assert.equal(main.relative, "src/main.ts");
  assert.equal(main.absolute, `${tmp.root}/src/main.ts`);
  assert.ok(main.info.isFile);
  assert.equal((await ws.resolve(`${tmp.root}/src/lib`)).relative, "src/lib");
  assert.equal(
    (await ws.resolve("docs/héllo wörld.md")).relative,
    "docs/héllo wörld.md",
  );
});

Deno.test("resolve: links inside are followed, the real path is inside", async () => {
  await using tmp = await makeTempWorkspace();
  const ws = await Workspace.open(tmp.root);
  const link = await ws.resolve("link_in");
  assert.equal(link.relative, "link_in");
  assert.equal(link.absolute, `${tmp.root}/src/main.ts`);
  const viaDir = await ws.resolve("docs/link_src/lib/util.ts");
  assert.equal(viaDir.absolute, `${tmp.root}/src/lib/util.ts`);
  const loop = await ws.resolve("link_self/link_self/README.md");
  assert.equal(loop.absolute, `${tmp.root}/README.md`);
});

Deno.test("resolve: refusals carry the right code", async () => {
  await using tmp = await makeTempWorkspace();
  const ws = await Workspace.open(tmp.root);
  const cases: [string, string][] = [
    ["../secret.txt", "outside"],
    ["src/../../secret.txt", "outside"],
    ["src/..", "outside"],
    [tmp.secretPath, "outside"],
    ["/etc/passwd", "outside"],
    ["link_out", "outside"],
    ["link_out_abs", "outside"],
    ["link_dir_out/inner.txt", "outside"],
    ["link_parent/secret.txt", "outside"],
    ["link_sneaky", "outside"],
    // Missing outside target: still "outside", never "not_found".
    ["link_out_missing", "outside"],
    ["a\0b", "invalid"],
    // "\\" and ":" are name characters on POSIX: these names are missing.
    ["src\\main.ts", "not_found"],
    ["C:/Windows", "not_found"],
    ["README.md:stream", "not_found"],
    ["a/".repeat(20_000), "invalid"],
    ["//server/share", "outside"],
    ["nope.txt", "not_found"],
    ["README.md/x", "not_found"],
    ["link_broken", "not_found"],
    [".git/config", "ignored"],
    ["app.log", "ignored"],
    ["build/out.js", "ignored"],
    ["build", "ignored"],
    ["secret.env", "ignored"],
    ["src/generated.ts", "ignored"],
    ["link_to_ignored", "ignored"],
  ];
  for (const [path, code] of cases) {
    assert.equal(await codeOf(ws.resolve(path)), code, path);
  }
  assert.equal(await codeOf(ws.resolve("keep.log")), "resolved");
});

Deno.test("isIgnored: .git always, .gitignore unless includeIgnored", async () => {
  await using tmp = await makeTempWorkspace();
  const ws = await Workspace.open(tmp.root);
  assert.equal(await ws.isIgnored(".git", true), true);
  assert.equal(await ws.isIgnored("app.log", false), true);
  assert.equal(await ws.isIgnored("keep.log", false), false);
  assert.equal(await ws.isIgnored("build", true), true);
  assert.equal(await ws.isIgnored("build/out.js", false), true);
  assert.equal(await ws.isIgnored("src/generated.ts", false), true);
  assert.equal(await ws.isIgnored("generated.ts", false), false);
  assert.equal(await ws.isIgnored("src/main.ts", false), false);
  // Once rules are loaded the answer is synchronous.
  assert.equal(ws.isIgnored("app.log", false), true);
  const all = await Workspace.open(tmp.root, { includeIgnored: true });
  assert.equal(await all.isIgnored("app.log", false), false);
  assert.equal(await all.isIgnored(".git/HEAD", false), true);
  assert.equal((await all.resolve("secret.env")).relative, "secret.env");
});

Deno.test("walk: sorted depth-first, skips ignored and links out, each directory once", async () => {
  await using tmp = await makeTempWorkspace();
  await Deno.mkdir(`${tmp.root}/.git`);
  await Deno.writeTextFile(`${tmp.root}/.git/HEAD`, "ref\n");
  const ws = await Workspace.open(tmp.root);
  const entries = await walkLines(ws);
  assert.deepEqual(entries, [
    "1 .gitignore",
    "1 README.md",
    "1 data/",
    "2 data/blob.bin",
    "2 data/table.csv",
    "1 docs/",
    "2 docs/héllo wörld.md",
    // A linked directory is listed, not descended: src/ is walked once.
    "2 docs/link_src/",
    "2 docs/utf16.txt",
    "2 docs/日本語.txt",
    "1 empty.txt",
    "1 images/",
    "2 images/pixel.png",
    "1 keep.log",
    "1 large.txt",
    "1 link_in",
    "1 link_self/",
    "1 src/",
    "2 src/.gitignore",
    "2 src/lib/",
    "3 src/lib/deep/",
    "4 src/lib/deep/deeper/",
    "5 src/lib/deep/deeper/leaf.txt",
    "3 src/lib/util.ts",
    "2 src/main.ts",
  ]);
  for await (const entry of ws.walk()) {
    assert.ok(
      entry.absolute === tmp.root ||
        entry.absolute.startsWith(`${tmp.root}/`),
      entry.absolute,
    );
  }
});

Deno.test("walk: maxDepth, a sub-path, laziness and cancellation", async () => {
  await using tmp = await makeTempWorkspace();
  const ws = await Workspace.open(tmp.root);
  assert.deepEqual(await walkLines(ws, { path: "src", maxDepth: 2 }), [
    "1 src/.gitignore",
    "1 src/lib/",
    "2 src/lib/deep/",
    "2 src/lib/util.ts",
    "1 src/main.ts",
  ]);
  // Taking one entry then stopping does not read the rest.
  const iterator = ws.walk();
  const first = await iterator.next();
  assert.equal(first.value?.relative, ".gitignore");
  await iterator.return?.();
  const controller = new AbortController();
  controller.abort(new Error("stop"));
  await assert.rejects(walkAll(ws, { signal: controller.signal }), /stop/);
  await assert.rejects(
    walkAll(ws, { path: "README.md" }),
    (e: unknown) => e instanceof WorkspaceError && e.code === "not_a_directory",
  );
  await assert.rejects(
    walkAll(ws, { path: "link_dir_out" }),
    (e: unknown) => e instanceof WorkspaceError && e.code === "outside",
  );
});

Deno.test("resolve: a directory-only rule (build/) refuses the directory, not a file of that name", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${root}/.gitignore`, "out/\n");
    await Deno.mkdir(`${root}/out`);
    await Deno.writeTextFile(`${root}/out/bundle.js`, "x");
    await Deno.mkdir(`${root}/src`);
    await Deno.writeTextFile(`${root}/src/out`, "a file named out");
    const ws = await Workspace.open(root);
    assert.equal(await codeOf(ws.resolve("out")), "ignored");
    assert.equal(await codeOf(ws.resolve("out/bundle.js")), "ignored");
    const file = await ws.resolve("src/out");
    assert.equal(file.relative, "src/out");
    assert.equal(file.info.isFile, true);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

for (const descriptorPaths of [true, false]) {
  Deno.test({
    name:
      `a .gitignore created, edited in place (same size) and deleted between reads counts at once (${
        descriptorPaths ? "descriptor paths" : "re-checked opens"
      })`,
    ignore: descriptorPaths && !procUsable,
    async fn() {
      const base = await tempBase();
      try {
        await Deno.mkdir(`${base}/a/b`, { recursive: true });
        for (const name of ["x.log", "x.txt", "a/y.log", "a/b/z.log"]) {
          await Deno.writeTextFile(`${base}/${name}`, INSIDE);
        }
        const ws = await Workspace.open(base, { descriptorPaths });
        const codes = async () =>
          await Promise.all(
            ["x.log", "x.txt", "a/y.log", "a/b/z.log"].map((path) =>
              codeOf(ws.resolve(path))
            ),
          );
        const all = ["resolved", "resolved", "resolved", "resolved"];
        // Read once with no .gitignore anywhere, so "none" is cached.
        assert.deepEqual(await codes(), all);
        await Deno.writeTextFile(`${base}/a/.gitignore`, "*.log\n");
        assert.deepEqual(await codes(), [
          "resolved",
          "resolved",
          "ignored",
          "ignored",
        ]);
        // Same inode, same size, most likely the same timestamp.
        await Deno.writeTextFile(`${base}/a/.gitignore`, "*.txt\n");
        assert.deepEqual(await codes(), all);
        await Deno.writeTextFile(`${base}/.gitignore`, "*.txt\n");
        assert.deepEqual(await codes(), [
          "resolved",
          "ignored",
          "resolved",
          "resolved",
        ]);
        await Deno.writeTextFile(`${base}/.gitignore`, "*.log\n");
        assert.deepEqual(await codes(), [
          "ignored",
          "resolved",
          "ignored",
          "ignored",
        ]);
        await Deno.remove(`${base}/.gitignore`);
        await Deno.remove(`${base}/a/.gitignore`);
        assert.deepEqual(await codes(), all);
        // A .gitignore that is a link is not followed, as git does.
        await Deno.writeTextFile(`${base}/rules`, "*.log\n");
        await Deno.symlink(`${base}/rules`, `${base}/a/.gitignore`);
        assert.deepEqual(await codes(), all);
      } finally {
        await Deno.remove(base, { recursive: true });
      }
    },
  });
}

for (const descriptorPaths of [true, false]) {
  Deno.test(`walk sizes: files in runs longer than a batch and between directories each get their own size (descriptor paths ${descriptorPaths})`, async () => {
    const base = await tempBase();
    try {
      // In the root and one level down (where the re-checked mode reads
      // a run in a bracket): 600 files, then a directory, then more files,
      // and a file changed between runs.
      const sizes = new Map<string, number>();
      const file = async (path: string, size: number) => {
        await Deno.writeTextFile(`${base}/${path}`, "x".repeat(size));
        sizes.set(path, size);
      };
      for (const top of ["", "sub/"]) {
        if (top !== "") await Deno.mkdir(`${base}/${top}`);
        for (let i = 0; i < 600; i++) {
          await file(`${top}a${String(i).padStart(3, "0")}.txt`, i);
        }
        await Deno.mkdir(`${base}/${top}m`);
        await file(`${top}m/inner.txt`, 7);
        for (let i = 0; i < 5; i++) await file(`${top}z${i}.txt`, 1000 + i);
      }
      const ws = await Workspace.open(base, { descriptorPaths });
      let changed = false;
      for await (const entry of ws.walk({ sizes: true })) {
        if (!entry.isFile) continue;
        assert.equal(entry.size, sizes.get(entry.relative), entry.relative);
        if (entry.relative === "sub/a299.txt" && !changed) {
          // The next run (from sub/a512 on) reads it anew.
          changed = true;
          await file("sub/a599.txt", 12_345);
        }
        sizes.delete(entry.relative);
      }
      assert.ok(changed);
      assert.deepEqual([...sizes.keys()], []);
    } finally {
      await Deno.remove(base, { recursive: true });
    }
  });
}

Deno.test("walk sizes (re-checked): at its depth limit, one run reads the files between directories it does not descend", async () => {
  const base = await tempBase();
  try {
    // Below the root (where a run is read in a bracket): files and
    // directories in turn, as a listing of one level meets them.
    await Deno.mkdir(`${base}/a/b/c`, { recursive: true });
    const sizes = new Map<string, number>();
    for (let i = 0; i < 20; i++) {
      // Listed in turn: n0.txt, n0d/, n1.txt, n1d/, ...
      await Deno.writeTextFile(`${base}/a/b/c/n${i}.txt`, "x".repeat(i));
      sizes.set(`a/b/c/n${i}.txt`, i);
      await Deno.mkdir(`${base}/a/b/c/n${i}d`);
      await Deno.writeTextFile(`${base}/a/b/c/n${i}d/deep.txt`, "deep");
    }
    // Past the settling time of the directories just made.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const ws = await Workspace.open(base, { descriptorPaths: false });
    const walkCalls = async (maxDepth: number) => {
      const { calls } = await lstatCalls(async () => {
        for await (
          const entry of ws.walk({ path: "a/b/c", maxDepth, sizes: true })
        ) {
          if (entry.depth === 1 && entry.isFile) {
            assert.equal(entry.size, sizes.get(entry.relative));
          }
        }
      });
      return calls;
    };
    // Descending, each file is a run of its own, bracketed: the four
    // directories above it read again for each.
    assert.ok((await walkCalls(2)) >= 20 * 5, "runs between directories");
    // Not descending: the 20 files in one run, one bracket (with the
    // lookup of the start and its listing's bracket: 38; 110 when each
    // file was a run of its own).
    const flat = await walkCalls(1);
    assert.ok(flat <= 50, `${flat} lstat calls for 20 files`);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("walk sizes (re-checked): a directory's first run of files is read in its listing's bracket", async () => {
  const base = await tempBase();
  try {
    await Deno.mkdir(`${base}/a/b/c`, { recursive: true });
    for (let i = 0; i < 20; i++) {
      await Deno.writeTextFile(`${base}/a/b/c/f${i}.txt`, "x".repeat(i));
    }
    // Past the settling time of the directories just made.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const ws = await Workspace.open(base, { descriptorPaths: false });
    const walked = (sizes: boolean) =>
      lstatCalls(async () => {
        const seen: (number | undefined)[] = [];
        for await (const entry of ws.walk({ path: "a/b/c", sizes })) {
          seen.push(entry.size);
        }
        return seen;
      });
    // Once first, for the settled readings of the directories above.
    await walked(false);
    const plain = await walked(false);
    const sized = await walked(true);
    assert.deepEqual(sized.result.toSorted(), [...Array(20).keys()].toSorted());
    // One lstat a file, and no bracket but the listing's: the directories
    // above (a, a/b) and c itself once more, not twice.
    assert.equal(
      sized.calls - plain.calls,
      20,
      `${sized.calls} vs ${plain.calls}`,
    );
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("walk opens (re-checked): files the walk gives open with one lstat each, read alike; a file replaced after its run was read is checked as opened", async () => {
  const base = await tempBase();
  try {
    await Deno.mkdir(`${base}/d/e`, { recursive: true });
    for (let i = 0; i < 20; i++) {
      await Deno.writeTextFile(`${base}/d/e/f${i}.txt`, `file ${i}\n`);
    }
    // Past the settling time of the directories just made.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const ws = await Workspace.open(base, { descriptorPaths: false });
    // lstat calls to walk the tree and read every file, and the texts.
    const readAll = async (opens: boolean) => {
      const { result: texts, calls } = await lstatCalls(async () => {
        const texts: string[] = [];
        for await (const entry of ws.walk({ opens })) {
          if (!entry.isFile) continue;
          if (entry.relative === "d/e/f10.txt" && opens) {
            // Replaced after its run was read: opened after the checks.
            await Deno.remove(`${base}/d/e/f10.txt`);
            await Deno.writeTextFile(`${base}/d/e/f10.txt`, "replaced\n");
          }
          const read = await ws.readFile(entry, { maxBytes: 100 });
          texts.push(new TextDecoder().decode(read.bytes));
        }
        return texts;
      });
      return { calls, texts };
    };
    // Listed first: the second pass finds small files' descriptors kept,
    // whose checks are the same either way.
    const listed = await readAll(true);
    const checked = await readAll(false);
    assert.equal(checked.texts.length, 20);
    assert.deepEqual(listed.texts, checked.texts);
    // Four lstats an open, checked; listed, one a file, the replaced
    // file's four and the brackets of the listings, steps and run.
    assert.ok(checked.calls >= 80, `${checked.calls}`);
    assert.ok(listed.calls <= 20 + 4 + 16, `${listed.calls}`);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
