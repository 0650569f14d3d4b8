import { strict as assert } from "node:assert";
import { isUtf8 } from "node:buffer";
import {
  decodesAsUtf8,
  decodeText,
  hasNul,
  isProbablyText,
  textOf,
} from "./content.ts";

Deno.test("isProbablyText: UTF-8 (even cut mid-character) and UTF-16 are text; NUL or invalid UTF-8 is not", () => {
  const enc = new TextEncoder();
  assert.equal(isProbablyText(enc.encode("plain text\n")), true);
  assert.equal(isProbablyText(enc.encode("日本語")), true);
  // Cut in the middle of a multi-byte character: still text.
  assert.equal(isProbablyText(enc.encode("日本語").subarray(0, 4)), true);
  assert.equal(isProbablyText(new Uint8Array([0x61, 0, 0x62])), false);
  assert.equal(isProbablyText(new Uint8Array([0xff, 0xfe, 0x61, 0])), true);
  assert.equal(isProbablyText(new Uint8Array([0xc3, 0x28, 0x61, 0x62])), false);
  assert.equal(isProbablyText(new Uint8Array()), true);
});

Deno.test("hasNul: a NUL at any position and alignment, and none", () => {
  const buffer = new Uint8Array(64).fill(0x61);
  for (let offset = 0; offset < 5; offset++) {
    for (let length = 0; length <= 40; length++) {
      const view = buffer.subarray(offset, offset + length);
      assert.equal(hasNul(view), false, `${offset}+${length}`);
      for (let at = 0; at < length; at++) {
        view[at] = 0;
        assert.equal(hasNul(view), true, `${offset}+${length} at ${at}`);
        view[at] = 0x61;
      }
    }
  }
  // Bytes the word test could mistake (0x80, 0x01 next to each other).
  assert.equal(
    hasNul(new Uint8Array([0x80, 0x01, 0x80, 0x01, 1, 1, 1, 1])),
    false,
  );
});

Deno.test("isProbablyText: node:buffer's isUtf8 judges exactly as the decoder", () => {
  // Random bytes around the edges UTF-8 validity turns on: lead bytes,
  // continuation bytes, overlong forms, surrogates, past U+10FFFF, cuts.
  const edges = [
    0x00,
    0x41,
    0x7f,
    0x80,
    0xbf,
    0xc0,
    0xc1,
    0xc2,
    0xdf,
    0xe0,
    0xed,
    0xef,
    0xf0,
    0xf4,
    0xf5,
    0xff,
    0xa0,
    0x9f,
    0x90,
    0x8f,
  ];
  let seed = 11;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
  let text = 0;
  for (let i = 0; i < 20_000; i++) {
    const bytes = new Uint8Array(1 + (random() % 12));
    for (let j = 0; j < bytes.length; j++) {
      bytes[j] = random() % 3 === 0
        ? random() % 256
        : edges[random() % edges.length];
    }
    const expected = isProbablyText(bytes);
    if (expected) text++;
    assert.equal(isProbablyText(bytes, isUtf8), expected, `${bytes}`);
    assert.equal(isUtf8(bytes), decodesAsUtf8(bytes), `${bytes}`);
  }
  // Both verdicts came up often.
  assert.ok(text > 1000 && text < 19_000, `${text} texts`);
});

Deno.test("textOf: the text of what isProbablyText judges text, decoded once", () => {
  const encode = (text: string) => new TextEncoder().encode(text);
  const cases: [string, Uint8Array][] = [
    ["ascii", encode("plain text\n")],
    ["utf-8", encode("ünïcödé ✓\n")],
    ["utf-8 with a BOM", new Uint8Array([0xef, 0xbb, 0xbf, ...encode("x")])],
    ["utf-16le", new Uint8Array([0xff, 0xfe, 0x78, 0x00])],
    ["utf-16be", new Uint8Array([0xfe, 0xff, 0x00, 0x78])],
    ["a NUL", new Uint8Array([0x61, 0x00, 0x62])],
    ["invalid inside", new Uint8Array([0x61, 0xff, 0x62])],
    ["a cut last character", encode("ab✓").subarray(0, 4)],
    ["empty", new Uint8Array()],
  ];
  for (const [what, bytes] of cases) {
    const expected = isProbablyText(bytes) ? decodeText(bytes) : undefined;
    assert.equal(textOf(bytes), expected, what);
  }
  assert.equal(textOf(cases[2][1]), "x");
  assert.equal(textOf(cases[5][1]), undefined);
  assert.equal(textOf(cases[7][1]), "ab\ufffd");
});
