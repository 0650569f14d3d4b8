import { strict as assert } from "node:assert";
import {
  bytesFinder,
  indexOfBytes,
  literalPrefilter,
  requiredLiteral,
} from "./prefilter.ts";
import { decodeText } from "../workspace/content.ts";

const utf8 = (text: string) => new TextEncoder().encode(text);

function utf16le(text: string): Uint8Array {
  const out = new Uint8Array(2 + text.length * 2);
  out[0] = 0xff;
  out[1] = 0xfe;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    out[2 + 2 * i] = unit & 0xff;
    out[3 + 2 * i] = unit >> 8;
  }
  return out;
}

function utf16be(text: string): Uint8Array {
  const le = utf16le(text);
  const out = new Uint8Array(le.length);
  for (let i = 0; i < le.length; i += 2) {
    out[i] = le[i + 1];
    out[i + 1] = le[i];
  }
  return out;
}

// What search_text finds in the decoded text.
function decodedHas(bytes: Uint8Array, query: string, cs: boolean): boolean {
  const text = decodeText(bytes);
  return cs
    ? text.includes(query)
    : text.toLowerCase().includes(query.toLowerCase());
}

Deno.test("indexOfBytes agrees with indexOf on strings at every position", () => {
  const hay = "abcabcabd xx_ab(ab(abc";
  for (const needle of ["abd", "ab(", "c", "abc", "_ab(ab(abc", "zz", "(abc"]) {
    for (let from = 0; from <= hay.length; from++) {
      assert.equal(
        indexOfBytes(utf8(hay), utf8(needle), from),
        hay.indexOf(needle, from),
        `${needle} from ${from}`,
      );
    }
  }
});

Deno.test("indexOfBytes finds a needle at the very start and the very end", () => {
  const hay = utf8("Xneedle-middle-needleX");
  assert.equal(indexOfBytes(utf8("needleX"), utf8("needleX")), 0);
  assert.equal(indexOfBytes(hay, utf8("leX")), 19);
  assert.equal(indexOfBytes(hay, utf8("Xne")), 0);
  // Its rarest byte (X) is the last byte of the haystack, but the needle
  // would run past the end.
  assert.equal(indexOfBytes(utf8("abcX"), utf8("cXd")), -1);
});

Deno.test("bytesFinder: one finder serves many haystacks and repeats", () => {
  const find = bytesFinder(utf8("abab"));
  assert.equal(find(utf8("aabababab")), 1);
  assert.equal(find(utf8("aabababab"), 2), 3);
  assert.equal(find(utf8("abaXabab")), 4);
  assert.equal(find(utf8("aba")), -1);
  const one = bytesFinder(utf8("z"));
  assert.equal(one(utf8("abcz")), 3);
  assert.equal(one(utf8("abc")), -1);
});

Deno.test("indexOfBytes: a needle longer than the haystack is not found", () => {
  assert.equal(indexOfBytes(utf8("ab"), utf8("abc")), -1);
  assert.equal(indexOfBytes(new Uint8Array(), utf8("a")), -1);
});

Deno.test("indexOfBytes: an empty needle is found where the search starts", () => {
  assert.equal(indexOfBytes(utf8("ab"), new Uint8Array(), 1), 1);
  assert.equal(indexOfBytes(utf8("ab"), new Uint8Array(), 3), -1);
});

Deno.test("indexOfBytes finds hits across 64 KiB and 1 MiB boundaries", () => {
  for (const boundary of [1 << 16, 1 << 20]) {
    const hay = new Uint8Array(boundary + 16).fill(0x61); // "aaa…"
    const needle = utf8("needle");
    for (const shift of [-5, -3, -1, 0]) {
      const copy = hay.slice();
      copy.set(needle, boundary + shift);
      assert.equal(indexOfBytes(copy, needle), boundary + shift);
    }
  }
});

Deno.test("literalPrefilter: multi-byte UTF-8 queries", () => {
  const test = literalPrefilter("größe €", true);
  assert.ok(test);
  assert.equal(test(utf8("die größe € zählt")), true);
  assert.equal(test(utf8("die grösse € zählt")), false);
  // The same characters, split by another, do not match.
  assert.equal(test(utf8("größe  €")), false);
  const emoji = literalPrefilter("🦕x", true);
  assert.ok(emoji);
  assert.equal(emoji(utf8("a🦕xb")), true);
  assert.equal(emoji(utf8("a🦕 x")), false);
});

Deno.test("literalPrefilter: a query longer than the file", () => {
  const test = literalPrefilter("a much longer query", true);
  assert.ok(test);
  assert.equal(test(utf8("a much")), false);
  assert.equal(test(new Uint8Array()), false);
});

Deno.test("literalPrefilter lets UTF-16 files through to be decoded", () => {
  const test = literalPrefilter("needle", true);
  assert.ok(test);
  assert.equal(test(utf16le("hay needle hay")), true);
  assert.equal(test(utf16be("hay needle hay")), true);
  assert.equal(decodedHas(utf16le("hay needle hay"), "needle", true), true);
  assert.equal(decodedHas(utf16be("hay needle hay"), "needle", true), true);
});

Deno.test("literalPrefilter declines queries it cannot test on bytes", () => {
  assert.equal(literalPrefilter("bad \uFFFD byte", true), undefined);
  assert.equal(literalPrefilter("lone \uD800", true), undefined);
  // Case-insensitive: U+212A KELVIN SIGN lower-cases to "k", so bytes
  // without "k" or "K" may still match "key".
  assert.equal(decodedHas(utf8("\u212Aey"), "key", false), true);
  assert.equal(literalPrefilter("key", false), undefined);
  assert.equal(literalPrefilter("Größe", false), undefined);
  assert.ok(literalPrefilter("Größe", true));
});

Deno.test("literalPrefilter never says no where the decoded search finds", () => {
  // Random small texts over an alphabet with case, multi-byte characters,
  // CR, a BOM and invalid bytes, against a few queries.
  const pieces = [
    "a",
    "A",
    "b",
    "B",
    "k",
    "\u212A",
    "\u0130",
    "i",
    "\u0307",
    "é",
    "É",
    "\r",
    "\n",
    "\uFEFF",
    "ß",
    "SS",
  ];
  const queries = ["ab", "Ab", "k", "ki", "i", "é", "ss", "\nb", "a\r", "bA"];
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  for (let round = 0; round < 3000; round++) {
    let text = "";
    const length = random(8);
    for (let i = 0; i < length; i++) text += pieces[random(pieces.length)];
    let bytes = utf8(text);
    if (random(4) === 0) {
      // An invalid byte somewhere.
      const spliced = new Uint8Array(bytes.length + 1);
      const at = random(bytes.length + 1);
      spliced.set(bytes.subarray(0, at));
      spliced[at] = 0xff;
      spliced.set(bytes.subarray(at), at + 1);
      bytes = spliced;
    }
    for (const query of queries) {
      for (const cs of [true, false]) {
        const test = literalPrefilter(query, cs);
        if (test === undefined) continue;
        if (decodedHas(bytes, query, cs)) {
          assert.equal(test(bytes), true, `${JSON.stringify(text)} ${query}`);
        }
      }
    }
  }
});

Deno.test("requiredLiteral: the longest plain run every match holds, or none", () => {
  const cases: [string, string | undefined][] = [
    ["static\\s+int\\s+\\w+_probe\\(", "_probe("],
    ["needle\\d+ is", "needle"],
    ["foo|barbaz", undefined],
    ["(foo|bar)bazq", "bazq"],
    ["abcd?", "abc"],
    ["abc*de", "ab"],
    ["ab+c", "ab"],
    ["x{2}yz", "yz"],
    ["a{", undefined],
    ["[abc]def", "def"],
    ["[\\]x]yz", "yz"],
    ["\\x41bc", undefined],
    ["\\.config", ".config"],
    ["^start$", "start"],
    ["(?<=ab)cd", "cd"],
    ["a.b", "a"],
    ["ü+xyz", "xyz"],
    ["\\d+", undefined],
  ];
  for (const [source, expected] of cases) {
    assert.equal(requiredLiteral(source), expected, source);
  }
  // What it answers is in every line the regex matches.
  const lines = [
    "static int foo_probe(struct x)",
    "static  int\tbar_probe(",
    "needle12 is here",
    "xxyz",
    "abcde",
    "abbbc",
  ];
  for (const [source] of cases) {
    const literal = requiredLiteral(source);
    if (literal === undefined) continue;
    const re = new RegExp(source);
    for (const line of lines) {
      if (re.test(line)) assert.ok(line.includes(literal), `${source} ${line}`);
    }
  }
});
