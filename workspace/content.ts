/**
 * Telling text from binary content.
 *
 * @module
 */

/**
 * How many leading bytes of a file {@linkcode isProbablyText} is given to
 * tell text from binary: enough for any real text format to show itself,
 * little enough to read for every file a search walks past.
 */
export const SNIFF_BYTES = 8192;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Whether `bytes` are valid UTF-8 as WHATWG's decoder judges it (a fatal
 * `TextDecoder`: no overlong forms, surrogates or code points past
 * U+10FFFF). This one decodes to a string; `node:buffer`'s `isUtf8`
 * answers alike without one, for callers that have it loaded.
 */
export function decodesAsUtf8(bytes: Uint8Array): boolean {
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function validUtf8(
  bytes: Uint8Array,
  valid: (bytes: Uint8Array) => boolean,
): boolean {
  // A sample cut mid-character is still text: allow up to 3 dangling bytes.
  for (let cut = 0; cut <= 3 && cut < bytes.length + 1; cut++) {
    if (valid(bytes.subarray(0, bytes.length - cut))) return true;
  }
  return false;
}

/**
 * Whether `bytes` hold a NUL byte. Four bytes at a time: a search looks at
 * the first 8 KiB of every file it walks past, and this takes about half
 * the time of `includes(0)` there.
 */
export function hasNul(bytes: Uint8Array): boolean {
  const length = bytes.length;
  let i = 0;
  while (i < length && ((bytes.byteOffset + i) & 3) !== 0) {
    if (bytes[i] === 0) return true;
    i++;
  }
  if (i === length) return false;
  const words = new Uint32Array(
    bytes.buffer,
    bytes.byteOffset + i,
    (length - i) >>> 2,
  );
  for (let w = 0; w < words.length; w++) {
    const v = words[w];
    // Non-zero exactly when one of the word's bytes is zero.
    if (((v - 0x01010101) & ~v & 0x80808080) !== 0) return true;
  }
  for (i += words.length * 4; i < length; i++) {
    if (bytes[i] === 0) return true;
  }
  return false;
}

/**
 * Whether `bytes` (a whole file or its first part) looks like text: UTF-16
 * with a byte-order mark, or valid UTF-8 (BOM optional) without NUL bytes.
 * `valid` judges UTF-8 (default {@linkcode decodesAsUtf8}; any function
 * must answer as it does).
 */
export function isProbablyText(
  bytes: Uint8Array,
  valid: (bytes: Uint8Array) => boolean = decodesAsUtf8,
): boolean {
  if (bytes.length >= 2) {
    const [a, b] = bytes;
    // UTF-16 LE / BE byte-order marks: NULs are expected there, and an
    // odd length proves nothing, as a first part may end mid code unit.
    if ((a === 0xff && b === 0xfe) || (a === 0xfe && b === 0xff)) return true;
  }
  if (hasNul(bytes)) return false;
  return validUtf8(bytes, valid);
}

/** The encoding of text `bytes`, by byte-order mark (UTF-8 otherwise). */
export function textEncodingOf(
  bytes: Uint8Array,
): "utf-8" | "utf-16le" | "utf-16be" {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return "utf-8";
}

/** Decode text `bytes` by their byte-order mark (dropping it). */
export function decodeText(bytes: Uint8Array): string {
  return new TextDecoder(textEncodingOf(bytes)).decode(bytes);
}

/**
 * The text of a whole file's `bytes` when {@linkcode isProbablyText} judges
 * them text, else undefined: the usual case, valid UTF-8, is decoded once,
 * the check and the text being one pass (a 1 MB resource is read whole).
 */
export function textOf(bytes: Uint8Array): string | undefined {
  if (textEncodingOf(bytes) === "utf-8" && !hasNul(bytes)) {
    try {
      return utf8.decode(bytes);
    } catch {
      // Invalid somewhere: the general rule below (a cut last character
      // still counts as text).
    }
  }
  return isProbablyText(bytes) ? decodeText(bytes) : undefined;
}
