import { strict as assert } from "node:assert";
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
    let read: string | undefined;
    try {
      read = await text(ws, "a/b/two.txt", lookups);
    } catch (error) {
      assert.ok(error instanceof WorkspaceError, String(error));
      assert.ok(
        ["outside", "changing"].includes(error.code),
        `refused as ${error.code}`,
      );
    }
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
