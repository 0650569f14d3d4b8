import { strict as assert } from "node:assert";
import { RootFs } from "./secure_fs.ts";

Deno.test("lstatAllAt: each name's lstat, or its error, in both modes", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.writeTextFile(`${root}/a`, "12345");
    await Deno.mkdir(`${root}/d`);
    await Deno.writeTextFile(`${root}/d/b`, "1");
    await Deno.symlink("a", `${root}/link`);
    for (const descriptorPaths of [true, false]) {
      const fs = await RootFs.open(root, descriptorPaths);
      const opened = fs.openAt(fs.rootDir, "d");
      assert.equal(opened.kind, "open");
      if (opened.kind !== "open") continue;
      const d = fs.dirHandle(opened.fd, "d", opened.info);
      const inRoot = fs.lstatAllAt(fs.rootDir, ["a", "missing", "link"]);
      assert.equal((inRoot[0] as Deno.FileInfo).size, 5);
      assert.ok(inRoot[1] instanceof Deno.errors.NotFound);
      assert.equal((inRoot[2] as Deno.FileInfo).isSymlink, true);
      const inD = fs.lstatAllAt(d, ["b"]);
      assert.equal((inD[0] as Deno.FileInfo).size, 1);
      // The directory moved away: every name fails, none is read elsewhere.
      await Deno.rename(`${root}/d`, `${root}/e`);
      await Deno.mkdir(`${root}/d`);
      await Deno.writeTextFile(`${root}/d/b`, "123");
      const moved = fs.lstatAllAt(d, ["b"]);
      if (descriptorPaths && fs.descriptorPaths) {
        assert.equal((moved[0] as Deno.FileInfo).size, 1);
      } else assert.ok(moved[0] instanceof Error);
      fs.close(d.fd);
      await Deno.remove(`${root}/d`, { recursive: true });
      await Deno.rename(`${root}/e`, `${root}/d`);
      fs.close(fs.rootDir.fd);
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
