import { strict as assert } from "node:assert";
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
