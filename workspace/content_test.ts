import { strict as assert } from "node:assert";
import { isProbablyText } from "./content.ts";

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
