import { strict as assert } from "node:assert";
import { completePath } from "./complete_path.ts";
import { Workspace } from "./workspace.ts";

async function tree(): Promise<{ root: string; outside: string }> {
  const base = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "shipcode-complete-" }),
  );
  const root = `${base}/root`;
  const outside = `${base}/outside`;
  await Deno.mkdir(`${root}/many`, { recursive: true });
  await Deno.mkdir(`${root}/src/lib`, { recursive: true });
  await Deno.mkdir(`${root}/build`);
  await Deno.mkdir(outside);
  await Deno.writeTextFile(`${outside}/secret.txt`, "secret");
  for (let i = 0; i < 150; i++) {
    await Deno.writeTextFile(
      `${root}/many/f${String(i).padStart(3, "0")}.txt`,
      "",
    );
  }
  await Deno.writeTextFile(`${root}/.gitignore`, "build/\n*.log\n");
  await Deno.writeTextFile(`${root}/app.log`, "");
  await Deno.writeTextFile(`${root}/apple.ts`, "");
  await Deno.writeTextFile(`${root}/.env.example`, "");
  await Deno.writeTextFile(`${root}/src/main.ts`, "");
  await Deno.writeTextFile(`${root}/build/out.js`, "");
  await Deno.symlink(outside, `${root}/escape`);
  return { root, outside };
}

Deno.test("completePath: one level at a time, directories end with /", async () => {
  const { root } = await tree();
  const ws = await Workspace.open(root);
  assert.deepEqual(await completePath(ws, ""), {
    // Hidden entries last; ignored ones and the link out of the root never.
    values: ["apple.ts", "many/", "src/", ".env.example", ".gitignore"],
    total: 5,
  });
  assert.deepEqual(await completePath(ws, "src/"), {
    values: ["src/lib/", "src/main.ts"],
    total: 2,
  });
  assert.deepEqual((await completePath(ws, "./src/m")).values, [
    "src/main.ts",
  ]);
  assert.deepEqual(
    (await completePath(ws, "", { directoriesOnly: true })).values,
    ["many/", "src/"],
  );
});

Deno.test("completePath: .gitignore and the root's bounds hold", async () => {
  const { root } = await tree();
  const ws = await Workspace.open(root);
  for (const typed of ["ap", "build/", "b", "../", "../outside/", "escape/"]) {
    const { values } = await completePath(ws, typed);
    assert.ok(
      values.every((v) => v === "apple.ts"),
      `${typed}: ${values}`,
    );
  }
  assert.deepEqual((await completePath(ws, "escape/")).values, []);
  assert.deepEqual((await completePath(ws, "no/such/")).values, []);
  assert.deepEqual((await completePath(ws, "apple.ts/")).values, []);
  const all = await Workspace.open(root, { includeIgnored: true });
  assert.deepEqual((await completePath(all, "ap")).values, [
    "app.log",
    "apple.ts",
  ]);
});

Deno.test("completePath: at most limit values, total counts them all", async () => {
  const { root } = await tree();
  const ws = await Workspace.open(root);
  const found = await completePath(ws, "many/f");
  assert.equal(found.values.length, 100);
  assert.equal(found.total, 150);
  assert.equal(found.values[0], "many/f000.txt");
  assert.equal(found.values[99], "many/f099.txt");
  assert.deepEqual(await completePath(ws, "many/f14", { limit: 3 }), {
    values: ["many/f140.txt", "many/f141.txt", "many/f142.txt"],
    total: 10,
  });
});

Deno.test("completePath: stops when the signal aborts", async () => {
  const { root } = await tree();
  const ws = await Workspace.open(root);
  const controller = new AbortController();
  controller.abort(new Error("cancelled"));
  await assert.rejects(
    completePath(ws, "many/", { signal: controller.signal }),
    /cancelled/,
  );
});
