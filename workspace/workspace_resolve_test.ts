import assert from "node:assert/strict";
import { Workspace, WorkspaceError } from "./workspace.ts";
import { isProbablyText } from "./content.ts";
import { mimeTypeOf } from "./mime.ts";
import { makeTempWorkspace } from "../tests/tools_fixture.ts";

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
): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of ws.walk(options)) {
    out.push(`${entry.depth} ${entry.relative}${entry.isDirectory ? "/" : ""}`);
  }
  return out;
}

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
  const entries = await walkAll(ws);
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
  assert.deepEqual(await walkAll(ws, { path: "src", maxDepth: 2 }), [
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

Deno.test("isProbablyText and mimeTypeOf", () => {
  const enc = new TextEncoder();
  assert.equal(isProbablyText(enc.encode("plain text\n")), true);
  assert.equal(isProbablyText(enc.encode("日本語")), true);
  // Cut in the middle of a multi-byte character: still text.
  assert.equal(isProbablyText(enc.encode("日本語").subarray(0, 4)), true);
  assert.equal(isProbablyText(new Uint8Array([0x61, 0, 0x62])), false);
  assert.equal(isProbablyText(new Uint8Array([0xff, 0xfe, 0x61, 0])), true);
  assert.equal(isProbablyText(new Uint8Array([0xc3, 0x28, 0x61, 0x62])), false);
  assert.equal(isProbablyText(new Uint8Array()), true);
  assert.equal(mimeTypeOf("a/b.png"), "image/png");
  assert.equal(mimeTypeOf("main.ts"), "text/x-typescript");
  assert.equal(mimeTypeOf("README.md"), "text/markdown");
  assert.equal(mimeTypeOf("Makefile"), undefined);
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
