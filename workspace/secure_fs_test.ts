/**
 * The descriptors `RootFs.openAt` keeps for small files: a kept one is
 * used again only while the name still names that very file, unchanged;
 * a swap, a replacement, an edit or a removal is seen at the next open;
 * a handle still reading an evicted descriptor keeps it until it is done;
 * and the number kept stays bounded. And `RootFs.list` and bracketed
 * opens in the re-checked mode: a directory above changed just now is
 * waited out, and one changed (a swap out and back among them) while a
 * listing or an open was read refuses it.
 */

import { lstatCalls } from "./lstat_calls.ts";
import { strict as assert } from "node:assert";
import {
  CACHED_FILES,
  changeSettleWait,
  type DirHandle,
  errnoOf,
  keptDescriptors,
  onBlockDevice,
  openDescriptors,
  type OpenResult,
  RootFs,
  SETTLE_MS,
  settleWait,
} from "./secure_fs.ts";
import { COARSE_RACY_MS } from "./racy.ts";
import { Workspace, WorkspaceError } from "./workspace.ts";

const SECRET = "SECRET-OUTSIDE-THE-ROOT-9e2a";

// A new temporary directory, by its real path.
async function tempBase(prefix: string): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix }));
}

// The first 64 bytes of what `opened` opened (closed after), or "".
function textOf(fs: RootFs, opened: OpenResult): string {
  if (opened.kind !== "open") return "";
  const buffer = new Uint8Array(64);
  const text = new TextDecoder().decode(
    buffer.subarray(0, fs.readSync(opened.fd, buffer, 0)),
  );
  fs.close(opened.fd);
  return text;
}

// Files changed within 100 ms are never kept (their times may not move on
// the next change): a tree is made, then left to age past that.
const AGE_MS = 250;

async function agedTree(): Promise<{ base: string; root: string }> {
  const base = await tempBase("shipcode-fd-cache-");
  const root = `${base}/root`;
  await Deno.mkdir(`${root}/dir`, { recursive: true });
  await Deno.mkdir(`${base}/outside`);
  await Deno.writeTextFile(`${root}/f.txt`, "inside f\n");
  await Deno.writeTextFile(`${root}/dir/g.txt`, "inside g\n");
  await Deno.writeTextFile(`${base}/outside/g.txt`, `${SECRET}\n`);
  await Deno.writeTextFile(`${base}/secret.txt`, `${SECRET}\n`);
  for (let i = 0; i < CACHED_FILES + 8; i++) {
    await Deno.writeTextFile(`${root}/many${i}.txt`, `many ${i}\n`);
  }
  await new Promise((resolve) => setTimeout(resolve, AGE_MS));
  return { base, root };
}

async function text(ws: Workspace, path: string): Promise<string> {
  try {
    const { bytes } = await ws.readFile(path, { maxBytes: 1024 });
    return new TextDecoder().decode(bytes);
  } catch (error) {
    if (error instanceof WorkspaceError) return `error: ${error.code}`;
    throw error;
  }
}

const procUsable = (() => {
  try {
    Deno.statSync("/proc/self/fd/0");
    return true;
  } catch {
    return false;
  }
})();

for (const descriptorPaths of [true, false]) {
  const mode = descriptorPaths ? "descriptor paths" : "re-checked opens";
  Deno.test({
    name:
      `a kept descriptor is used only while its name still names that file (${mode})`,
    ignore: descriptorPaths && !procUsable,
    async fn() {
      const { base, root } = await agedTree();
      try {
        const ws = await Workspace.open(root, { descriptorPaths });
        // Twice each: the second read is served by the kept descriptor.
        for (let i = 0; i < 2; i++) {
          assert.equal(await text(ws, "f.txt"), "inside f\n");
          assert.equal(await text(ws, "dir/g.txt"), "inside g\n");
        }
        // The name turned into a link to outside the root: refused.
        await Deno.rename(`${root}/f.txt`, `${root}/f.old`);
        await Deno.symlink(`${base}/secret.txt`, `${root}/f.txt`);
        assert.equal(await text(ws, "f.txt"), "error: outside");
        // A relative link inside the root is followed to its own file.
        await Deno.remove(`${root}/f.txt`);
        await Deno.symlink("f.old", `${root}/f.txt`);
        assert.equal(await text(ws, "f.txt"), "inside f\n");
        // The directory turned into a link to outside: refused.
        await Deno.rename(`${root}/dir`, `${root}/dir.old`);
        await Deno.symlink(`${base}/outside`, `${root}/dir`);
        assert.equal(await text(ws, "dir/g.txt"), "error: outside");
        await Deno.remove(`${root}/dir`);
        await Deno.rename(`${root}/dir.old`, `${root}/dir`);
        assert.equal(await text(ws, "dir/g.txt"), "inside g\n");
        // Replaced by another file (a new inode), edited in place, removed.
        await Deno.writeTextFile(`${root}/dir/g.new`, "replaced g\n");
        await Deno.rename(`${root}/dir/g.new`, `${root}/dir/g.txt`);
        assert.equal(await text(ws, "dir/g.txt"), "replaced g\n");
        await Deno.writeTextFile(`${root}/dir/g.txt`, "edited g, longer\n");
        assert.equal(await text(ws, "dir/g.txt"), "edited g, longer\n");
        await Deno.remove(`${root}/dir/g.txt`);
        assert.equal(await text(ws, "dir/g.txt"), "error: not_found");
        // Newly ignored: the verdict is the path's, whatever is kept.
        assert.equal(await text(ws, "many0.txt"), "many 0\n");
        await Deno.writeTextFile(`${root}/.gitignore`, "many0.txt\n");
        assert.equal(await text(ws, "many0.txt"), "error: ignored");
      } finally {
        await Deno.remove(base, { recursive: true });
      }
    },
  });
}

// Descriptors are kept only on a local disk; a temporary directory on
// tmpfs keeps none.
const tempOnDisk = (() => {
  const dir = Deno.makeTempDirSync();
  try {
    return onBlockDevice(Deno.statSync(dir).dev);
  } finally {
    Deno.removeSync(dir);
  }
})();

Deno.test("onBlockDevice: a disk's device (major above 0) on Linux, never an anonymous one", () => {
  const linux = Deno.build.os === "linux";
  // virtio disk 254:0, NVMe 259:1, SCSI 8:17.
  for (const dev of [0xfe00, (259 << 8) | 1, (8 << 8) | 17]) {
    assert.equal(onBlockDevice(dev), linux, `${dev}`);
  }
  // A major number above 4095 lives in the high bits.
  assert.equal(onBlockDevice(0x1000 * 2 ** 32), linux);
  // Anonymous devices (NFS, FUSE, tmpfs, overlay): major 0.
  for (const dev of [0x2c, 0x100000, 0, null, undefined]) {
    assert.equal(onBlockDevice(dev), false, `${dev}`);
  }
});

Deno.test(
  {
    name:
      `kept descriptors stay bounded, and one in use outlives its eviction until released${
        tempOnDisk ? "" : " (skipped: the temporary directory is not on a disk)"
      }`,
    ignore: !tempOnDisk,
  },
  async () => {
    const { base, root } = await agedTree();
    try {
      const fs = await RootFs.open(root, false);
      const first = fs.openAt(fs.rootDir, "f.txt");
      assert.equal(first.kind, "open");
      if (first.kind !== "open") return;
      // Many other files opened and released: f.txt's entry is evicted
      // while its descriptor is still in use.
      for (let i = 0; i < CACHED_FILES + 8; i++) {
        const other = fs.openAt(fs.rootDir, `many${i}.txt`);
        assert.equal(other.kind, "open");
        if (other.kind === "open") fs.close(other.fd);
        assert.ok(keptDescriptors() <= CACHED_FILES + 1);
      }
      const buffer = new Uint8Array(64);
      const read = fs.readSync(first.fd, buffer, 0);
      assert.equal(
        new TextDecoder().decode(buffer.subarray(0, read)),
        "inside f\n",
      );
      assert.equal(keptDescriptors(), CACHED_FILES + 1);
      // Released: closed now, as it is no longer kept.
      fs.close(first.fd);
      assert.equal(keptDescriptors(), CACHED_FILES);
      assert.throws(() => fs.stat(first.fd));
      // Opened anew: same content.
      const again = fs.openAt(fs.rootDir, "f.txt");
      assert.equal(again.kind, "open");
      if (again.kind === "open") {
        assert.equal(fs.readSync(again.fd, buffer, 0), "inside f\n".length);
        fs.close(again.fd);
      }
      assert.equal(keptDescriptors(), CACHED_FILES);
    } finally {
      await Deno.remove(base, { recursive: true });
    }
  },
);

Deno.test("settleWait: ms times settle after SETTLE_MS, whole seconds after seconds, future ones at once", () => {
  const now = 1_800_000_000_123;
  assert.equal(settleWait(now, now - 1000), 0);
  assert.equal(settleWait(now, now - SETTLE_MS - 1), 0);
  assert.equal(settleWait(now, now), SETTLE_MS + 1);
  assert.equal(settleWait(now, now - 5), SETTLE_MS - 4);
  assert.equal(settleWait(now, now + 5), SETTLE_MS + 6);
  assert.equal(settleWait(now, now + 60_000), 0);
  const whole = 1_800_000_000_000;
  assert.equal(settleWait(whole + 500, whole), COARSE_RACY_MS - 499);
  assert.equal(settleWait(now, NaN), Infinity);
});

Deno.test("changeSettleWait: whole-second change times settle SETTLE_MS past the next second, ms ones after SETTLE_MS", () => {
  const whole = 1_800_000_000_000;
  // Changed in this very second: a change later in it would not move it.
  assert.equal(changeSettleWait(whole + 300, whole), 700 + SETTLE_MS + 1);
  assert.equal(changeSettleWait(whole + 999, whole), SETTLE_MS + 2);
  assert.equal(changeSettleWait(whole + 1000 + SETTLE_MS + 1, whole), 0);
  assert.equal(changeSettleWait(whole + 5000, whole), 0);
  assert.equal(changeSettleWait(whole + 10, whole + 7), SETTLE_MS - 2);
  assert.equal(changeSettleWait(whole, whole + 60_000), 0);
  // No change time: the modification time alone decides.
  assert.equal(changeSettleWait(whole, NaN), 0);
});

// The code `list` threw with, and how long it said to wait, or "listed".
function listOutcome(
  fs: RootFs,
  dir: DirHandle,
): { code: string; waitMs: number; names: string[] } {
  try {
    const names = fs.list(dir, (entries) => entries.map((entry) => entry.name))
      .sort();
    return { code: "listed", waitMs: 0, names };
  } catch (error) {
    const waitMs = (error as { waitMs?: number }).waitMs ?? 0;
    return { code: errnoOf(error), waitMs, names: [] };
  }
}

async function settledList(fs: RootFs, dir: DirHandle): Promise<string[]> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const outcome = listOutcome(fs, dir);
    if (outcome.code === "listed") return outcome.names;
    assert.equal(outcome.code, "EAGAIN");
    await new Promise((resolve) => setTimeout(resolve, outcome.waitMs));
  }
  throw new Error("never settled");
}

Deno.test("list (re-checked): a directory above changed just now is waited out, one changed since its settled reading refuses the listing", async () => {
  const base = await tempBase("shipcode-list-");
  try {
    const root = `${base}/root`;
    await Deno.mkdir(`${root}/a/b`, { recursive: true });
    await Deno.writeTextFile(`${root}/a/b/c.txt`, "c\n");
    const fs = await RootFs.open(root, false);
    assert.equal(fs.descriptorPaths, false);
    const step = (dir: DirHandle, name: string): DirHandle => {
      const opened = fs.stepAt(dir, name);
      assert.equal(opened.kind, "open");
      if (opened.kind !== "open") throw new Error("unreachable");
      const real = dir.real === "" ? name : `${dir.real}/${name}`;
      return fs.dirHandle(opened.fd, real, opened.info);
    };
    const b = step(step(fs.rootDir, "a"), "b");

    // `a` was made just now: its times could still stand still through a
    // swap, so the listing waits, as long as it says.
    const fresh = listOutcome(fs, b);
    assert.equal(fresh.code, "EAGAIN");
    assert.ok(fresh.waitMs > 0 && fresh.waitMs <= COARSE_RACY_MS + 1);
    assert.deepEqual(await settledList(fs, b), ["c.txt"]);
    // The root's own listing has nothing above it to wait for.
    assert.deepEqual(listOutcome(fs, fs.rootDir).names, ["a"]);

    // `a` swapped out and back between two listings: every path leads
    // where it did, but the root's times moved past its settled reading.
    await Deno.rename(`${root}/a`, `${root}/a.away`);
    await Deno.rename(`${root}/a.away`, `${root}/a`);
    assert.equal(listOutcome(fs, b).code, "ESTALE");
    // Then the root is the one that changed just now.
    assert.equal(listOutcome(fs, b).code, "EAGAIN");
    assert.deepEqual(await settledList(fs, b), ["c.txt"]);

    // An entry added in `a` (not a swap, but the times cannot tell).
    await Deno.writeTextFile(`${root}/a/new.txt`, "new\n");
    assert.equal(listOutcome(fs, b).code, "ESTALE");
    assert.deepEqual(await settledList(fs, b), ["c.txt"]);

    // `b` itself swapped for another directory: refused as changed.
    await Deno.rename(`${root}/a/b`, `${root}/a/b.old`);
    await Deno.mkdir(`${root}/a/b`);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS + 5));
    assert.equal(listOutcome(fs, b).code, "ESTALE");
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("openAt (re-checked) with the file's bracketed lstat: that very file opens with no check of its path; one swapped for a link, replaced or edited since is checked as before", async () => {
  const base = await tempBase("shipcode-listed-");
  try {
    const root = `${base}/root`;
    await Deno.mkdir(`${root}/a`, { recursive: true });
    await Deno.mkdir(`${base}/outside`);
    await Deno.writeTextFile(`${root}/a/f.txt`, "inside\n");
    await Deno.writeTextFile(`${base}/outside/f.txt`, `${SECRET}\n`);
    await new Promise((resolve) => setTimeout(resolve, AGE_MS));
    const fs = await RootFs.open(root, false);
    const stepped = fs.stepAt(fs.rootDir, "a");
    if (stepped.kind !== "open") throw new Error(`a: ${stepped.kind}`);
    const a = fs.dirHandle(stepped.fd, "a", stepped.info);
    const listedNow = async (): Promise<Deno.FileInfo> => {
      for (let attempt = 0; attempt < 5; attempt++) {
        try {
          const [info] = fs.lstatAllAt(a, ["f.txt"]);
          if (info instanceof Error) throw info;
          return info;
        } catch (error) {
          assert.equal(errnoOf(error), "EAGAIN");
          await new Promise((resolve) => setTimeout(resolve, AGE_MS));
        }
      }
      throw new Error("never settled");
    };
    // lstat calls an open makes, and what it opened.
    const opening = async (listed: Deno.FileInfo) => {
      const { result: opened, calls } = await lstatCalls(() =>
        fs.openAt(a, "f.txt", { listedPlain: true, listed })
      );
      return { kind: opened.kind, calls, text: textOf(fs, opened) };
    };

    const listed = await listedNow();
    assert.deepEqual(await opening(listed), {
      kind: "open",
      calls: 0,
      text: "inside\n",
    });

    // Swapped for a link to outside since it was listed: the runtime
    // follows it, the file opened is not the one listed, and the path's
    // checks refuse it.
    await Deno.rename(`${root}/a/f.txt`, `${root}/a/f.old`);
    await Deno.symlink(`${base}/outside/f.txt`, `${root}/a/f.txt`);
    const swapped = await opening(listed);
    assert.notEqual(swapped.kind, "open");
    assert.ok(swapped.calls > 0);
    assert.ok(!swapped.text.includes(SECRET));

    // Replaced by another file: opened, after the checks.
    await Deno.remove(`${root}/a/f.txt`);
    await Deno.writeTextFile(`${root}/a/f.txt`, "replaced\n");
    const replaced = await opening(listed);
    assert.equal(replaced.kind, "open");
    assert.equal(replaced.text, "replaced\n");
    assert.ok(replaced.calls > 0);

    // Edited in place (same inode, new times): checked again too.
    await new Promise((resolve) => setTimeout(resolve, AGE_MS));
    const relisted = await listedNow();
    assert.equal((await opening(relisted)).calls, 0);
    await Deno.writeTextFile(`${root}/a/f.txt`, "edited\n");
    const edited = await opening(relisted);
    assert.equal(edited.text, "edited\n");
    assert.ok(edited.calls > 0);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("openAt (re-checked, bracketed): a file below the root opens once the directories on its path are settled and unchanged around the open; a link is told apart, and a swap during the open or a directory replaced refuses it", async () => {
  const base = await tempBase("shipcode-bracketed-");
  const lstat = Deno.lstatSync;
  try {
    const root = `${base}/root`;
    await Deno.mkdir(`${root}/a`, { recursive: true });
    await Deno.mkdir(`${base}/outside`);
    await Deno.writeTextFile(`${root}/a/f.txt`, "inside\n");
    await Deno.writeTextFile(`${root}/a/g.txt`, "inside g\n");
    await Deno.writeTextFile(`${base}/outside/f.txt`, `${SECRET}\n`);
    await Deno.symlink("../../outside/f.txt", `${root}/a/l.txt`);
    const fs = await RootFs.open(root, false);
    const stepped = fs.stepAt(fs.rootDir, "a");
    if (stepped.kind !== "open") throw new Error(`a: ${stepped.kind}`);
    const a = fs.dirHandle(stepped.fd, "a", stepped.info);
    const outcome = (name: string) => {
      try {
        const opened = fs.openAt(a, name, { bracketed: true });
        return {
          kind: opened.kind as string,
          waitMs: 0,
          text: textOf(fs, opened),
        };
      } catch (error) {
        const waitMs = (error as { waitMs?: number }).waitMs ?? 0;
        return { kind: errnoOf(error), waitMs, text: "" };
      }
    };
    const settled = async (name: string) => {
      for (let attempt = 0; attempt < 5; attempt++) {
        const got = outcome(name);
        if (got.kind !== "EAGAIN") return got;
        await new Promise((resolve) => setTimeout(resolve, got.waitMs));
      }
      throw new Error("never settled");
    };

    // `a` was written just now: its times could still stand still through
    // a swap, so the open waits, as long as it says.
    const fresh = outcome("f.txt");
    assert.equal(fresh.kind, "EAGAIN");
    assert.ok(fresh.waitMs > 0 && fresh.waitMs <= COARSE_RACY_MS + 1);
    assert.deepEqual(await settled("f.txt"), {
      kind: "open",
      waitMs: 0,
      text: "inside\n",
    });
    // A link is told apart, not followed.
    assert.equal((await settled("l.txt")).kind, "link");

    // `a` swapped out and back while the name is looked at: every path
    // leads where it did, but the times above moved during the open. The
    // file it had opened is closed. (A
    // file not opened before: f.txt may have kept its descriptor.)
    const held = openDescriptors();
    let swapped = false;
    Deno.lstatSync = (path) => {
      if (path === `${root}/a/g.txt` && !swapped) {
        swapped = true;
        Deno.renameSync(`${root}/a`, `${root}/a.away`);
        Deno.renameSync(`${root}/a.away`, `${root}/a`);
      }
      return lstat(path);
    };
    assert.equal(outcome("g.txt").kind, "ESTALE");
    Deno.lstatSync = lstat;
    assert.ok(swapped);
    assert.equal(openDescriptors(), held, "the refused open's descriptor");
    assert.equal((await settled("g.txt")).text, "inside g\n");

    // `a` replaced by another directory: its path no longer leads to the
    // directory reached, and nothing in the new one is opened as if it
    // were.
    await Deno.rename(`${root}/a`, `${root}/a.old`);
    await Deno.mkdir(`${root}/a`);
    await Deno.writeTextFile(`${root}/a/f.txt`, "another\n");
    assert.equal((await settled("f.txt")).kind, "ESTALE");
  } finally {
    Deno.lstatSync = lstat;
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("a read by path (re-checked) steps into each directory with one lstat: the bracket of its open checks the whole path", async () => {
  const base = await tempBase("shipcode-steps-");
  const lstat = Deno.lstatSync;
  try {
    await Deno.mkdir(`${base}/a/b/c`, { recursive: true });
    await Deno.writeTextFile(`${base}/a/b/c/f.txt`, "deep\n");
    await Deno.writeTextFile(`${base}/a/b/c/g.txt`, "deeper\n");
    const ws = await Workspace.open(base, { descriptorPaths: false });
    // Settled readings of a, a/b and a/b/c are taken, and then kept.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS + 5));
    await ws.readFile("a/b/c/f.txt", { maxBytes: 100 });
    let calls = 0;
    Deno.lstatSync = (path) => {
      calls++;
      return lstat(path);
    };
    const read = await ws.readFile("a/b/c/g.txt", { maxBytes: 100 });
    Deno.lstatSync = lstat;
    assert.equal(new TextDecoder().decode(read.bytes), "deeper\n");
    // One lstat for each of a, b and c on the way; then, in the bracket,
    // g.txt's, and the root, a, a/b and a/b/c read again after the open.
    assert.equal(calls, 3 + 1 + 4);
  } finally {
    Deno.lstatSync = lstat;
    await Deno.remove(base, { recursive: true });
  }
});
