import { strict as assert } from "node:assert";
import { isUtf8 } from "node:buffer";
import { decodesAsUtf8, hasNul, isProbablyText } from "./content.ts";

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
