/**
 * Several roots as one tree: names, addressing, walks from the top and
 * inside a root, and the sandbox of each root (links and `..` between
 * roots are refused as leaving the root, with or without the other root
 * being served).
 */

import { strict as assert } from "node:assert";
import { type Located, rootNames, Roots } from "./roots.ts";
import { type WalkEntry, WorkspaceError } from "./workspace.ts";

const SECRET = "SECRET-IN-ROOT-B-91f2";

interface Tree {
  base: string;
  a: string;
  b: string;
}

// a/ (src/one.ts, link_file -> b/secret.txt, link_dir -> b/, inner -> a/src)
// b/ (secret.txt, nested/deep.txt)
async function tree(): Promise<Tree> {
  const base = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "shipcode-roots-" }),
  );
  const a = `${base}/a`;
  const b = `${base}/b`;
  await Deno.mkdir(`${a}/src`, { recursive: true });
  await Deno.mkdir(`${b}/nested`, { recursive: true });
  await Deno.writeTextFile(`${a}/src/one.ts`, "export const one = 1;\n");
  await Deno.writeTextFile(`${b}/secret.txt`, SECRET);
  await Deno.writeTextFile(`${b}/nested/deep.txt`, "deep\n");
  await Deno.symlink(`${b}/secret.txt`, `${a}/link_file`);
  await Deno.symlink("../b", `${a}/link_dir`);
  await Deno.symlink("src", `${a}/inner`);
  return { base, a, b };
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

async function lines(
  roots: Roots,
  options: Parameters<Roots["walk"]>[0] = {},
): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of roots.walk(options)) {
    out.push(`${entry.depth} ${entry.relative}${entry.isDirectory ? "/" : ""}`);
  }
  return out;
}

Deno.test("rootNames: base names, made unique in order", () => {
  assert.deepEqual(rootNames(["/x/app", "/y/app/", "/z/lib", "/w/app"]), [
    "app",
    "app-2",
    "lib",
    "app-3",
  ]);
  assert.deepEqual(rootNames(["/", "/srv/root"]), ["root", "root-2"]);
});

Deno.test("Roots.locate: a root's name first, absolute paths by prefix, the top", async () => {
  const t = await tree();
  try {
    const roots = await Roots.open([t.a, t.b]);
    const where = (path: string) => {
      const located: Located | undefined = roots.locate(path);
      return located && [located.root.name, located.path];
    };
    assert.equal(where(""), undefined);
    assert.equal(where("."), undefined);
    assert.equal(where("./"), undefined);
    assert.deepEqual(where("a"), ["a", ""]);
    assert.deepEqual(where("./b/nested/deep.txt"), ["b", "nested/deep.txt"]);
    assert.deepEqual(where(`${t.b}/nested`), ["b", `${t.b}/nested`]);
    assert.deepEqual(where(t.a), ["a", t.a]);
    assert.throws(() => roots.locate("c/x"), /in no root.*"a", "b"/);
    assert.throws(() => roots.locate("../a"), /outside every root/);
    assert.throws(() => roots.locate(`${t.base}/other`), /outside every root/);
    assert.throws(() => roots.locate(`${t.a}x/y`), /outside every root/);
  } finally {
    await Deno.remove(t.base, { recursive: true });
  }
});

Deno.test("Roots.locate: a nested root owns the absolute paths inside it", async () => {
  const t = await tree();
  try {
    const roots = await Roots.open([t.base, t.b]);
    assert.equal(roots.locate(`${t.b}/secret.txt`)?.root.name, "b");
    assert.equal(roots.locate(`${t.a}/src`)?.root.name, roots.roots[0].name);
  } finally {
    await Deno.remove(t.base, { recursive: true });
  }
});

Deno.test("Roots.walk: the roots at the top, each followed by its tree", async () => {
  const t = await tree();
  try {
    const roots = await Roots.open([t.b, t.a]);
    assert.deepEqual(await lines(roots, { maxDepth: 1 }), ["1 a/", "1 b/"]);
    const deep = await lines(roots, { maxDepth: 3 });
    assert.deepEqual(deep.filter((l) => l.startsWith("2 b/") || l === "1 b/"), [
      "1 b/",
      "2 b/nested/",
      "2 b/secret.txt",
    ]);
    assert.ok(deep.includes("3 a/src/one.ts"), deep.join("\n"));
    assert.ok(deep.includes("3 b/nested/deep.txt"), deep.join("\n"));
    // Inside a root: paths keep the root's name.
    assert.deepEqual(await lines(roots, { path: "b/nested" }), [
      "1 b/nested/deep.txt",
    ]);
  } finally {
    await Deno.remove(t.base, { recursive: true });
  }
});

Deno.test("Roots: walk entries open and read as the root's own", async () => {
  const t = await tree();
  try {
    const roots = await Roots.open([t.a, t.b]);
    let entry: WalkEntry | undefined;
    for await (const e of roots.walk({ path: "a/src" })) entry = e;
    assert.equal(entry?.relative, "a/src/one.ts");
    const read = await roots.readFile(entry!, { maxBytes: 100 });
    assert.equal(read.relative, "a/src/one.ts");
    assert.equal(
      new TextDecoder().decode(read.bytes),
      "export const one = 1;\n",
    );
    using handle = await roots.open("b/nested/deep.txt");
    assert.equal(handle.relative, "b/nested/deep.txt");
    assert.equal(handle.absolute, `${t.b}/nested/deep.txt`);
    assert.equal(new TextDecoder().decode(handle.head(100)), "deep\n");
    const resolved = await roots.resolve("a/inner");
    assert.equal(resolved.relative, "a/inner");
    assert.ok(resolved.info.isDirectory);
    const top = await roots.resolve("");
    assert.equal(top.relative, "");
    assert.ok(top.info.isDirectory);
    assert.equal(await codeOf(roots.open("")), "not_a_file");
  } finally {
    await Deno.remove(t.base, { recursive: true });
  }
});

Deno.test("Roots sandbox: a link or '..' from one root into another is refused", async () => {
  const t = await tree();
  try {
    // The other root is served too: still refused, each root stands alone.
    for (const paths of [[t.a, t.b], [t.a, `${t.base}/a/src`]]) {
      const roots = await Roots.open(paths);
      for (
        const path of [
          "a/link_file",
          "a/link_dir",
          "a/link_dir/secret.txt",
          "a/../b/secret.txt",
          "a/src/../../b/secret.txt",
          `${t.a}/link_file`,
        ]
      ) {
        assert.equal(await codeOf(roots.open(path)), "outside", path);
        assert.equal(
          await codeOf(roots.readFile(path, { maxBytes: 100 })),
          "outside",
          path,
        );
      }
      // A walk of root a never yields the other root's files.
      const all = await lines(roots, { path: "a" });
      assert.ok(!all.some((l) => l.includes("secret")), all.join("\n"));
    }
    // The message names the path as given and its root.
    const roots = await Roots.open([t.a, t.b]);
    await assert.rejects(
      roots.open("a/link_file"),
      /"a\/link_file" is outside the root "a"/,
    );
    // A link inside the same root still works.
    using inner = await roots.open("a/inner/one.ts");
    assert.equal(inner.relative, "a/inner/one.ts");
  } finally {
    await Deno.remove(t.base, { recursive: true });
  }
});

Deno.test("Roots: refusals inside a root name the client's path", async () => {
  const t = await tree();
  try {
    const roots = await Roots.open([t.a, t.b]);
    await assert.rejects(
      roots.open("b/nope.txt"),
      (error: unknown) =>
        error instanceof WorkspaceError && error.code === "not_found" &&
        error.path === "b/nope.txt" && error.message.includes('"b/nope.txt"'),
    );
    await assert.rejects(
      lines(roots, { path: "b/secret.txt" }),
      /"b\/secret.txt" is a file, not a directory/,
    );
  } finally {
    await Deno.remove(t.base, { recursive: true });
  }
});
