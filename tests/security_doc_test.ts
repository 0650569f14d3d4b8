/**
 * `docs/security.md`'s "Invariants of the workspace layer" names, for each
 * invariant, the functions that enforce it and the tests that prove it.
 * These tests hold it to the code: every function named is defined in the
 * file named (a `Class.method` is a method of that class there), every
 * test named is a `Deno.test` of the file named, every invariant names at
 * least one of each, and each module of the security core stays within
 * 400 lines.
 *
 * @module
 */

import { strict as assert } from "node:assert";

const ROOT = new URL("../", import.meta.url);
const SECTION = "## Invariants of the workspace layer";

/** The most lines a module of the security core may have. */
const MAX_MODULE_LINES = 400;

/** One invariant of the doc: what enforces it and what proves it. */
export interface Invariant {
  /** The invariant's text (its bold part). */
  text: string;
  /** Functions named, each with the file that defines it. */
  functions: { name: string; file: string }[];
  /** Tests named (their names, or a leading part), each with its file. */
  tests: { name: string; file: string }[];
}

/**
 * The numbered invariants of `markdown`'s invariants section, whitespace
 * collapsed (prose wrapping may break a name across lines).
 */
export function invariantsOf(markdown: string): Invariant[] {
  const start = markdown.indexOf(SECTION);
  if (start < 0) return [];
  let section = markdown.slice(start + SECTION.length);
  const next = section.search(/^## /m);
  if (next >= 0) section = section.slice(0, next);
  const items = section.split(/^\d+\. /m).slice(1);
  return items.map((item) => {
    const flat = item.replace(/\\$/gm, "").replace(/\s+/g, " ").trim();
    const enforced = flat.indexOf("Enforced by:");
    const proved = flat.indexOf("Proved by:");
    const text = flat.slice(0, enforced < 0 ? flat.length : enforced).trim();
    const by = enforced < 0
      ? ""
      : flat.slice(enforced, proved < 0 ? undefined : proved);
    const proof = proved < 0 ? "" : flat.slice(proved);
    return {
      text,
      functions: [...by.matchAll(/`([\w#.]+)` in `([\w/.]+\.ts)`/g)].map(
        ([, name, file]) => ({ name, file }),
      ),
      tests: [...proof.matchAll(/"([^"]+)" in `([\w/.]+_test\.ts)`/g)].map(
        ([, name, file]) => ({ name, file }),
      ),
    };
  });
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Whether `source` defines `name`: a function (`name`) declared at the top
 * level, or a method (`Class.method`) inside `class Class`.
 */
export function defines(source: string, name: string): boolean {
  const dot = name.indexOf(".");
  if (dot < 0) {
    return new RegExp(
      `^(export )?(async )?function\\*? ?${escape(name)}\\s*[<(]`,
      "m",
    ).test(source);
  }
  const owner = name.slice(0, dot);
  const member = name.slice(dot + 1);
  const at = source.search(
    new RegExp(`^export (abstract )?class ${escape(owner)}\\b`, "m"),
  );
  if (at < 0) return false;
  // The class runs to the first closing brace at the start of a line.
  const end = source.indexOf("\n}", at);
  const body = source.slice(at, end < 0 ? undefined : end);
  return new RegExp(
    `^  (static )?(async )?\\*?${escape(member)}\\s*[<(]`,
    "m",
  ).test(body);
}

/**
 * Whether `source` declares a `Deno.test` whose name starts with `name`
 * (a name built from a template starts with its literal text).
 */
export function declaresTest(source: string, name: string): boolean {
  for (const match of source.matchAll(/Deno\.test\(/g)) {
    const head = source.slice(match.index, match.index + 400)
      .replace(/\s+/g, " ");
    // The name, as a string, a template or a `name:` property, comes first.
    const quoted = /^Deno\.test\(\s*(?:\{\s*name:\s*)?["'`]/;
    const opening = quoted.exec(head);
    if (opening === null) continue;
    if (head.slice(opening[0].length).startsWith(name)) return true;
  }
  return false;
}

async function read(file: string): Promise<string> {
  return await Deno.readTextFile(new URL(file, ROOT));
}

Deno.test("security.md: every invariant names a function and a test", async () => {
  const invariants = invariantsOf(await read("docs/security.md"));
  assert.ok(invariants.length >= 10, `${invariants.length} invariants`);
  for (const { text, functions, tests } of invariants) {
    assert.ok(functions.length > 0, `no function enforces: ${text}`);
    assert.ok(tests.length > 0, `no test proves: ${text}`);
  }
});

Deno.test("security.md: every function named is defined where it says", async () => {
  const invariants = invariantsOf(await read("docs/security.md"));
  for (const { functions } of invariants) {
    for (const { name, file } of functions) {
      assert.ok(defines(await read(file), name), `${name} is not in ${file}`);
    }
  }
});

Deno.test("security.md: every test named is a Deno.test of its file", async () => {
  const invariants = invariantsOf(await read("docs/security.md"));
  for (const { tests } of invariants) {
    for (const { name, file } of tests) {
      assert.ok(
        declaresTest(await read(file), name),
        `no Deno.test "${name}" in ${file}`,
      );
    }
  }
});

Deno.test("security.md: the modules it names stay within 400 lines", async () => {
  const invariants = invariantsOf(await read("docs/security.md"));
  const files = new Set(
    invariants.flatMap(({ functions }) => functions.map(({ file }) => file)),
  );
  for (const file of files) {
    const lines = (await read(file)).split("\n").length - 1;
    assert.ok(lines <= MAX_MODULE_LINES, `${file} has ${lines} lines`);
  }
});

Deno.test("security.md checks: a missing function or test is caught", () => {
  const doc = `${SECTION}\n\n1. **Rule.**\\\n   Enforced by: \`gone\` in ` +
    '`workspace/x.ts`; `A.m` in `workspace/x.ts`.\\\n   Proved by: "a t' +
    'est" in `workspace/x_test.ts`.\n\n## Next\n';
  const [invariant] = invariantsOf(doc);
  assert.deepEqual(invariant.functions, [
    { name: "gone", file: "workspace/x.ts" },
    { name: "A.m", file: "workspace/x.ts" },
  ]);
  assert.deepEqual(invariant.tests, [
    { name: "a test", file: "workspace/x_test.ts" },
  ]);
  const source = "export class A {\n  m(): void {}\n}\nfunction f() {}\n";
  assert.ok(defines(source, "A.m"));
  assert.ok(defines(source, "f"));
  assert.ok(!defines(source, "gone"));
  assert.ok(!defines(source, "A.n"));
  assert.ok(declaresTest('Deno.test("a test: more", () => {});', "a test"));
  assert.ok(
    declaresTest("Deno.test({\n  name:\n    `a test (${x})`,", "a test"),
  );
  assert.ok(!declaresTest('Deno.test("another", () => {});', "a test"));
});
