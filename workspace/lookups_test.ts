import { strict as assert } from "node:assert";
import { lstatCalls } from "./lstat_calls.ts";
import { Lookups, Workspace, WorkspaceError } from "./workspace.ts";

async function tree(): Promise<{ root: string; outside: string }> {
  const base = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "resolve_" }),
  );
  const root = `${base}/root`;
  const outside = `${base}/outside`;
  await Deno.mkdir(`${root}/a/b`, { recursive: true });
  await Deno.mkdir(`${outside}/b`, { recursive: true });
  await Deno.writeTextFile(`${root}/a/b/one.txt`, "one");
  await Deno.writeTextFile(`${root}/a/b/two.txt`, "two");
  await Deno.writeTextFile(`${root}/a/b/secret.env`, "ignored");
  await Deno.writeTextFile(`${root}/a/.gitignore`, "*.env\n");
  await Deno.writeTextFile(`${outside}/b/two.txt`, "OUTSIDE");
  return { root, outside };
}

async function text(
  ws: Workspace,
  path: string,
  lookups: Lookups,
): Promise<string> {
  const read = await ws.readFile(path, { maxBytes: 100, lookups });
  return new TextDecoder().decode(read.bytes);
}

// What `path` reads through `lookups` after a directory on its way was
// swapped for a link out of the root: refused as outside or changing, or
// read as it was (undefined when refused).
async function readAfterSwap(
  ws: Workspace,
  path: string,
  lookups: Lookups,
): Promise<string | undefined> {
  try {
    return await text(ws, path, lookups);
  } catch (error) {
    assert.ok(error instanceof WorkspaceError, String(error));
    assert.ok(
      ["outside", "changing"].includes(error.code),
      `refused as ${error.code}`,
    );
    return undefined;
  }
}

// Directories are settled readings only once their times are old enough.
function aged(path: string): Promise<void> {
  const past = new Date(Date.now() - 60_000);
  return Deno.utime(path, past, past);
}

Deno.test("Lookups: a run of lookups reads what single lookups read", async () => {
  const { root } = await tree();
  try {
    const ws = await Workspace.open(root);
    const lookups = new Lookups();
    assert.equal(await text(ws, "a/b/one.txt", lookups), "one");
    assert.equal(await text(ws, "a/b/two.txt", lookups), "two");
    // The rules of a directory passed still hold for the names below it.
    await assert.rejects(
      () => text(ws, "a/b/secret.env", lookups),
      (error) => error instanceof WorkspaceError && error.code === "ignored",
    );
    await assert.rejects(
      () => text(ws, "a/b/none.txt", lookups),
      (error) => error instanceof WorkspaceError && error.code === "not_found",
    );
  } finally {
    await Deno.remove(`${root}/..`, { recursive: true });
  }
});

Deno.test("Lookups: a directory passed, then swapped for a link out, is not followed", async () => {
  const { root, outside } = await tree();
  try {
    for (const dir of [`${root}/a/b`, `${root}/a`, root]) await aged(dir);
    const ws = await Workspace.open(root);
    const lookups = new Lookups();
    assert.equal(await text(ws, "a/b/one.txt", lookups), "one");
    // `a/b` becomes a link to a directory outside the root.
    await Deno.rename(`${root}/a/b`, `${root}/a/moved`);
    await Deno.symlink(`${outside}/b`, `${root}/a/b`);
    const read = await readAfterSwap(ws, "a/b/two.txt", lookups);
    assert.notEqual(read, "OUTSIDE");
    // Put back as a real directory of other files: found anew.
    await Deno.remove(`${root}/a/b`);
    await Deno.mkdir(`${root}/a/b`);
    await Deno.writeTextFile(`${root}/a/b/two.txt`, "new two");
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(await text(ws, "a/b/two.txt", lookups), "new two");
  } finally {
    await Deno.remove(`${root}/..`, { recursive: true });
  }
});

Deno.test("Lookups: expected files are read ahead, many in one bracket, and read as single lookups read them", async () => {
  const { root } = await tree();
  try {
    const paths: string[] = [];
    for (let d = 0; d < 6; d++) {
      await Deno.mkdir(`${root}/a/b/c${d}/e`, { recursive: true });
      for (let f = 0; f < 3; f++) {
        await Deno.writeTextFile(`${root}/a/b/c${d}/e/f${f}.txt`, `${d}${f}`);
        paths.push(`a/b/c${d}/e/f${f}.txt`);
      }
      await aged(`${root}/a/b/c${d}/e`);
      await aged(`${root}/a/b/c${d}`);
    }
    for (const dir of [`${root}/a/b`, `${root}/a`, root]) await aged(dir);
    const ws = await Workspace.open(root, { descriptorPaths: false });
    const run = async (expect: boolean) => {
      const lookups = new Lookups();
      if (expect) lookups.expect(paths);
      const { result: texts, calls } = await lstatCalls(async () => {
        const texts = [];
        for (const path of paths) texts.push(await text(ws, path, lookups));
        return texts;
      });
      return { texts, calls };
    };
    const single = await run(false);
    const ahead = await run(true);
    assert.deepEqual(ahead.texts, single.texts);
    assert.equal(single.texts[4], "11");
    // Each file's open bracketed on its own (the five directories above
    // it read after), against one bracket for the 18.
    assert.ok(
      ahead.calls < single.calls - 18 * 3,
      `${ahead.calls} lstat calls read ahead, ${single.calls} without`,
    );
    // A run may skip expected paths (a search that stops, a file gone):
    // those after are still found, and read ahead.
    const skipping = new Lookups();
    skipping.expect(paths);
    const some = await lstatCalls(async () => {
      const texts = [];
      for (let i = 0; i < paths.length; i += 2) {
        texts.push(await text(ws, paths[i], skipping));
      }
      return texts;
    });
    assert.deepEqual(
      some.result,
      single.texts.filter((_, i) => i % 2 === 0),
    );
    assert.ok(some.calls < single.calls / 2, `${some.calls} skipping`);
  } finally {
    await Deno.remove(`${root}/..`, { recursive: true });
  }
});

Deno.test("Lookups: a file read ahead is opened as its path names it now: a swap in between is never followed out", async () => {
  for (const swapped of ["a/b", "a"]) {
    const { root, outside } = await tree();
    try {
      await Deno.mkdir(`${outside}/a/b`, { recursive: true });
      await Deno.writeTextFile(`${outside}/a/b/two.txt`, "OUTSIDE");
      for (const dir of [`${root}/a/b`, `${root}/a`, root]) await aged(dir);
      const ws = await Workspace.open(root, { descriptorPaths: false });
      const lookups = new Lookups();
      lookups.expect(["a/b/one.txt", "a/b/two.txt"]);
      // Reads a/b/two.txt's metadata ahead, in the same bracket.
      assert.equal(await text(ws, "a/b/one.txt", lookups), "one");
      // Then a directory on its path becomes a link out of the root.
      await Deno.rename(`${root}/${swapped}`, `${root}/moved`);
      await Deno.symlink(
        swapped === "a" ? `${outside}/a` : `${outside}/b`,
        `${root}/${swapped}`,
      );
      const read = await readAfterSwap(ws, "a/b/two.txt", lookups);
      assert.notEqual(read, "OUTSIDE", `${swapped} swapped`);
    } finally {
      await Deno.remove(`${root}/..`, { recursive: true });
    }
  }
});

Deno.test("Lookups: a file read ahead, then replaced, reads as it is now", async () => {
  const { root } = await tree();
  try {
    for (const dir of [`${root}/a/b`, `${root}/a`, root]) await aged(dir);
    const ws = await Workspace.open(root, { descriptorPaths: false });
    const lookups = new Lookups();
    lookups.expect(["a/b/one.txt", "a/b/two.txt"]);
    assert.equal(await text(ws, "a/b/one.txt", lookups), "one");
    await Deno.remove(`${root}/a/b/two.txt`);
    await Deno.writeTextFile(`${root}/a/b/two.txt`, "replaced");
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(await text(ws, "a/b/two.txt", lookups), "replaced");
  } finally {
    await Deno.remove(`${root}/..`, { recursive: true });
  }
});
