/**
 * Differential test of `find_symbol` with `--index`: on generated trees
 * (source in several languages, nested `.gitignore` files, links in and
 * out of the root, binary, oversized and UTF-16 files, a name that is not
 * UTF-8), the answer when the index names the files to read must be
 * exactly the walk's (definitions, order, caps and every note), for exact,
 * prefix and glob names, kinds, paths and limits that cut the results;
 * and again after files change, once the index has caught up. It also
 * checks that the index did answer (no walk happened) where it can.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { handlers } from "../handlers/mod.ts";
import { McpServer } from "../mcp/server.ts";
import { Session } from "../mcp/session.ts";
import { workspaceTools } from "../tools/mod.ts";
import { stopSymbolWorkers } from "../tools/symbol_parser.ts";
import type { WorkspaceView } from "../workspace/roots.ts";
import { TextIndex } from "../workspace/text_index.ts";
import { Workspace } from "../workspace/workspace.ts";
import { prng } from "./prng.ts";
import { call, TEST_CAPS, textOf } from "./tools_harness.ts";
import { within } from "./within.ts";

// Small, so that some files are over the symbol tools' cap (the smaller
// of this and their own) and some over the index's read cap.
const MAX_READ = 3000;

const NAMES = ["needle", "needleTwo", "Needle", "haystack", "ne", "xNeedle"];

/** One definition (or a use of a name) in the language of `file`. */
function snippet(file: string, name: string, random: () => number): string {
  const use = random() < 0.2;
  if (file.endsWith(".py")) {
    return use ? `x = ${name}()\n` : `def ${name}():\n    pass\n`;
  }
  if (file.endsWith(".c")) {
    return use
      ? `int y = ${name};\n`
      : `static int ${name}(void) {\n  return 0;\n}\n`;
  }
  if (use) return `const y = ${name};\n`;
  return random() < 0.3
    ? `class ${name} {\n  ${name}() {}\n}\n`
    : `function ${name}() {}\n`;
}

function source(file: string, random: () => number): string {
  let text = "";
  const count = 1 + Math.floor(random() * 6);
  for (let i = 0; i < count; i++) {
    text += snippet(file, NAMES[Math.floor(random() * NAMES.length)], random);
  }
  return text;
}

function utf16(value: string): Uint8Array {
  const out = new Uint8Array(2 + value.length * 2);
  out[0] = 0xff;
  out[1] = 0xfe;
  for (let i = 0; i < value.length; i++) {
    out[2 + 2 * i] = value.charCodeAt(i) & 0xff;
    out[3 + 2 * i] = value.charCodeAt(i) >> 8;
  }
  return out;
}

function content(file: string, random: () => number): Uint8Array {
  const kind = random();
  const text = source(file, random);
  const encode = (t: string) => new TextEncoder().encode(t);
  if (kind < 0.06) return encode(`${text}\0binary`);
  // Over the symbol cap, under the index's: text the index holds.
  if (kind < 0.12) return encode(text + `// ${"x".repeat(MAX_READ)}\n`);
  // Over the index's read cap too.
  if (kind < 0.16) return encode(text + `// ${"x".repeat(2 * MAX_READ)}\n`);
  if (kind < 0.2) return utf16(text);
  return encode(text);
}

const DIRS = ["src", "lib", "build", "a", "a/b", "x y", "über", "deep/er"];
const FILES = ["main.c", "util.js", "mod.py", "lib.ts", "app.tsx", "notes.md"];
const RULES = ["*.py", "!keep.py", "/build", "a/b", "*.md"];

async function generate(seed: number): Promise<string> {
  const random = prng(seed);
  const base = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "symbol_index_differential_" }),
  );
  const root = `${base}/root`;
  await Deno.mkdir(root);
  await Deno.mkdir(`${base}/outside`);
  await Deno.writeTextFile(`${base}/outside/o.ts`, "function needle() {}\n");
  const dirs = [""];
  for (const dir of DIRS) {
    if (random() < 0.2) continue;
    await Deno.mkdir(`${root}/${dir}`, { recursive: true });
    dirs.push(dir);
  }
  for (const dir of dirs) {
    const at = dir === "" ? root : `${root}/${dir}`;
    for (const name of FILES) {
      if (random() < 0.3) continue;
      await Deno.writeFile(`${at}/${name}`, content(name, random));
    }
    if (random() < 0.4) {
      const rules = RULES.filter(() => random() < 0.4);
      await Deno.writeTextFile(`${at}/.gitignore`, rules.join("\n"));
    }
  }
  await Deno.writeTextFile(`${root}/always.ts`, "function needle() {}\n");
  await Deno.mkdir(`${root}/.git`);
  await Deno.writeTextFile(`${root}/.git/hook.ts`, "function needle() {}\n");
  const targets = [
    `${root}/${dirs[Math.floor(random() * dirs.length)]}`,
    `${base}/outside/o.ts`,
    `${base}/outside`,
    "missing",
  ];
  for (let i = 0; i < targets.length; i++) {
    const dir = dirs[Math.floor(random() * dirs.length)];
    const at = dir === "" ? root : `${root}/${dir}`;
    await Deno.symlink(targets[i], `${at}/link${i}`).catch(() => {});
  }
  if (seed % 2 === 0) {
    // A name that is not UTF-8: the walk leaves it out, and says so.
    await new Deno.Command("sh", {
      args: [
        "-c",
        `printf 'function needle() {}\\n' > "$1/bad$(printf '\\377')name.ts"`,
        "sh",
        root,
      ],
    }).output();
  }
  return root;
}

/** A server with the workspace tools over `view`, indexed by `index`. */
async function server(
  view: WorkspaceView,
  index?: TextIndex,
): Promise<{ server: McpServer; session: Session }> {
  const server = new McpServer({
    info: { name: "shipcode-mcp", version: "1" },
    handlers,
    protocolVersions: ["2025-06-18"],
  });
  const caps = { ...TEST_CAPS, maxReadBytes: MAX_READ, maxMatches: 1000 };
  for (const tool of workspaceTools(view, caps, index)) {
    server.tools.register(tool);
  }
  const session = new Session(() => {});
  await server.handle({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "test", version: "1" },
    },
  }, session);
  return { server, session };
}

/** `ws`, counting its walks. */
function counting(ws: Workspace): { view: WorkspaceView; walks: () => number } {
  let walks = 0;
  return {
    view: {
      resolve: (path) => ws.resolve(path),
      open: (target) => ws.open(target),
      readFile: (target, options) => ws.readFile(target, options),
      walk: (options) => {
        walks++;
        return ws.walk(options);
      },
    },
    walks: () => walks,
  };
}

const QUERIES: Record<string, unknown>[] = [
  { name: "needle" },
  { name: "needle", limit: 1 },
  { name: "needle", limit: 2 },
  { name: "needle", limit: 5 },
  { name: "need", match: "prefix" },
  { name: "need", match: "prefix", limit: 3 },
  { name: "*eedle*", match: "glob" },
  { name: "?eedle", match: "glob", limit: 4 },
  { name: "*", match: "glob", limit: 7 },
  { name: "ne" },
  { name: "Needle", kind: "class" },
  { name: "haystack", kind: "function" },
  { name: "no_such_name_here" },
  { name: "needle", path: "src" },
  { name: "needle", path: "a", limit: 2 },
  { name: "needle", path: "link0" },
  { name: "needle", path: "always.ts" },
];

/**
 * Queries on the whole tree: the index answers them whenever it is
 * current and no file changed under it.
 */
const ANSWERABLE = new Set(
  [
    { name: "needle" },
    { name: "needle", limit: 2 },
    { name: "need", match: "prefix" },
    { name: "*eedle*", match: "glob" },
    { name: "ne" },
    { name: "no_such_name_here" },
  ].map((args) => JSON.stringify(args)),
);

/** Run every query on both servers; returns how many the index answered. */
async function compare(
  walked: { server: McpServer; session: Session },
  indexed: { server: McpServer; session: Session },
  walks: () => number,
): Promise<number> {
  let answered = 0;
  const must = new Set(ANSWERABLE);
  for (const args of QUERIES) {
    const expected = await call(
      walked.server,
      walked.session,
      "find_symbol",
      args,
    )
      .then(textOf, (error) => String(error));
    const before = walks();
    const actual = await call(
      indexed.server,
      indexed.session,
      "find_symbol",
      args,
    )
      .then(textOf, (error) => String(error));
    assert.equal(actual, expected, `find_symbol ${JSON.stringify(args)}`);
    if (walks() === before) {
      answered++;
      must.delete(JSON.stringify(args));
    }
  }
  assert.deepEqual([...must], [], "the index did not answer these");
  return answered;
}

async function caughtUp(index: TextIndex, seen: number): Promise<void> {
  for (let i = 0; i < 3000 && index.changesSeen === seen; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.ok(index.changesSeen > seen, "the watch reported no change");
  await within(index.whenCurrent());
  await new Promise((resolve) => setTimeout(resolve, 100));
  await within(index.whenCurrent());
}

Deno.test("index: find_symbol answers as the walk does, before and after changes", async () => {
  try {
    for (const seed of [1, 2, 3, 4]) {
      const root = await generate(seed);
      const ws = await Workspace.open(root);
      const index = TextIndex.start(ws, { maxReadBytes: MAX_READ });
      try {
        const walked = await server(await Workspace.open(root));
        const { view, walks } = counting(ws);
        const indexed = await server(view, index);
        await within(index.whenCurrent());
        assert.ok(index.view() !== undefined, `seed ${seed}: not built`);
        const answered = await compare(walked, indexed, walks);
        assert.ok(
          answered >= 10,
          `seed ${seed}: the index answered ${answered}`,
        );

        // Content changes, a file appears, a rule changes.
        const seen = index.changesSeen;
        await Deno.writeTextFile(
          `${root}/always.ts`,
          "class needle {}\nfunction needleTwo() {}\n",
        );
        await Deno.writeTextFile(`${root}/fresh.py`, "def needle():\n  pass\n");
        await Deno.writeTextFile(`${root}/.gitignore`, "*.c\n");
        await caughtUp(index, seen);
        await compare(walked, indexed, walks);
      } catch (error) {
        (error as Error).message = `seed ${seed}: ${(error as Error).message}`;
        throw error;
      } finally {
        index.close();
        await Deno.remove(`${root}/..`, { recursive: true });
      }
    }
  } finally {
    stopSymbolWorkers();
  }
});

Deno.test("index: find_symbol walks instead when a file changed under the index", async () => {
  const root = await generate(5);
  const ws = await Workspace.open(root);
  const index = TextIndex.start(ws, { maxReadBytes: MAX_READ, quietMs: 5000 });
  try {
    const walked = await server(await Workspace.open(root));
    const indexed = await server(ws, index);
    await within(index.whenCurrent());
    // Written while the index waits out its quiet time: it does not
    // answer, or a read finds the file changed; either way the walk does.
    await Deno.writeTextFile(`${root}/always.ts`, "function needle(a) {}\n");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const args = { name: "needle" };
    assert.equal(
      textOf(await call(indexed.server, indexed.session, "find_symbol", args)),
      textOf(await call(walked.server, walked.session, "find_symbol", args)),
    );
  } finally {
    index.close();
    stopSymbolWorkers();
    await Deno.remove(`${root}/..`, { recursive: true });
  }
});
