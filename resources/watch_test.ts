import { strict as assert } from "node:assert";
import type { ResourceChanges } from "../mcp/resource.ts";
import { classify, Debouncer, watchWorkspace } from "./watch.ts";
import { RootUri } from "./uri.ts";
import { Workspace } from "../workspace/workspace.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Poll `check` until it holds; false after `ms`. Generous by default: a
 * loaded machine delivers file events late, and only a watch that never
 * reports should fail.
 */
async function until(check: () => boolean, ms = 30_000): Promise<boolean> {
  const end = performance.now() + ms;
  while (!check()) {
    if (performance.now() > end) return false;
    await sleep(20);
  }
  return true;
}

/**
 * Write `path` again every `everyMs` until `seen()`: a watch that starts
 * (or watches a new directory) late on a loaded machine misses the first
 * writes. `everyMs` must be past the watch's quiet period, or the writes
 * make one burst that ends only at its maximum delay. False after 30 s.
 */
async function writeUntil(
  path: string,
  seen: () => boolean,
  everyMs = 300,
): Promise<boolean> {
  const end = performance.now() + 30_000;
  while (!seen()) {
    if (performance.now() > end) return false;
    await Deno.writeTextFile(path, String(performance.now()));
    if (await until(seen, everyMs)) break;
  }
  return true;
}

/** Whether any of `reports` names a URI ending in `suffix`. */
function names(reports: ResourceChanges[], suffix: string): boolean {
  return reports.some((r) => r.updated.some((u) => u.endsWith(suffix)));
}

Deno.test("Debouncer: one flush per burst, after the quiet period", async () => {
  let flushes = 0;
  const d = new Debouncer(40, 1000, () => flushes++);
  for (let i = 0; i < 5; i++) {
    d.poke();
    await sleep(10);
  }
  assert.equal(flushes, 0, "no flush while events keep coming");
  await sleep(80);
  assert.equal(flushes, 1);
  d.poke();
  await sleep(80);
  assert.equal(flushes, 2, "a later burst flushes again");
  d.close();
});

Deno.test("Debouncer: a never-ending burst still flushes by maxDelayMs", async () => {
  let flushes = 0;
  const d = new Debouncer(40, 60, () => flushes++);
  const start = performance.now();
  // Until two flushes (each at most 60 ms after its burst began), however
  // late a loaded machine runs timers; pokes every 10 ms never leave the
  // 40 ms quiet period that would flush otherwise.
  while (flushes < 2 && performance.now() - start < 30_000) {
    d.poke();
    await sleep(10);
  }
  d.close();
  assert.ok(flushes >= 2, `flushes: ${flushes}`);
});

Deno.test("Debouncer: close drops the pending flush", async () => {
  let flushes = 0;
  const d = new Debouncer(20, 100, () => flushes++);
  d.poke();
  d.close();
  await sleep(50);
  assert.equal(flushes, 0);
});

Deno.test("classify: what each before/now pair reports", () => {
  const cases: [Parameters<typeof classify>, ReturnType<typeof classify>][] = [
    [["present", "file", "modify"], { updated: true, listChanged: false }],
    [["absent", "file", "create"], { updated: true, listChanged: true }],
    [["present", "absent", "remove"], { updated: true, listChanged: true }],
    [["absent", "absent", "create"], { updated: false, listChanged: false }],
    [["unknown", "file", "rename"], { updated: true, listChanged: true }],
    [["unknown", "absent", "rename"], { updated: true, listChanged: true }],
    [["absent", "directory", "create"], { updated: false, listChanged: true }],
    [["present", "directory", "modify"], {
      updated: false,
      listChanged: false,
    }],
  ];
  for (const [args, expected] of cases) {
    assert.deepEqual(classify(...args), expected, args.join(" "));
  }
});

async function withRoot(
  fn: (
    root: string,
    reports: ResourceChanges[],
    uris: RootUri,
    workspace: Workspace,
  ) => Promise<void>,
  quietMs = 150,
  maxDelayMs?: number,
): Promise<void> {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "watch_" }),
  );
  await Deno.writeTextFile(`${root}/.gitignore`, "*.log\n");
  await Deno.writeTextFile(`${root}/a.txt`, "a");
  await Deno.mkdir(`${root}/.git`);
  const workspace = await Workspace.open(root);
  const uris = new RootUri(root);
  const reports: ResourceChanges[] = [];
  const watch = watchWorkspace(workspace, uris, (c) => reports.push(c), {
    // Generous: under a loaded CI machine two writes a test makes back to
    // back can be further apart than a short quiet period.
    quietMs,
    maxDelayMs,
  });
  try {
    // Wait until the watcher sees events: on a loaded machine it can miss
    // the first ones for a while, and a file's first event decides how its
    // change is classified.
    assert.ok(
      await writeUntil(
        `${root}/ready.txt`,
        () => reports.length > 0,
        quietMs * 2,
      ),
      "the watch reported nothing in 30 s",
    );
    const seen = reports.length;
    await Deno.remove(`${root}/ready.txt`);
    assert.ok(
      await until(() =>
        reports.slice(seen).some((r) =>
          r.updated.some((u) => u.endsWith("/ready.txt")) && r.listChanged
        )
      ),
      "the removal of ready.txt was not reported in 30 s",
    );
    await sleep(quietMs * 2);
    reports.length = 0;
    await fn(root, reports, uris, workspace);
  } finally {
    watch.close();
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("watchWorkspace: a burst of writes to one file is one update", async () => {
  // Writes 5 ms apart, a quiet period of 1 s: only a stall of a second
  // between two writes (or a debounce that does not merge) splits it.
  await withRoot(
    async (root, reports, uris) => {
      for (let i = 0; i < 5; i++) {
        await Deno.writeTextFile(`${root}/a.txt`, `version ${i}`);
        await sleep(5);
      }
      assert.ok(await until(() => reports.length > 0), "no report in 30 s");
      // Room for a second report, were the burst split.
      await sleep(2000);
      assert.deepEqual(reports, [{
        updated: [uris.uriOf("a.txt")],
        listChanged: false,
      }]);
    },
    1000,
    30_000,
  );
});

Deno.test("watchWorkspace: files appearing and vanishing change the list", async () => {
  await withRoot(async (root, reports, uris) => {
    await Deno.writeTextFile(`${root}/new.txt`, "new");
    assert.ok(await until(() => reports.length > 0), "no report in 30 s");
    assert.deepEqual(reports, [{
      updated: [uris.uriOf("new.txt")],
      listChanged: true,
    }]);
    await Deno.remove(`${root}/new.txt`);
    assert.ok(await until(() => reports.length > 1), "no report in 30 s");
    assert.equal(reports.length, 2);
    assert.deepEqual(reports[1], {
      updated: [uris.uriOf("new.txt")],
      listChanged: true,
    });
  }, 500);
});

Deno.test("watchWorkspace: ignored files and .git/ report nothing", async () => {
  await withRoot(async (root, reports, uris) => {
    await Deno.writeTextFile(`${root}/debug.log`, "ignored");
    await Deno.writeTextFile(`${root}/.git/HEAD`, "ref");
    // Then a file that is reported: its events come after the others', so
    // once it is reported, anything the others caused would be too.
    await Deno.writeTextFile(`${root}/probe.txt`, "probe");
    assert.ok(await until(() => names(reports, "/probe.txt")), "no probe");
    assert.deepEqual(reports, [{
      updated: [uris.uriOf("probe.txt")],
      listChanged: true,
    }]);
  }, 600);
});

Deno.test("watchWorkspace: a temporary file created and deleted at once reports nothing, or at most its own change", async () => {
  await withRoot(async (root, reports, uris) => {
    await Deno.writeTextFile(`${root}/.a.txt.swp`, "tmp");
    await Deno.remove(`${root}/.a.txt.swp`);
    // The events of a later burst come after these: once it is reported,
    // the temporary file's burst has been too, if it ended before the
    // probe's began. (A quiet period of 1 s: a stall that long between the
    // write and the removal would report the file twice, made and gone.)
    await sleep(1500);
    const probe = reports.length;
    await Deno.writeTextFile(`${root}/probe.txt`, "probe");
    assert.ok(await until(() => names(reports, "/probe.txt")), "no probe");
    reports.splice(probe);
    // On an idle machine the watcher sees create ... remove: nothing to
    // report. On a loaded one Deno's watcher can deliver every event of
    // the burst as "remove", which reads as a file that existed and went:
    // then the report is conservative (the file and the list changed),
    // and never names anything else.
    for (const report of reports) {
      assert.deepEqual(report, {
        updated: [uris.uriOf(".a.txt.swp")],
        listChanged: true,
      });
    }
    assert.ok(reports.length <= 1);
  }, 1000);
});

Deno.test("watchWorkspace: an edited .gitignore is read again and changes the list", async () => {
  // withRoot's .gitignore says "*.log"; it waits until the watch reports.
  await withRoot(async (root, reports, _uris, workspace) => {
    await Deno.writeTextFile(`${root}/app.log`, "log");
    assert.equal(await workspace.isIgnored("app.log", false), true);
    await Deno.writeTextFile(`${root}/.gitignore`, "*.tmp\n");
    assert.ok(await until(() => reports.length > 0), "no report in 30 s");
    assert.equal(reports.length, 1);
    assert.equal(reports[0].listChanged, true);
    assert.equal(await workspace.isIgnored("app.log", false), false);
    assert.equal(await workspace.isIgnored("x.tmp", false), true);
  });
});

/**
 * The inodes (in hex, as /proc shows them) of the directories this process
 * holds inotify watches on (Linux), from /proc. Read by a subprocess: Deno
 * grants /proc/self only with every permission. Other test files running
 * in this process may hold watches too, so tests ask about given inodes,
 * never about a count.
 */
async function watchedInodes(): Promise<Set<string>> {
  const { stdout } = await new Deno.Command("sh", {
    args: ["-c", `cat /proc/${Deno.pid}/fdinfo/* 2>/dev/null; true`],
  }).output();
  const inodes = new Set<string>();
  for (const line of new TextDecoder().decode(stdout).split("\n")) {
    const match = /^inotify wd:\S+ ino:([0-9a-f]+)/.exec(line);
    if (match) inodes.add(match[1]);
  }
  return inodes;
}

/** `path`'s inode in hex, as /proc's fdinfo shows it. */
function inodeOf(path: string): string {
  return (Deno.statSync(path).ino ?? 0).toString(16);
}

Deno.test({
  name:
    "watchWorkspace: a link to a directory outside the root adds no watch there and reports nothing from it",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const base = await Deno.realPath(
      await Deno.makeTempDir({ prefix: "watch_out_" }),
    );
    const root = `${base}/root`;
    const outside = `${base}/outside`;
    await Deno.mkdir(`${root}/src/deep`, { recursive: true });
    for (let i = 0; i < 60; i++) {
      await Deno.mkdir(`${outside}/d${i}`, { recursive: true });
    }
    await Deno.symlink(outside, `${root}/out`);
    await Deno.symlink("/", `${root}/slash`);
    const reports: ResourceChanges[] = [];
    const watch = watchWorkspace(
      await Workspace.open(root),
      new RootUri(root),
      (c) => reports.push(c),
      { quietMs: 100 },
    );
    try {
      // Wait until the watch is up (its deepest directory reports).
      assert.ok(
        await writeUntil(
          `${root}/src/deep/ready.txt`,
          () => names(reports, "/src/deep/ready.txt"),
        ),
        "the watch reported nothing in 30 s",
      );
      // root, src and src/deep are watched; nothing behind the links.
      const watched = await watchedInodes();
      for (const dir of [root, `${root}/src`, `${root}/src/deep`]) {
        assert.ok(watched.has(inodeOf(dir)), `${dir} is not watched`);
      }
      // (Not "/": its inode number is on another device, where it may
      // name another watched directory.)
      const behind = [outside];
      for (let i = 0; i < 60; i++) behind.push(`${outside}/d${i}`);
      for (const dir of behind) {
        assert.ok(!watched.has(inodeOf(dir)), `${dir} is watched`);
      }
      await Deno.writeTextFile(`${outside}/d1/secret.txt`, "outside");
      // Events inside come after the one outside: once the probe is
      // reported, a report from outside would have come too.
      await Deno.writeTextFile(`${root}/probe.txt`, "probe");
      assert.ok(await until(() => names(reports, "/probe.txt")), "no probe");
      assert.ok(!names(reports, "secret.txt"), JSON.stringify(reports));
      // The watch still works inside, in a directory made after it began
      // (written to until reported: the new directory's watch comes late
      // on a loaded machine).
      await Deno.mkdir(`${root}/src/new`);
      assert.ok(
        await writeUntil(
          `${root}/src/new/b.txt`,
          () => names(reports, "/src/new/b.txt"),
        ),
        JSON.stringify(reports),
      );
      assert.ok(!names(reports, "secret.txt"), JSON.stringify(reports));
    } finally {
      watch.close();
      await Deno.remove(base, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "watchWorkspace: an unreadable directory does not stop the watch (run as a non-root user it would throw)",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const root = await Deno.realPath(
      await Deno.makeTempDir({ prefix: "watch_" }),
    );
    await Deno.mkdir(`${root}/locked`);
    await Deno.writeTextFile(`${root}/a.txt`, "a");
    // A name that is not valid UTF-8 cannot be watched by its decoded name.
    const bad = new Uint8Array([
      ...new TextEncoder().encode(`${root}/b`),
      0xff,
    ]);
    await Deno.mkdir(new TextDecoder().decode(bad)).catch(() => {});
    await Deno.chmod(`${root}/locked`, 0o000);
    const reports: ResourceChanges[] = [];
    const watch = watchWorkspace(
      await Workspace.open(root),
      new RootUri(root),
      (c) => reports.push(c),
      { quietMs: 100 },
    );
    try {
      // Written to until reported (the watch may start late); a watch
      // that threw on the locked directory never reports.
      assert.ok(
        await writeUntil(`${root}/a.txt`, () => reports.length > 0),
        "the watch reported nothing in 30 s",
      );
      for (const report of reports) {
        assert.deepEqual(
          report.updated.map((u) => u.slice(u.lastIndexOf("/") + 1)),
          ["a.txt"],
          JSON.stringify(reports),
        );
      }
    } finally {
      watch.close();
      await Deno.chmod(`${root}/locked`, 0o755);
      await Deno.remove(root, { recursive: true });
    }
  },
});
