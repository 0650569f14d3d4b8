import { strict as assert } from "node:assert";
import {
  backtrackingRisk,
  foldCase,
  linearEngineAvailable,
  MAX_REGEX_LENGTH,
  prepareRegex,
  RegexError,
} from "./regex.ts";

Deno.test("foldCase: without flags, matches what the i flag matches", () => {
  const patterns = [
    "hello",
    "HeLLo wOrld",
    "[a-f]+x",
    "[^a-z]",
    "[A-Z_]\\w*",
    "\\x41b\\u0043",
    "[\\x41-\\x43]q",
    "(?<Name>ab)c",
    "(?<=k)v",
    "[\\]a]",
    "é|ß|ſ|K|Σ",
    "[à-ÿ]",
    "a{2,3}",
    "\\bword\\b",
    "[-a]",
    "[a-]",
    ".\\.",
  ];
  const samples = [
    "hello",
    "HELLO",
    "HeLLo WORLD",
    "ABCX",
    "abcx",
    "Q",
    "7",
    "_Az",
    "ABC",
    "abc",
    "aBc",
    "cq",
    "Cq",
    "ABc",
    "abC",
    "kv",
    "Kv",
    "]",
    "A",
    "É",
    "ẞ",
    "S",
    "s",
    "k",
    "σ",
    "ς",
    "À",
    "ÿ",
    "Ÿ",
    "aA",
    "AAA",
    "Word",
    "WORD",
    "-",
    "x.",
    "x",
  ];
  for (const pattern of patterns) {
    const folded = new RegExp(foldCase(pattern));
    const reference = new RegExp(pattern, "i");
    for (const sample of samples) {
      assert.equal(
        folded.test(sample),
        reference.test(sample),
        `${pattern} (${foldCase(pattern)}) on ${sample}`,
      );
    }
  }
});

Deno.test("prepareRegex: invalid, too long and non-linear regexes are refused with a message", () => {
  assert.throws(() => prepareRegex("a(b", true), (error: Error) => {
    assert.ok(error instanceof RegexError);
    assert.match(error.message, /is not valid .*regex: false/);
    return true;
  });
  assert.throws(
    () => prepareRegex("a".repeat(MAX_REGEX_LENGTH + 1), true),
    /over the limit of 4096/,
  );
  for (const query of ["(a)\\1", "a(?=b)", "a(?!b)"]) {
    assert.throws(() => prepareRegex(query, true), RegexError, query);
  }
  assert.deepEqual(prepareRegex("hel+o", true), { source: "hel+o", flags: "" });
  assert.deepEqual(prepareRegex("ab", false), {
    source: "[Aa][Bb]",
    flags: "",
  });
});

Deno.test(
  "prepareRegex: with the linear engine, catastrophic patterns are accepted and finish fast",
  {
    ignore: !linearEngineAvailable(),
  },
  () => {
    assert.throws(() => prepareRegex("a{1000}", true), /linear time/);
    for (const caseSensitive of [true, false]) {
      const { source, flags } = prepareRegex("(a+)+$", caseSensitive);
      const start = performance.now();
      assert.equal(new RegExp(source, flags).test(`${"a".repeat(40)}b`), false);
      // Backtracking would take 2^40 steps (hours): 5 s leaves a loaded
      // machine room and still tells linear from exponential.
      assert.ok(performance.now() - start < 5000);
    }
  },
);

Deno.test("backtrackingRisk: flags nested quantifiers, backreferences and lookahead only", () => {
  for (
    const risky of [
      "(a+)+$",
      "(a|a)*$",
      "((ab)*)+",
      "(\\w+\\s?)*$",
      "(a)\\1",
      "(?=a)",
      "\\k<n>",
    ]
  ) {
    assert.ok(backtrackingRisk(risky) !== undefined, risky);
  }
  for (
    const safe of [
      "hel+o",
      "(ab)+",
      "(a+)?",
      "[(a+)+]",
      "\\(a+\\)+",
      "^export (function|const) \\w+",
    ]
  ) {
    assert.equal(backtrackingRisk(safe), undefined, safe);
  }
});
