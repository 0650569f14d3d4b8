/**
 * A byte-level test for literal search: whether a file's raw bytes can
 * contain a query at all, so the files that cannot (most of them) are never
 * decoded.
 *
 * @module
 */

/**
 * A search for `needle` in byte arrays (Boyer–Moore–Horspool: most bytes of
 * a haystack are never looked at), answering its first position at or after
 * `from`, or -1. An empty needle is found at `from`.
 */
export function bytesFinder(
  needle: Uint8Array,
): (haystack: Uint8Array, from?: number) => number {
  const n = needle.length;
  // How far the window may move when its last byte is b.
  const shift = new Int32Array(256).fill(n);
  for (let i = 0; i < n - 1; i++) shift[needle[i]] = n - 1 - i;
  const last = needle[n - 1];
  return (haystack, from = 0) => {
    if (n === 0) return from <= haystack.length ? from : -1;
    const end = haystack.length;
    let i = from + n - 1; // The window's last byte.
    while (i < end) {
      const b = haystack[i];
      if (b === last) {
        const start = i - n + 1;
        let j = 0;
        while (j < n - 1 && haystack[start + j] === needle[j]) j++;
        if (j === n - 1) return start;
      }
      i += shift[b];
    }
    return -1;
  };
}

/**
 * Position of `needle` in `haystack` at or after `from`, or -1 (see
 * {@linkcode bytesFinder}, which saves its set-up over many haystacks).
 */
export function indexOfBytes(
  haystack: Uint8Array,
  needle: Uint8Array,
  from = 0,
): number {
  return bytesFinder(needle)(haystack, from);
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
  // Case-insensitive queries are left to the decoded search: lower-casing
  // is not a byte-wise fold (U+212A lower-cases to "k"), and a folding
  // scan measured slower than decoding and lower-casing.
  if (!caseSensitive) return undefined;
  const find = bytesFinder(new TextEncoder().encode(query));
  return (bytes) => isUtf16(bytes) || find(bytes) !== -1;
}

/**
 * A string that every match of the regex `source` (no flags) must contain,
 * or `undefined` when none is found: the longest run of plain characters
 * in the pattern's top-level sequence. Conservative: alternation at the
 * top level, unusual escapes and anything it does not parse give
 * `undefined`; groups, classes and optional characters end a run.
 */
export function requiredLiteral(source: string): string | undefined {
  let depth = 0;
  let best = "";
  let run = "";
  let lastLiteral = false;
  const endRun = () => {
    if (run.length > best.length) best = run;
    run = "";
    lastLiteral = false;
  };
  const add = (c: string) => {
    if (depth > 0) return;
    run += c;
    lastLiteral = true;
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      const d = source[i + 1];
      if (d === undefined) return undefined;
      i++;
      if ("dDwWsSbBnrtfv".includes(d)) endRun();
      else if (/[\^$.*+?()[\]{}|/\\-]/.test(d)) add(d);
      else return undefined; // \x41, \u…, \cX, \0, \1, \k<…>, \p{…}
      continue;
    }
    if (c.charCodeAt(0) > 0x7f) {
      endRun();
      continue;
    }
    switch (c) {
      case "[": {
        // Skip the class to its closing bracket.
        let j = i + 1;
        if (source[j] === "^") j++;
        if (source[j] === "]") j++;
        while (j < source.length && source[j] !== "]") {
          if (source[j] === "\\") j++;
          j++;
        }
        if (j >= source.length) return undefined;
        i = j;
        endRun();
        break;
      }
      case "(":
        endRun();
        depth++;
        break;
      case ")":
        endRun();
        depth--;
        break;
      case "|":
        if (depth === 0) return undefined;
        endRun();
        break;
      case "?":
      case "*":
        // The atom before is optional.
        if (lastLiteral) run = run.slice(0, -1);
        endRun();
        break;
      case "{": {
        const quantifier = /^\{\d+(,\d*)?\}/.exec(source.slice(i));
        if (quantifier === null) return undefined;
        if (lastLiteral) run = run.slice(0, -1);
        endRun();
        i += quantifier[0].length - 1;
        break;
      }
      case "+":
      case ".":
      case "^":
      case "$":
        endRun();
        break;
      default:
        add(c);
    }
  }
  endRun();
  return best === "" ? undefined : best;
}
