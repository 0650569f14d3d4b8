import { strict as assert } from "node:assert";
import { FILE_SKIPPED, FILE_TEXT, TextIndex } from "./text_index.ts";
import { trigramsOf } from "./trigrams.ts";
import { Workspace } from "./workspace.ts";
import { within } from "../tests/within.ts";

async function tree(): Promise<string> {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "text_index_" }),
  );
  await Deno.mkdir(`${root}/a/b`, { recursive: true });
  await Deno.mkdir(`${root}/z`);
  await Deno.writeTextFile(`${root}/.gitignore`, "*.log\n");
  await Deno.writeTextFile(`${root}/a/x.log`, "ignored needle\n");
  await Deno.writeTextFile(`${root}/a/b/text.c`, "int Needle;\n");
  await Deno.writeFile(`${root}/a/bin`, new Uint8Array([1, 0, 2]));
  await Deno.writeTextFile(`${root}/a/big.txt`, "needle".repeat(100));
  // UTF-16 LE with a byte-order mark: "hé needle".
  const text = "hé needle";
  const utf16 = new Uint8Array(2 + 2 * text.length);
  utf16.set([0xff, 0xfe]);
  for (let i = 0; i < text.length; i++) utf16[2 + 2 * i] = text.charCodeAt(i);
  await Deno.writeFile(`${root}/a/wide.txt`, utf16);
  await Deno.symlink(`${root}/a/b/text.c`, `${root}/link.c`);
  await Deno.writeTextFile(`${root}/z/last.txt`, "last\n");
  // A name that is not UTF-8, counted when z/ is listed.
  await new Deno.Command("sh", {
    args: ["-c", `printf 'x' > "$1/z/m$(printf '\\377')"`, "sh", root],
  }).output();
  return root;
}

Deno.test("TextIndex: the walk's files in its order, as a search sees each", async () => {
  const root = await tree();
  const ws = await Workspace.open(root);
  const index = TextIndex.start(ws, { maxReadBytes: 100 });
  try {
    assert.equal(index.view(), undefined);
    await within(index.whenCurrent());
    const view = index.view();
    assert.ok(view !== undefined);
    const walked: string[] = [];
    for await (const entry of ws.walk()) {
      if (entry.isFile) walked.push(entry.relative);
    }
    const listed = [...view.order].map((id) => view.relative[id]);
    assert.deepEqual(listed, walked);
    assert.ok(!listed.includes("a/x.log"));
    const kind = (path: string) => view.kinds[view.order[listed.indexOf(path)]];
    const length = (path: string) =>
      view.lengths[view.order[listed.indexOf(path)]];
    assert.equal(kind("a/bin"), FILE_SKIPPED);
    assert.equal(kind("a/big.txt"), FILE_SKIPPED);
    assert.equal(kind("a/wide.txt"), FILE_TEXT);
    assert.equal(length("a/wide.txt"), "hé needle".length);
    assert.equal(kind("link.c"), FILE_TEXT);
    // The bad name is counted when its directory is listed: before the
    // first file in it.
    assert.deepEqual(view.skipEvents, [{
      file: listed.indexOf("z/last.txt"),
      kind: "badNames",
      count: 1,
    }]);
    const marks = view.matching(trigramsOf("needle"));
    const holding = listed.filter((_, at) => marks[view.order[at]] === 1);
    assert.deepEqual(holding, ["a/b/text.c", "a/wide.txt", "link.c"]);
    assert.equal(index.stats?.files, listed.length);
  } finally {
    index.close();
    await Deno.remove(root, { recursive: true });
  }
  assert.equal(index.view(), undefined);
});

Deno.test("TextIndex: a link's target changing is seen through the link", async () => {
  const root = await tree();
  const ws = await Workspace.open(root);
  const index = TextIndex.start(ws, { maxReadBytes: 100 });
  try {
    await within(index.whenCurrent());
    const seen = index.changesSeen;
    await Deno.writeTextFile(`${root}/a/b/text.c`, "haystack only\n");
    for (let i = 0; i < 3000 && index.changesSeen === seen; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await within(index.whenCurrent());
    const view = index.view();
    assert.ok(view !== undefined);
    const marks = view.matching(trigramsOf("haystack"));
    const holding = [...view.order].filter((id) => marks[id] === 1)
      .map((id) => view.relative[id]);
    assert.deepEqual(holding, ["a/b/text.c", "link.c"]);
  } finally {
    index.close();
    await Deno.remove(root, { recursive: true });
  }
});
