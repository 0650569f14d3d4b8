import { strict as assert } from "node:assert";
import {
  compileGlob,
  GlobError,
  globMatcher,
  MAX_GLOB_EXPANSIONS,
  MAX_GLOB_LENGTH,
} from "./glob.ts";

function matches(pattern: string, path: string): boolean {
  return compileGlob(pattern)(path);
}

Deno.test("compileGlob: *, ?, ** and literal segments", () => {
  assert.ok(matches("*.ts", "main.ts"));
  assert.ok(matches("*.ts", ".hidden.ts"));
  assert.ok(!matches("*.ts", "src/main.ts"));
  assert.ok(!matches("*.ts", "main.tsx"));
  assert.ok(matches("?.md", "a.md"));
  assert.ok(!matches("?.md", "ab.md"));
  assert.ok(matches("src/**/*.ts", "src/main.ts"));
  assert.ok(matches("src/**/*.ts", "src/a/b/c/main.ts"));
  assert.ok(!matches("src/**/*.ts", "lib/main.ts"));
  assert.ok(matches("**", "a/b/c"));
  assert.ok(matches("**/x", "x"));
  assert.ok(matches("a/**", "a/b"));
  assert.ok(matches("a/**/b/**/c", "a/x/b/y/z/c"));
  assert.ok(!matches("a/**/b/**/c", "a/x/y/z/c"));
  assert.ok(matches("a**b", "axxb"));
  assert.ok(!matches("a*b", "ax/xb"));
  assert.ok(matches("./src/*.ts", "src/a.ts"));
  assert.ok(matches("*a*b*c*", "xxaxxbxxcxx"));
  assert.ok(!matches("*a*b*c*", "xxaxxcxxbxx"));
});

Deno.test("compileGlob: classes, negation, ranges and escapes", () => {
  assert.ok(matches("[abc].txt", "b.txt"));
  assert.ok(!matches("[abc].txt", "d.txt"));
  assert.ok(matches("[a-c]x", "bx"));
  assert.ok(matches("[!a-c]x", "dx"));
  assert.ok(matches("[^a-c]x", "dx"));
  assert.ok(!matches("[!a-c]x", "ax"));
  assert.ok(matches("[]]", "]"));
  assert.ok(matches("[!]]", "a"));
  assert.ok(matches("[a\\]]", "]"));
  assert.ok(matches("q\\?.txt", "q?.txt"));
  assert.ok(!matches("q\\?.txt", "qa.txt"));
  assert.ok(matches("\\*", "*"));
  assert.ok(!matches("\\*", "a"));
  // An unclosed "[" is a slip, not a literal: it is refused, with the way
  // to match a bracket (a class never spans a "/", so "a[/]b" is one too).
  for (const unclosed of ["[", "[a-", "a[/]b"]) {
    assert.throws(() => compileGlob(unclosed), /never closed.*\\\[/);
  }
  assert.ok(matches("\\[", "["));
  assert.throws(() => compileGlob("[z-a]"), GlobError);
});

Deno.test("compileGlob: {a,b} alternatives, nested, and literal braces", () => {
  assert.ok(matches("*.{ts,js}", "a.ts"));
  assert.ok(matches("*.{ts,js}", "a.js"));
  assert.ok(!matches("*.{ts,js}", "a.md"));
  assert.ok(matches("{src,lib}/**/*.ts", "lib/x/y.ts"));
  assert.ok(matches("a{b,c{d,e}}f", "acef"));
  assert.ok(matches("a{b,}c", "ac"));
  assert.ok(matches("{a}", "{a}"), "a brace without a comma is literal");
  assert.ok(matches("{a,b", "{a,b"), "an unclosed brace is literal");
  assert.ok(matches("\\{a,b}", "{a,b}"));
  assert.ok(matches("[{]a,b}", "{a,b}"));
});

Deno.test("globMatcher: names anywhere, paths relative to the base", () => {
  const byName = globMatcher("*.ts");
  assert.ok(byName("src/deep/x.ts"));
  assert.ok(!byName("src/deep/x.md"));
  const byPath = globMatcher("lib/*.ts", "src");
  assert.ok(byPath("src/lib/x.ts"));
  assert.ok(!byPath("src/lib/deep/x.ts"));
  const mixed = globMatcher("{README*,docs/*.md}");
  assert.ok(mixed("a/b/README.md"));
  assert.ok(mixed("docs/x.md"));
  assert.ok(!mixed("a/docs/x.md"));
});

Deno.test("compileGlob: refuses extended globs, over-long patterns and brace bombs with a message", () => {
  for (const pattern of ["+(a)", "@(a|b)", "!(x)", "*(a)", "?(a)"]) {
    assert.throws(() => compileGlob(pattern), (error: Error) => {
      assert.ok(error instanceof GlobError);
      assert.match(error.message, /extended globs .* are not supported/);
      assert.match(error.message, /Use \* \(within a path segment\)/);
      return true;
    });
  }
  assert.ok(matches("\\+(a)", "+(a)"), "escaped, the parenthesis is literal");
  assert.throws(
    () => compileGlob("a".repeat(MAX_GLOB_LENGTH + 1)),
    /over the limit of 1000/,
  );
  assert.throws(
    () => compileGlob("{a,b}".repeat(9)),
    new RegExp(`more than ${MAX_GLOB_EXPANSIONS} patterns`),
  );
  const unclosed = "{".repeat(400) + "a,b";
  assert.ok(matches(unclosed, unclosed), "unclosed braces are literal");
});

Deno.test("compileGlob: hostile patterns match in linear time", () => {
  const path = `${"a/".repeat(200)}${"a".repeat(200)}`;
  const hostile = [
    "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b",
    `${"**/".repeat(100)}b`,
    `${"{".repeat(300)}${"}".repeat(300)}*b`,
    "[a-z_.]".repeat(100) + "!",
  ];
  for (const pattern of hostile) {
    const start = performance.now();
    const test = compileGlob(pattern);
    for (let i = 0; i < 20; i++) assert.equal(test(path), false);
    const ms = performance.now() - start;
    assert.ok(ms < 2000, `${pattern.slice(0, 30)}… took ${ms} ms`);
  }
  // The extglob form of the classic freeze is refused at once (a bound in
  // seconds like the others: matching it, not refusing, would never end).
  const start = performance.now();
  assert.throws(() => compileGlob("+(+(+(+([a-z_.]))))!"), GlobError);
  assert.ok(performance.now() - start < 2000);
});

Deno.test("globMatcher: patterns ending in a name segment, by the last part first", () => {
  const cases: [string, string, boolean][] = [
    ["**/Makefile", "Makefile", true],
    ["**/Makefile", "a/b/Makefile", true],
    ["**/Makefile", "a/Makefile/x", false],
    ["**/Makefile", "a/Makefile.x", false],
    ["**/**/*.c", "a/b.c", true],
    ["**/*.c", "b.h", false],
    ["a/**/*.c", "a/x/y.c", true],
    ["a/**/*.c", "b/x/y.c", false],
    ["a/*/y.c", "a/x/y.c", true],
    ["a/*/y.c", "a/x/z/y.c", false],
    ["**/{Makefile,Kbuild}", "d/Kbuild", true],
    ["x/**", "x/a/b", true],
  ];
  for (const [pattern, path, expected] of cases) {
    assert.equal(globMatcher(pattern)(path), expected, `${pattern} ${path}`);
    assert.equal(compileGlob(pattern)(path), expected, `${pattern} ${path}`);
  }
});
