import { strict as assert } from "node:assert";
import {
  CACHE_VERSION,
  CacheError,
  cacheFile,
  loadCache,
  saveCache,
} from "./index_cache.ts";
import { scanTree } from "./index_data.ts";
import { TextIndex } from "./text_index.ts";
import { Postings, TRIGRAM_COUNT, trigramsOf } from "./trigrams.ts";
import { Workspace } from "./workspace.ts";
import { within } from "../tests/within.ts";

async function tree(): Promise<string> {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "index_cache_" }),
  );
  await Deno.mkdir(`${root}/a/b`, { recursive: true });
  await Deno.writeTextFile(`${root}/.gitignore`, "*.log\n");
  await Deno.writeTextFile(`${root}/a/x.log`, "ignored needle\n");
  await Deno.writeTextFile(`${root}/a/b/text.c`, "int Needle;\n");
  await Deno.writeFile(`${root}/a/bin`, new Uint8Array([1, 0, 2]));
  await Deno.writeTextFile(`${root}/z.txt`, "haystack ünïcödé needle\n");
  return root;
}

/** Build (and save) the index of `root` with the cache in `dir`. */
async function built(root: string, dir: string, noWorker = false) {
  const ws = await Workspace.open(root);
  const index = TextIndex.start(ws, {
    maxReadBytes: 1000,
    cacheDir: dir,
    noWorker,
  });
  await within(index.whenCurrent());
  const view = index.view();
  assert.ok(view !== undefined);
  index.close();
  return { index, view, stats: index.stats! };
}

function holding(
  view: NonNullable<ReturnType<TextIndex["view"]>>,
  text: string,
): string[] {
  const marks = view.matching(trigramsOf(text));
  return [...view.order].filter((id) => marks[id] === 1).map((id) =>
    view.relative[id]
  );
}

const KEY_OF = (root: string) => ({
  root,
  includeIgnored: false,
  maxReadBytes: 1000,
});

Deno.test("index cache: saved, loaded, and the same index as a build", async () => {
  const root = await tree();
  const dir = await Deno.makeTempDir({ prefix: "index_cache_dir_" });
  try {
    const first = await built(root, dir);
    assert.deepEqual(first.stats.cache, ["none", "saved"]);
    assert.equal(first.stats.worker, true);
    // From nothing, a second worker keeps the postings (postings_pipe.ts).
    assert.equal(first.stats.piped, true);
    const file = cacheFile(dir, KEY_OF(root));
    assert.match(
      file,
      new RegExp(`/index-v${CACHE_VERSION}-[0-9a-f]{16}\\.bin$`),
    );
    const data = loadCache(file, KEY_OF(root));
    assert.deepEqual(
      [...data.order].map((id) => data.relative[id]),
      [...first.view.order].map((id) => first.view.relative[id]),
    );
    // Another tree's or other options' cache is not used.
    assert.throws(
      () => loadCache(file, { ...KEY_OF(root), maxReadBytes: 999 }),
      CacheError,
    );
    const second = await built(root, dir);
    assert.equal(second.stats.cache[0], "loaded");
    assert.equal(second.stats.piped, false);
    for (const view of [first.view, second.view]) {
      assert.deepEqual(holding(view, "needle"), ["a/b/text.c", "z.txt"]);
      assert.deepEqual(holding(view, "ünïcödé"), ["z.txt"]);
      assert.deepEqual(holding(view, "no such"), []);
    }
    assert.deepEqual(
      [...second.view.order].map((id) => second.view.kinds[id]),
      [...first.view.order].map((id) => first.view.kinds[id]),
    );
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("index cache: a worker builds the same index as the main thread", async () => {
  const root = await tree();
  const dir = await Deno.makeTempDir({ prefix: "index_cache_dir_" });
  try {
    const worker = await built(root, `${dir}/w`);
    const main = await built(root, `${dir}/m`, true);
    assert.equal(worker.stats.worker, true);
    assert.equal(main.stats.worker, false);
    assert.equal(main.stats.piped, false);
    const shape = (view: typeof worker.view) =>
      [...view.order].map((id) => [
        view.relative[id],
        view.kinds[id],
        view.lengths[id],
      ]);
    assert.deepEqual(shape(worker.view), shape(main.view));
    assert.deepEqual(worker.view.skipEvents, main.view.skipEvents);
    for (const text of ["needle", "int", "ünï", "hay", "zzz"]) {
      assert.deepEqual(holding(worker.view, text), holding(main.view, text));
    }
    // The two cache files are the same bytes.
    const name = cacheFile("", KEY_OF(root)).slice(1);
    assert.deepEqual(
      await Deno.readFile(`${dir}/w/${name}`),
      await Deno.readFile(`${dir}/m/${name}`),
    );
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("index cache: a changed, corrupt or hostile file is refused, and the index rebuilt", async () => {
  const root = await tree();
  const dir = await Deno.makeTempDir({ prefix: "index_cache_dir_" });
  try {
    await built(root, dir);
    const file = cacheFile(dir, KEY_OF(root));
    const good = await Deno.readFile(file);
    const view = new DataView(good.buffer);
    const headerLength = view.getUint32(12, true);
    const corruptions: [string, (bytes: Uint8Array) => Uint8Array][] = [
      ["empty", () => new Uint8Array(0)],
      ["truncated", (b) => b.subarray(0, b.length - 1)],
      [
        "longer",
        (b) => Uint8Array.from([...b.subarray(0, 64), 0, ...b.subarray(64)]),
      ],
      ["magic", (b) => (b[0] ^= 1, b)],
      ["version", (b) => (b[8] = CACHE_VERSION + 1, b)],
      [
        "header length",
        (b) => (new DataView(b.buffer).setUint32(12, 1 << 30, true), b),
      ],
      ["header byte", (b) => (b[16 + 3] ^= 0x20, b)],
      ["tables", (b) => (b[16 + headerLength + 4000] ^= 1, b)],
      ["postings page", (b) => (b[b.length - 200] ^= 0x40, b)],
      ["checksum", (b) => (b[b.length - 1] ^= 1, b)],
    ];
    for (const [what, corrupt] of corruptions) {
      await Deno.writeFile(file, corrupt(good.slice()));
      assert.throws(() => loadCache(file, KEY_OF(root)), CacheError, what);
      const rebuilt = await built(root, dir);
      assert.match(rebuilt.stats.cache[0], /^not used: /, what);
      assert.equal(rebuilt.stats.cache[1], "saved", what);
      assert.deepEqual(holding(rebuilt.view, "needle"), [
        "a/b/text.c",
        "z.txt",
      ]);
    }
    // A header that asks for a huge allocation is refused before it.
    const header = JSON.parse(
      new TextDecoder().decode(good.subarray(16, 16 + headerLength)),
    );
    const huge: [string, number][] = [
      ["ids", 2 ** 40],
      ["pages", 1e9],
      ["files", -1],
    ];
    for (const [field, value] of huge) {
      const text = new TextEncoder().encode(
        JSON.stringify({ ...header, [field]: value }),
      );
      const bytes = new Uint8Array(16 + text.length + 8);
      bytes.set(good.subarray(0, 16));
      new DataView(bytes.buffer).setUint32(12, text.length, true);
      bytes.set(text, 16);
      await Deno.writeFile(file, bytes);
      assert.throws(() => loadCache(file, KEY_OF(root)), CacheError, field);
    }
    // Not a regular file: a directory, a FIFO, a link.
    await Deno.remove(file);
    await Deno.mkdir(file);
    assert.throws(() => loadCache(file, KEY_OF(root)), CacheError);
    await Deno.remove(file);
    await new Deno.Command("mkfifo", { args: [file] }).output();
    assert.throws(() => loadCache(file, KEY_OF(root)), CacheError);
    const fifo = await built(root, dir);
    assert.match(fifo.stats.cache[0], /^not used: /);
    // Saving replaced the FIFO with a file.
    assert.ok(Deno.lstatSync(file).isFile);
    await Deno.remove(file);
    await Deno.writeFile(`${dir}/elsewhere`, good);
    await Deno.symlink(`${dir}/elsewhere`, file);
    assert.throws(() => loadCache(file, KEY_OF(root)), CacheError);
    await built(root, dir);
    // Saving replaced the link, not what it pointed to.
    assert.ok(Deno.lstatSync(file).isFile);
    assert.deepEqual(await Deno.readFile(`${dir}/elsewhere`), good);
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Postings.fromParts: chains that loop or leave the pages are refused", () => {
  const postings = new Postings();
  for (let i = 0; i < 50; i++) postings.addText(`needle ${i} haystack`);
  const parts = postings.parts();
  const copy = () => ({
    ...parts,
    head: parts.head.slice(),
    state: parts.state.slice(),
    pages: parts.pages.map((page) => page.slice(0)),
  });
  // Unchanged: accepted, and answers alike.
  const same = Postings.fromParts(copy());
  assert.deepEqual(
    same.matching(trigramsOf("needle")),
    postings.matching(trigramsOf("needle")),
  );
  const t = trigramsOf("nee")[0];
  const cases: [string, (p: ReturnType<typeof copy>) => void][] = [
    ["head outside", (p) => (p.head[t] = 1 << 30)],
    ["head unaligned", (p) => (p.head[t] += 2)],
    ["tail elsewhere", (p) => (p.state[4 * t + 3] = 8)],
    ["pos outside", (p) => (p.state[4 * t] = 0)],
    ["empty with data", (p) => (p.head[t] = 0)],
    ["table size", (p) => (p.head = p.head.subarray(1))],
    ["loop", (p) => {
      // The first block's next pointer to itself, so the tail is never met.
      const head = p.head[t];
      new Int32Array(p.pages[0])[head >> 2] = head;
      p.state[4 * t + 3] = 1 << 20;
    }],
    ["block size", (p) => {
      new Int32Array(p.pages[0])[(p.head[t] >> 2) + 1] = 1 << 20;
    }],
  ];
  for (const [what, spoil] of cases) {
    const bad = copy();
    spoil(bad);
    assert.throws(() => Postings.fromParts(bad), RangeError, what);
  }
  assert.equal(parts.head.length, TRIGRAM_COUNT);
});

Deno.test("index cache: a file changed while nothing watched is read again, others not", async () => {
  const root = await tree();
  const dir = await Deno.makeTempDir({ prefix: "index_cache_dir_" });
  try {
    const ws = await Workspace.open(root);
    const data = await scanTree(ws, undefined, { maxReadBytes: 1000 });
    assert.ok(data !== undefined);
    const file = cacheFile(dir, KEY_OF(root));
    // Saved just now: every file is racy, so stored as unknown.
    saveCache(file, KEY_OF(root), data);
    const racy = loadCache(file, KEY_OF(root));
    assert.ok(racy.identity.every((n) => Number.isNaN(n)));
    // Saved as if a minute later: known, and nothing is read again.
    saveCache(file, KEY_OF(root), data, Date.now() + 60_000);
    const again = async () => {
      const index = TextIndex.start(await Workspace.open(root), {
        maxReadBytes: 1000,
        cacheDir: dir,
      });
      await within(index.whenCurrent());
      index.close();
      return { stats: index.stats!, view: index.view.call(index) };
    };
    const same = await again();
    assert.deepEqual(same.stats.cache, ["loaded"]);
    assert.equal(same.stats.read, 0);
    assert.equal(same.stats.kept, 4);
    // The same size and modification time, new content: the change time
    // tells.
    const path = `${root}/a/b/text.c`;
    const { mtime, ctime } = await Deno.stat(path);
    // Deno gives change times in whole seconds: a write in the same second
    // as the tree's making would leave every field alike, which no real
    // save allows (it stores files changed within RACY_MS as unknown).
    // Write again until the second has moved on.
    for (let tries = 0; tries < 150; tries++) {
      await Deno.writeTextFile(path, "int Pinned;\n");
      await Deno.utime(path, mtime!, mtime!);
      const now = await Deno.stat(path);
      if (now.ctime!.getTime() !== ctime!.getTime()) break;
      await new Promise((done) => setTimeout(done, 20));
    }
    // Replaced by a rename: a new inode.
    await Deno.writeTextFile(`${root}/z.part`, "haystack ünïcödé pinned\n");
    await Deno.rename(`${root}/z.part`, `${root}/z.txt`);
    await Deno.writeTextFile(`${root}/a/new.txt`, "needle new\n");
    const changed = await again();
    assert.deepEqual(changed.stats.cache, ["loaded", "saved"]);
    assert.equal(changed.stats.read, 3);
    assert.equal(changed.stats.kept, 2);
    const index = TextIndex.start(await Workspace.open(root), {
      maxReadBytes: 1000,
      cacheDir: dir,
    });
    try {
      await within(index.whenCurrent());
      const view = index.view()!;
      assert.deepEqual(holding(view, "needle"), ["a/new.txt"]);
      assert.deepEqual(holding(view, "pinned"), ["a/b/text.c", "z.txt"]);
    } finally {
      index.close();
    }
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(dir, { recursive: true });
  }
});
