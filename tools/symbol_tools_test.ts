import { strict as assert } from "node:assert";
import type { ToolContext } from "../mcp/tool.ts";
import { makeTempWorkspace } from "../tests/tools_fixture.ts";
import { call, TEST_CAPS, textOf, toolServer } from "../tests/tools_harness.ts";
import { Workspace } from "../workspace/workspace.ts";
import { findSymbolTool, literalPart, nameMatcher } from "./find_symbol.ts";
import { stopSymbolWorkers } from "./symbol_parser.ts";
import { docStart } from "./read_symbol.ts";
import { MAX_SYMBOL_FILE_BYTES } from "./symbol_source.ts";
import { PARSE_TIMEOUT_MS } from "../symbols/definitions.ts";

const SOURCE = [
  "/** A box. */",
  "export class Box {",
  "  // Opens it.",
  "  open(): void {}",
  "  close(): void {}",
  "}",
  "",
  "export function makeBox(): Box {",
  "  return new Box();",
  "}",
  "",
].join("\n");

Deno.test("outline: kinds, names, ranges and nesting, as plain text", async () => {
  await using tmp = await makeTempWorkspace();
  await Deno.writeTextFile(`${tmp.root}/src/box.ts`, SOURCE);
  const { server, session } = await toolServer(tmp.root);
  const result = await call(server, session, "outline", { path: "src/box.ts" });
  assert.equal(result.structuredContent, undefined);
  assert.equal(
    textOf(result),
    [
      "src/box.ts (typescript): 4 definitions",
      "class Box 2-6",
      "  method open 4",
      "  method close 5",
      "function makeBox 8-10",
    ].join("\n"),
  );
});

Deno.test("outline: unsupported, binary, too large, ignored and missing files say so", async () => {
  await using tmp = await makeTempWorkspace();
  await Deno.writeFile(
    `${tmp.root}/blob.ts`,
    new Uint8Array([0, 1, 2, 0, 255, 0, 7, 0]),
  );
  // A 10 MB one-line file, over the cap: refused before it is read.
  await Deno.writeTextFile(`${tmp.root}/huge.js`, "x".repeat(10_000_000));
  // Deep nesting under the cap: outlined, or stopped at the parse's time
  // budget with a reason; never a crash or a hang.
  await Deno.writeTextFile(
    `${tmp.root}/deep.js`,
    `x = ${"[".repeat(100_000)}${"]".repeat(100_000)};`,
  );
  const { server, session } = await toolServer(tmp.root);
  const outline = (path: string) => call(server, session, "outline", { path });
  const cases: [string, RegExp][] = [
    ["README.md", /not in a language .* Use read_file/],
    ["blob.ts", /binary file/],
    ["huge.js", /over the \d+-byte limit for symbols; use read_file/],
    ["src/generated.ts", /ignored|gitignore/i],
    ["src/nope.ts", /not found|no such|does not exist/i],
    ["src", /is a directory/],
  ];
  for (const [path, expected] of cases) {
    const result = await outline(path);
    assert.equal(result.isError, true, path);
    assert.match(textOf(result), expected, path);
  }
  const started = performance.now();
  const deep = await outline("deep.js");
  assert.ok(performance.now() - started < PARSE_TIMEOUT_MS + 1000);
  assert.match(
    textOf(deep),
    deep.isError ? /could not be outlined: parsing took longer/ : /deep\.js/,
  );
  assert.ok(MAX_SYMBOL_FILE_BYTES < 10_000_000);
});

Deno.test("find_symbol: exact, prefix, glob and kind, in path order; ignored files left out", async () => {
  await using tmp = await makeTempWorkspace();
  await Deno.writeTextFile(`${tmp.root}/src/box.ts`, SOURCE);
  await Deno.writeTextFile(
    `${tmp.root}/src/generated.ts`,
    "export function makeBox() {}\n",
  );
  const { server, session } = await toolServer(tmp.root);
  const find = async (args: Record<string, unknown>) =>
    textOf(await call(server, session, "find_symbol", args));
  assert.equal(
    await find({ name: "makeBox" }),
    "src/box.ts:8 function makeBox",
  );
  assert.equal(
    await find({ name: "open" }),
    "src/box.ts:4 method open (in Box)",
  );
  assert.equal(
    await find({ name: "gre", match: "prefix" }),
    "src/lib/util.ts:1 function greet",
  );
  assert.equal(
    await find({ name: "*o?e", match: "glob", path: "src" }),
    "src/box.ts:5 method close (in Box)",
  );
  assert.equal(
    await find({ name: "Box", kind: "class" }),
    "src/box.ts:2 class Box",
  );
  assert.match(await find({ name: "nothing" }), /^No definition named/);
});

Deno.test("read_symbol: by name, by Outer.name, by path:line, with its doc comment", async () => {
  await using tmp = await makeTempWorkspace();
  await Deno.writeTextFile(`${tmp.root}/src/box.ts`, SOURCE);
  const { server, session } = await toolServer(tmp.root);
  const read = (args: Record<string, unknown>) =>
    call(server, session, "read_symbol", args);
  assert.equal(
    textOf(await read({ path: "src/box.ts", name: "makeBox" })),
    "src/box.ts:8-10 function makeBox\n 8\texport function makeBox(): Box {\n 9\t  return new Box();\n10\t}",
  );
  assert.equal(
    textOf(await read({ path: "src/box.ts", name: "Box.open", doc: true })),
    "src/box.ts:3-4 method Box.open\n3\t  // Opens it.\n4\t  open(): void {}",
  );
  assert.equal(
    textOf(await read({ path: "src/box.ts:5" })),
    "src/box.ts:5 method Box.close\n5\t  close(): void {}",
  );
  const missing = await read({ path: "src/box.ts", name: "shut" });
  assert.equal(missing.isError, true);
  assert.match(textOf(missing), /no definition named "shut".*outline/);
  const neither = await read({ path: "src/box.ts" });
  assert.equal(neither.isError, true);
});

Deno.test("nameMatcher and literalPart: globs are linear and anchored", () => {
  const glob = nameMatcher("a*b?c", "glob");
  assert.ok(glob("abxc"));
  assert.ok(glob("a123b4c"));
  assert.ok(!glob("abc"));
  assert.ok(!glob("xabxc"));
  // A pattern that backtracks exponentially as a regex stays fast.
  const started = performance.now();
  assert.ok(!nameMatcher("*a*a*a*a*a*a*a*b", "glob")("a".repeat(100)));
  assert.ok(performance.now() - started < 50);
  assert.ok(nameMatcher("par", "prefix")("parse"));
  assert.ok(!nameMatcher("par", "exact")("parse"));
  assert.equal(literalPart("*Tool?x", "glob"), "Tool");
  assert.equal(literalPart("parse", "prefix"), "parse");
});

Deno.test("docStart: comment blocks and line comments right above", () => {
  const lines = ["x", "/**", " * Doc.", " */", "function f() {}"];
  assert.equal(docStart(lines, 5, "typescript"), 2);
  assert.equal(docStart(["# c", "def f():"], 2, "python"), 1);
  assert.equal(docStart(["#include <x>", "int f();"], 2, "cpp"), 2);
  assert.equal(docStart(["/// d", "#[inline]", "fn f() {}"], 3, "rust"), 1);
  assert.equal(docStart(["code", "", "fn f() {}"], 3, "rust"), 3);
});

/**
 * Source whose parse takes the parse's whole time budget (each of its
 * thousands of nested functions asks tree-sitter for its parent).
 */
const NESTED = "function value(){".repeat(20_000) + "}".repeat(20_000);

Deno.test("find_symbol: a cancel during long parses returns within 100 ms, with progress before it", async () => {
  await using tmp = await makeTempWorkspace();
  for (let i = 0; i < 6; i++) {
    await Deno.writeTextFile(`${tmp.root}/src/nested${i}.ts`, NESTED);
  }
  const ws = await Workspace.open(tmp.root);
  const tool = findSymbolTool(ws, TEST_CAPS);
  const controller = new AbortController();
  const progress: string[] = [];
  const ctx = {
    signal: controller.signal,
    reportProgress(_done: number, _total?: number, message?: string) {
      progress.push(message ?? "");
    },
  } as unknown as ToolContext;
  try {
    // Warm: the workers load the runtime and the grammar.
    await tool.run({ name: "greet", path: "src/lib/util.ts" }, ctx);
    const running = Promise.resolve(tool.run({ name: "value" }, ctx));
    running.catch(() => {});
    // Six parses of a second each, two at a time: cancelled once the
    // first progress report is out, with parses still running.
    for (let i = 0; i < 500 && progress.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.ok(progress.length > 0, "no progress was reported");
    // The cancel is due 50 ms on, with a parse of the nested files under
    // way: a parse on this thread would hold its timer back until it ends,
    // so the time counts from when it was due, not from when it ran.
    const cancelled = performance.now() + 50;
    setTimeout(() => controller.abort(new Error("cancelled")), 50);
    await assert.rejects(running, /cancelled/);
    const stopped = performance.now() - cancelled;
    assert.ok(stopped < 100, `stopped ${stopped.toFixed(0)} ms after cancel`);
    assert.match(progress.at(-1) ?? "", /files? read, \d+ definitions? found/);
  } finally {
    stopSymbolWorkers();
  }
});

Deno.test("find_symbol: hostile files give a note, never a hang", async () => {
  await using tmp = await makeTempWorkspace();
  await Deno.writeTextFile(`${tmp.root}/src/nested.ts`, NESTED);
  await Deno.writeTextFile(`${tmp.root}/src/huge.js`, "x".repeat(10_000_000));
  await Deno.writeFile(
    `${tmp.root}/src/blob.ts`,
    new Uint8Array([0, 1, 2, 0, 255, 0, 7, 0]),
  );
  await Deno.writeTextFile(
    `${tmp.root}/src/deep.js`,
    `value = ${"[".repeat(100_000)}${"]".repeat(100_000)};`,
  );
  const { server, session } = await toolServer(tmp.root);
  try {
    const started = performance.now();
    const text = textOf(
      await call(server, session, "find_symbol", { name: "value" }),
    );
    assert.ok(performance.now() - started < 4 * PARSE_TIMEOUT_MS + 2000);
    assert.match(text, /skipped as over \d+ bytes: src\/huge\.js/);
    assert.match(
      text,
      /could not be read or parsed in time: .*src\/nested\.ts/,
    );
  } finally {
    stopSymbolWorkers();
  }
});
