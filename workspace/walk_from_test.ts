import { strict as assert } from "node:assert";
import { RootFs } from "./secure_fs.ts";
import { type WalkEntry, walkSkips, Workspace } from "./workspace.ts";

async function names(walk: AsyncIterable<WalkEntry>): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of walk) {
    out.push(`${entry.relative}:${entry.isFile ? entry.size : "dir"}`);
  }
  return out;
}

Deno.test("walk from an entry a walk met: the same as walking its path, ancestors' rules included", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.mkdir(`${root}/a/b/c`, { recursive: true });
    await Deno.writeTextFile(`${root}/.gitignore`, "a/b/*.tmp\n");
    await Deno.writeTextFile(`${root}/a/.gitignore`, "*.bak\n!keep.bak\n");
    for (const name of ["x.tmp", "y.bak", "keep.bak", "z.txt", "c/w.tmp"]) {
      await Deno.writeTextFile(`${root}/a/b/${name}`, name);
    }
    await Deno.symlink("b", `${root}/a/link`);
    for (const descriptorPaths of [false, true]) {
      const ws = await Workspace.open(root, { descriptorPaths });
      const met = new Map<string, WalkEntry>();
      for await (const entry of ws.walk({ path: "a", maxDepth: 1 })) {
        met.set(entry.relative, entry);
      }
      for (const path of ["a/b", "a/link"]) {
        const from = met.get(path);
        assert.ok(from !== undefined, path);
        const expected = await names(
          ws.walk({ path, sizes: true, skips: walkSkips() }),
        );
        const got = await names(
          ws.walk({ from, sizes: true, skips: walkSkips() }),
        );
        assert.deepEqual(got, expected, `${path} (${descriptorPaths})`);
      }
      assert.deepEqual(
        await names(ws.walk({ from: met.get("a/b"), sizes: true })),
        ["a/b/c:dir", "a/b/c/w.tmp:7", "a/b/keep.bak:8", "a/b/z.txt:5"],
      );
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("walk from an entry whose ancestor was moved out of the root and replaced by a link: refused as walking its path is", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  const outside = await Deno.realPath(await Deno.makeTempDir());
  try {
    for (const descriptorPaths of [false, true]) {
      await Deno.mkdir(`${root}/x/a/b`, { recursive: true });
      await Deno.writeTextFile(`${root}/x/a/b/f`, "f");
      const ws = await Workspace.open(root, { descriptorPaths });
      const met = new Map<string, WalkEntry>();
      for await (const entry of ws.walk({ maxDepth: 3 })) {
        met.set(entry.relative, entry);
      }
      // The directory keeps its identity, but its path now runs through a
      // link out of the root.
      await Deno.rename(`${root}/x`, `${outside}/x`);
      await Deno.symlink(`${outside}/x`, `${root}/x`);
      await Deno.writeTextFile(`${outside}/x/a/b/outside`, "outside");
      const from = met.get("x/a/b");
      assert.ok(from !== undefined);
      await assert.rejects(
        names(ws.walk({ path: "x/a/b", sizes: true })),
        /outside the workspace root/,
      );
      await assert.rejects(
        names(ws.walk({ from, sizes: true })),
        /outside the workspace root/,
        `descriptorPaths: ${descriptorPaths}`,
      );
      await Deno.remove(`${root}/x`);
      await Deno.remove(`${outside}/x`, { recursive: true });
    }
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("walk with sizes: a file removed, or replaced by a link out of the root, after its directory was listed is not reported", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  const outside = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.writeTextFile(`${outside}/z.txt`, "outside, 17 bytes");
    for (const descriptorPaths of [false, true]) {
      await Deno.writeTextFile(`${root}/0.txt`, "0");
      await Deno.mkdir(`${root}/a`);
      await Deno.writeTextFile(`${root}/a/x`, "x");
      await Deno.writeTextFile(`${root}/y.txt`, "yyy");
      await Deno.writeTextFile(`${root}/z.txt`, "zz");
      const ws = await Workspace.open(root, { descriptorPaths });
      const seen: string[] = [];
      for await (const entry of ws.walk({ sizes: true })) {
        seen.push(`${entry.relative}:${entry.isFile ? entry.size : "dir"}`);
        if (entry.relative === "a/x") {
          await Deno.remove(`${root}/y.txt`);
          await Deno.remove(`${root}/z.txt`);
          await Deno.symlink(`${outside}/z.txt`, `${root}/z.txt`);
        }
      }
      assert.deepEqual(
        seen,
        ["0.txt:1", "a:dir", "a/x:1"],
        `descriptorPaths: ${descriptorPaths}`,
      );
      for (const name of ["0.txt", "a", "z.txt"]) {
        await Deno.remove(`${root}/${name}`, { recursive: true });
      }
    }
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("a walk releases each descriptor it opened once, its start directory included", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  const close = RootFs.prototype.close;
  const released: number[] = [];
  RootFs.prototype.close = function (fd: number) {
    if (fd !== -1) released.push(fd);
    return close.call(this, fd);
  };
  try {
    await Deno.mkdir(`${root}/a/b`, { recursive: true });
    await Deno.writeTextFile(`${root}/a/b/f`, "f");
    for (const descriptorPaths of [false, true]) {
      const ws = await Workspace.open(root, { descriptorPaths });
      for (const path of ["a", "a/b"]) {
        released.length = 0;
        await names(ws.walk({ path, sizes: true }));
        assert.ok(released.length > 0 || !descriptorPaths, path);
        assert.deepEqual(
          released.filter((fd, i) => released.indexOf(fd) !== i),
          [],
          `${path} (${descriptorPaths}): released ${released}`,
        );
      }
    }
  } finally {
    RootFs.prototype.close = close;
    await Deno.remove(root, { recursive: true });
  }
});
