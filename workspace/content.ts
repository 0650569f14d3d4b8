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

function validUtf8(bytes: Uint8Array): boolean {
  // A sample cut mid-character is still text: allow up to 3 dangling bytes.
  for (let cut = 0; cut <= 3 && cut < bytes.length + 1; cut++) {
    try {
      utf8.decode(bytes.subarray(0, bytes.length - cut));
      return true;
    } catch {
      // Try a shorter prefix.
    }
  }
  return false;
}

/**
 * Whether `bytes` (a whole file or its first part) looks like text: UTF-16
 * with a byte-order mark, or valid UTF-8 (BOM optional) without NUL bytes.
 */
export function isProbablyText(bytes: Uint8Array): boolean {
  if (bytes.length >= 2) {
    const [a, b] = bytes;
    // UTF-16 LE / BE byte-order marks: NULs are expected there, and an
    // odd length proves nothing, as a first part may end mid code unit.
    if ((a === 0xff && b === 0xfe) || (a === 0xfe && b === 0xff)) return true;
  }
  if (bytes.includes(0)) return false;
  return validUtf8(bytes);
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
