/**
 * A byte-level test for literal search: whether a file's raw bytes can
 * contain a query at all, so the files that cannot (most of them) are never
 * decoded.
 *
 * @module
 */

// Bytes common in source text, commonest first: the needle is anchored on
// its byte that comes latest here (or not at all), so that
// `Uint8Array.prototype.indexOf` stops on few false candidates.
const COMMON = " e\tt\nrias_nolcdup(),;m*fhg>-=b/.xkvw0yST{}ERAN1IL2D#C";

const rank = new Uint8Array(256).fill(255);
for (let i = 0; i < COMMON.length; i++) {
  rank[COMMON.charCodeAt(i)] = i;
}

// The UTF-8 bytes of U+0130 and U+212A, the only non-ASCII characters whose
// lower case holds ASCII ("i̇" and "k"): a file holding either may match an
// ASCII query case-insensitively where its bytes do not.
const DOTTED_CAPITAL_I = new Uint8Array([0xc4, 0xb0]);
const KELVIN_SIGN = new Uint8Array([0xe2, 0x84, 0xaa]);

/**
 * Position of `needle` in `haystack` at or after `from`, or -1. An empty
 * needle is found at `from`.
 */
export function indexOfBytes(
  haystack: Uint8Array,
  needle: Uint8Array,
  from = 0,
): number {
  const n = needle.length;
  if (n === 0) return from <= haystack.length ? from : -1;
  // Anchor on the needle's rarest byte.
  let anchor = 0;
  for (let i = 1; i < n; i++) {
    if (rank[needle[i]] > rank[needle[anchor]]) anchor = i;
  }
  const byte = needle[anchor];
  const last = haystack.length - n; // Last possible start.
  let at = haystack.indexOf(byte, from + anchor);
  while (at !== -1) {
    const start = at - anchor;
    if (start > last) return -1;
    let i = 0;
    while (i < n && haystack[start + i] === needle[i]) i++;
    if (i === n) return start;
    at = haystack.indexOf(byte, at + 1);
  }
  return -1;
}

function lowerAscii(byte: number): number {
  return byte >= 0x41 && byte <= 0x5a ? byte | 0x20 : byte;
}

// Position of the ASCII-lower-case `needle` in `haystack` with ASCII letters
// folded, or -1.
function indexOfFolded(haystack: Uint8Array, needle: Uint8Array): number {
  const n = needle.length;
  if (n === 0) return 0;
  const first = needle[0];
  const other = first >= 0x61 && first <= 0x7a ? first & ~0x20 : first;
  const last = haystack.length - n;
  for (let start = 0; start <= last; start++) {
    const b = haystack[start];
    if (b !== first && b !== other) continue;
    let i = 1;
    while (i < n && lowerAscii(haystack[start + i]) === needle[i]) i++;
    if (i === n) return start;
  }
  return -1;
}

/**
 * A test of raw file bytes for one literal query, or `undefined` when the
 * query cannot be tested on bytes (then every file must be decoded).
 *
 * The test answers `false` only when decoding the bytes as UTF-8 (as
 * `decodeText` does) and searching the text as `search_text` does
 * could not find the query; `true` means "decode and search". Files with a
 * UTF-16 byte-order mark always answer `true`.
 */
export function literalPrefilter(
  query: string,
  caseSensitive: boolean,
): ((bytes: Uint8Array) => boolean) | undefined {
  // Invalid bytes decode to U+FFFD, and a lone surrogate cannot be in a
  // decoded text: such queries are left to the decoded search.
  if (!query.isWellFormed() || query.includes("\uFFFD")) return undefined;
  const isUtf16 = (bytes: Uint8Array) =>
    bytes.length >= 2 &&
    ((bytes[0] === 0xff && bytes[1] === 0xfe) ||
      (bytes[0] === 0xfe && bytes[1] === 0xff));
  if (caseSensitive) {
    const needle = new TextEncoder().encode(query);
    return (bytes) => isUtf16(bytes) || indexOfBytes(bytes, needle) !== -1;
  }
  // Lower-casing a non-ASCII query is not a byte-wise fold.
  // deno-lint-ignore no-control-regex
  if (!/^[\x00-\x7f]*$/.test(query)) return undefined;
  const needle = new TextEncoder().encode(query.toLowerCase());
  return (bytes) =>
    isUtf16(bytes) || indexOfFolded(bytes, needle) !== -1 ||
    indexOfBytes(bytes, DOTTED_CAPITAL_I) !== -1 ||
    indexOfBytes(bytes, KELVIN_SIGN) !== -1;
}
