import { strict as assert } from "node:assert";
import { requiredRuns } from "./regex_literals.ts";

Deno.test("requiredRuns: literal runs between classes, escapes and quantifiers", () => {
  assert.deepEqual(requiredRuns(String.raw`static\s+int\s+\w+_probe\(`), [
    "static",
    "int",
    "_probe(",
  ]);
  assert.deepEqual(requiredRuns("ab+c"), ["ab", "c"]);
  assert.deepEqual(requiredRuns("ab*c"), ["a", "c"]);
  assert.deepEqual(requiredRuns("ab?c"), ["a", "c"]);
  assert.deepEqual(requiredRuns("ab{0,2}cd"), ["a", "cd"]);
  assert.deepEqual(requiredRuns("ab{2}cd"), ["ab", "cd"]);
  assert.deepEqual(requiredRuns("ab+?c"), ["ab", "c"]);
  assert.deepEqual(requiredRuns(String.raw`a\.b`), ["a.b"]);
  assert.deepEqual(requiredRuns("foo[xy]bar"), ["foo", "bar"]);
  assert.deepEqual(requiredRuns("^foo.bar$"), ["foo", "bar"]);
  assert.deepEqual(requiredRuns(String.raw`foo\bbar`), ["foo", "bar"]);
});

Deno.test("requiredRuns: groups, lookarounds and classes are never required", () => {
  assert.deepEqual(requiredRuns("foo(bar)?baz"), ["foo", "baz"]);
  assert.deepEqual(requiredRuns("(?<=abc)def"), ["def"]);
  assert.deepEqual(requiredRuns("(?<!abc)def"), ["def"]);
  assert.deepEqual(requiredRuns("x[(]y(a|b)z"), ["x", "y", "z"]);
  assert.deepEqual(requiredRuns(String.raw`x[\]]abc`), ["x", "abc"]);
});

Deno.test("requiredRuns: gives up on what it does not know", () => {
  assert.equal(requiredRuns("foo|bar"), undefined);
  assert.equal(requiredRuns(String.raw`\x41BC`), undefined);
  assert.equal(requiredRuns(String.raw`\u0041BC`), undefined);
  assert.equal(requiredRuns(String.raw`\cJabc`), undefined);
  assert.equal(requiredRuns(String.raw`(a)\1abc`), undefined);
  assert.equal(requiredRuns(String.raw`\0abc`), undefined);
});

Deno.test("requiredRuns: every match of a pattern holds its runs", () => {
  const cases: [string, string[]][] = [
    ["ab+c", ["abbbc", "abc"]],
    ["x{1,3}yz", ["xyz", "xxxyz"]],
    ["a{", ["a{"]],
    ["q}r", ["q}r"]],
    [String.raw`f\-g\/h`, ["f-g/h"]],
  ];
  for (const [source, texts] of cases) {
    const runs = requiredRuns(source);
    for (const text of texts) {
      assert.ok(new RegExp(source).test(text), `${source} ~ ${text}`);
      for (const run of runs ?? []) {
        assert.ok(text.includes(run), `${source}: ${text} lacks ${run}`);
      }
    }
  }
});
