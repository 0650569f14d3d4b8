/**
 * `.gitignore` rules with git's own semantics, byte for byte: the pattern
 * syntax of git's `dir.c` (comments, `!`, escapes, trailing spaces, a
 * trailing `/` for directories only, a `/` anywhere anchoring the pattern)
 * and its `wildmatch` matcher (case-sensitive, `*` and `?` never match
 * `/`, `**` spans directories, `[...]` classes including `[:alpha:]`).
 *
 * Matching runs on UTF-8 bytes, as git's does, so `?` matches one byte.
 * Hostile rule files cannot make it slow: a match that takes more than a
 * few thousand steps switches to a memoised search, which is polynomial in
 * the lengths of the pattern and the path.
 *
 * A rule file is compiled once, so that a walk does not run every pattern
 * on every path: patterns without wildcards (`Makefile`, `/vmlinux`) sit in
 * maps, `*.ext`, `*suffix` and `prefix*` patterns are string tests, and
 * only the rest runs `wildmatch`, and only when a literal part it needs
 * occurs in the path. The answer is the same as running every pattern
 * from the last to the first ({@linkcode IgnoreRules.verdict}).
 *
 * @module
 */

const encoder = new TextEncoder();

const MATCH = 0;
const NO_MATCH = 1;
const ABORT_ALL = -1;
const ABORT_TO_STARSTAR = -2;

// Steps a match may take before it switches to the memoised search.
const PLAIN_STEPS = 4096;

const SLASH = 0x2f;
const BACKSLASH = 0x5c;
const STAR = 0x2a;
const QUESTION = 0x3f;
const OPEN = 0x5b;
const CLOSE = 0x5d;

function isGlobSpecial(c: number | undefined): boolean {
  return c === STAR || c === QUESTION || c === OPEN || c === BACKSLASH;
}

// git's sane_ctype classes: ASCII only.
function inClass(name: string, c: number): boolean | undefined {
  const ch = String.fromCharCode(c);
  switch (name) {
    case "alnum":
      return /^[A-Za-z0-9]$/.test(ch);
    case "alpha":
      return /^[A-Za-z]$/.test(ch);
    case "blank":
      return c === 0x20 || c === 0x09;
    case "cntrl":
      return c < 0x20 || c === 0x7f;
    case "digit":
      return c >= 0x30 && c <= 0x39;
    case "graph":
      return c > 0x20 && c < 0x7f;
    case "lower":
      return c >= 0x61 && c <= 0x7a;
    case "print":
      return c >= 0x20 && c < 0x7f;
    case "punct":
      return c > 0x20 && c < 0x7f && !/^[A-Za-z0-9]$/.test(ch);
    case "space":
      return c === 0x20 || (c >= 0x09 && c <= 0x0d);
    case "upper":
      return c >= 0x41 && c <= 0x5a;
    case "xdigit":
      return /^[0-9A-Fa-f]$/.test(ch);
    default:
      return undefined;
  }
}

/** One run of git's `wildmatch` over byte strings. */
class WildMatch {
  readonly #p: Uint8Array;
  readonly #t: Uint8Array;
  readonly #pathname: boolean;
  #steps = 0;
  #memo: Map<number, number> | undefined;

  constructor(pattern: Uint8Array, text: Uint8Array, pathname: boolean) {
    this.#p = pattern;
    this.#t = text;
    this.#pathname = pathname;
  }

  run(): boolean {
    return this.#dowild(0, 0) === MATCH;
  }

  #dowild(pStart: number, tStart: number): number {
    if (++this.#steps > PLAIN_STEPS && this.#memo === undefined) {
      this.#memo = new Map();
    }
    const key = pStart * (this.#t.length + 1) + tStart;
    const known = this.#memo?.get(key);
    if (known !== undefined) return known;
    const result = this.#match(pStart, tStart);
    this.#memo?.set(key, result);
    return result;
  }

  // A faithful port of git's dowild(): pattern and text end at their
  // lengths where git's end at a NUL.
  #match(pStart: number, tStart: number): number {
    const p = this.#p;
    const t = this.#t;
    const pEnd = p.length;
    const tEnd = t.length;
    let pi = pStart;
    let ti = tStart;
    for (; pi < pEnd; ti++, pi++) {
      let pCh = p[pi];
      let tCh = ti < tEnd ? t[ti] : 0;
      if (ti >= tEnd && pCh !== STAR) return ABORT_ALL;
      switch (pCh) {
        case BACKSLASH:
          // A literal match with the next character; a trailing "\"
          // matches nothing.
          pi++;
          if (pi >= pEnd || tCh !== p[pi]) return NO_MATCH;
          continue;
        default:
          if (tCh !== pCh) return NO_MATCH;
          continue;
        case QUESTION:
          if (this.#pathname && tCh === SLASH) return NO_MATCH;
          continue;
        case STAR: {
          let matchSlash: boolean;
          if (p[++pi] === STAR) {
            const prev = pi - 2;
            while (p[++pi] === STAR) { /* Skip the run of stars. */ }
            if (!this.#pathname) {
              matchSlash = true;
            } else if (
              (prev < 0 || p[prev] === SLASH) &&
              (pi >= pEnd || p[pi] === SLASH ||
                (p[pi] === BACKSLASH && p[pi + 1] === SLASH))
            ) {
              // "foo/**/bar" also matches "foo/bar".
              if (
                p[pi] === SLASH && this.#dowild(pi + 1, ti) === MATCH
              ) return MATCH;
              matchSlash = true;
            } else {
              matchSlash = false;
            }
          } else {
            matchSlash = !this.#pathname;
          }
          if (pi >= pEnd) {
            // A trailing "**" matches everything, a trailing "*" only
            // what has no more slashes.
            if (!matchSlash && t.subarray(ti).includes(SLASH)) {
              return NO_MATCH;
            }
            return MATCH;
          }
          if (!matchSlash && p[pi] === SLASH) {
            // One star then a slash: the rest of this directory name.
            const slash = t.indexOf(SLASH, ti);
            if (slash === -1) return NO_MATCH;
            ti = slash;
            break; // The loop's increments consume the slash.
          }
          while (true) {
            if (ti >= tEnd) break;
            if (!isGlobSpecial(p[pi])) {
              // A literal after the star: skip ahead to its next place.
              pCh = p[pi];
              while (ti < tEnd && (matchSlash || t[ti] !== SLASH)) {
                if (t[ti] === pCh) break;
                ti++;
              }
              tCh = ti < tEnd ? t[ti] : 0;
              if (ti >= tEnd || tCh !== pCh) return NO_MATCH;
            }
            tCh = t[ti];
            const matched = this.#dowild(pi, ti);
            if (matched !== NO_MATCH) {
              if (!matchSlash || matched !== ABORT_TO_STARSTAR) return matched;
            } else if (!matchSlash && tCh === SLASH) {
              return ABORT_TO_STARSTAR;
            }
            ti++;
          }
          return ABORT_ALL;
        }
        case OPEN: {
          pCh = p[++pi];
          if (pCh === 0x5e) pCh = 0x21; // "^" negates like "!".
          const negated = pCh === 0x21;
          if (negated) pCh = p[++pi];
          let prev = 0;
          let matched = false;
          do {
            if (pi >= pEnd) return ABORT_ALL;
            if (pCh === BACKSLASH) {
              pCh = p[++pi];
              if (pi >= pEnd) return ABORT_ALL;
              if (tCh === pCh) matched = true;
            } else if (
              pCh === 0x2d && prev !== 0 && pi + 1 < pEnd && p[pi + 1] !== CLOSE
            ) {
              pCh = p[++pi];
              if (pCh === BACKSLASH) {
                pCh = p[++pi];
                if (pi >= pEnd) return ABORT_ALL;
              }
              if (tCh <= pCh && tCh >= prev) matched = true;
              pCh = 0; // So that prev becomes 0.
            } else if (pCh === OPEN && p[pi + 1] === 0x3a) {
              pi += 2;
              const s = pi;
              while (pi < pEnd && p[pi] !== CLOSE) pi++;
              if (pi >= pEnd) return ABORT_ALL;
              const length = pi - s - 1;
              if (length < 0 || p[pi - 1] !== 0x3a) {
                // No ":]": an ordinary "[" in the set.
                pi = s - 2;
                pCh = OPEN;
                if (tCh === pCh) matched = true;
                // git's "continue" here runs the loop condition.
                prev = pCh;
                pCh = p[++pi];
                continue;
              }
              const name = String.fromCharCode(...p.subarray(s, s + length));
              const verdict = inClass(name, tCh);
              if (verdict === undefined) return ABORT_ALL;
              if (verdict) matched = true;
              pCh = 0;
            } else if (tCh === pCh) {
              matched = true;
            }
            prev = pCh;
            pCh = p[++pi];
          } while (!(pi < pEnd && pCh === CLOSE));
          if (matched === negated || (this.#pathname && tCh === SLASH)) {
            return NO_MATCH;
          }
          continue;
        }
      }
    }
    return ti < tEnd ? NO_MATCH : MATCH;
  }
}

/**
 * Whether `text` matches the git wildmatch `pattern` (both UTF-8 bytes).
 * With `pathname`, `*`, `?` and classes never match `/` (git's
 * WM_PATHNAME, as `.gitignore` patterns with a slash use).
 */
export function wildmatch(
  pattern: Uint8Array,
  text: Uint8Array,
  pathname: boolean,
): boolean {
  return new WildMatch(pattern, text, pathname).run();
}

interface Pattern {
  // Without a leading "!", a leading "/" or a trailing "/".
  bytes: Uint8Array;
  negative: boolean;
  mustBeDir: boolean;
  // No slash: matched against the last path component only.
  basename: boolean;
}

/** A pattern that needs `wildmatch`, with a text it cannot match without. */
interface Generic {
  index: number;
  // A run of literal characters the subject must contain ("" if none).
  required: string;
}

/** The patterns of one file, sorted by how they can be tested. */
interface Compiled {
  // Literal basenames and literal paths: text -> indices, ascending.
  names: Map<string, number[]>;
  paths: Map<string, number[]>;
  // "*.ext" (one dot, at the start): the extension with its dot -> indices.
  extensions: Map<string, number[]>;
  // Other "*suffix" and "prefix*" basename patterns, by index, ascending.
  suffixes: { text: string; index: number }[];
  prefixes: { text: string; index: number }[];
  // The rest, by index, descending.
  generic: Generic[];
  // Length of the longest key of `paths`: longer paths need no lookup.
  longestPath: number;
  // Whether a generic pattern has a slash (is matched against the path).
  genericPaths: boolean;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

// The pattern's text when it is valid UTF-8 without U+FFFD, the cases in
// which comparing texts gives what comparing their bytes gives.
function patternText(bytes: Uint8Array): string | undefined {
  try {
    const text = strictUtf8.decode(bytes);
    return text.includes("\uFFFD") ? undefined : text;
  } catch {
    return undefined;
  }
}

function hasSpecial(text: string): boolean {
  return /[*?[\\]/.test(text);
}

// The longest run of literal characters before any class, between
// wildcards and slashes: any text the pattern matches contains it. (A slash
// next to "**" may match nothing, so no run crosses a slash; an escaped
// character is itself; classes have their own syntax, so what follows the
// first one is not looked at.)
function requiredRun(text: string): string {
  let best = "";
  let run = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "[") break;
    if (c === "\\") {
      if (i + 1 >= text.length) break;
      run += text[++i];
    } else if (c === "*" || c === "?" || c === "/") {
      if (run.length > best.length) best = run;
      run = "";
    } else run += c;
  }
  return run.length > best.length ? run : best;
}

function addTo(map: Map<string, number[]>, key: string, index: number) {
  const list = map.get(key);
  if (list === undefined) map.set(key, [index]);
  else list.push(index);
}

function compile(patterns: readonly Pattern[]): Compiled {
  const compiled: Compiled = {
    names: new Map(),
    paths: new Map(),
    extensions: new Map(),
    suffixes: [],
    prefixes: [],
    generic: [],
    longestPath: 0,
    genericPaths: false,
  };
  for (let index = 0; index < patterns.length; index++) {
    const pattern = patterns[index];
    const text = patternText(pattern.bytes);
    if (text === undefined) {
      compiled.generic.push({ index, required: "" });
      continue;
    }
    if (!hasSpecial(text)) {
      addTo(pattern.basename ? compiled.names : compiled.paths, text, index);
      if (!pattern.basename) {
        compiled.longestPath = Math.max(compiled.longestPath, text.length);
      }
      continue;
    }
    if (pattern.basename) {
      // Without WM_PATHNAME, "*" matches any run of bytes.
      const rest = text.slice(1);
      if (text[0] === "*" && !hasSpecial(rest)) {
        if (rest.lastIndexOf(".") === 0) {
          addTo(compiled.extensions, rest, index);
        } else compiled.suffixes.push({ text: rest, index });
        continue;
      }
      const head = text.slice(0, -1);
      if (text.endsWith("*") && !hasSpecial(head)) {
        compiled.prefixes.push({ text: head, index });
        continue;
      }
    }
    compiled.generic.push({ index, required: requiredRun(text) });
  }
  compiled.generic.reverse();
  compiled.genericPaths = compiled.generic.some(({ index }) =>
    !patterns[index].basename
  );
  return compiled;
}

// git's trim_trailing_spaces(): unescaped trailing spaces go.
function trimTrailingSpaces(line: Uint8Array): Uint8Array {
  let lastSpace = -1;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === 0x20) {
      if (lastSpace === -1) lastSpace = i;
    } else if (c === BACKSLASH) {
      i++;
      if (i >= line.length) return line;
      lastSpace = -1;
    } else {
      lastSpace = -1;
    }
  }
  return lastSpace === -1 ? line : line.subarray(0, lastSpace);
}

function parsePattern(line: Uint8Array): Pattern {
  let start = 0;
  let negative = false;
  if (line[0] === 0x21) {
    negative = true;
    start = 1;
  }
  let end = line.length;
  let mustBeDir = false;
  if (end > start && line[end - 1] === SLASH) {
    end--;
    mustBeDir = true;
  }
  let bytes = line.subarray(start, end);
  const basename = !bytes.includes(SLASH);
  // A leading "/" only anchors: the pattern is matched from the base.
  if (!basename && bytes[0] === SLASH) bytes = bytes.subarray(1);
  return { bytes, negative, mustBeDir, basename };
}

/**
 * The patterns of one `.gitignore` file. {@linkcode IgnoreRules.verdict}
 * gives git's answer for a path below the file's directory.
 */
export class IgnoreRules {
  readonly #patterns: Pattern[];
  #compiled: Compiled | undefined;

  private constructor(patterns: Pattern[]) {
    this.#patterns = patterns;
  }

  /** Number of patterns (comments and blank lines do not count). */
  get size(): number {
    return this.#patterns.length;
  }

  /** Parse the content of a `.gitignore` file, as git does. */
  static parse(content: Uint8Array | string): IgnoreRules {
    let bytes = typeof content === "string" ? encoder.encode(content) : content;
    // A UTF-8 byte-order mark at the start is skipped.
    if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
      bytes = bytes.subarray(3);
    }
    const patterns: Pattern[] = [];
    let start = 0;
    while (start < bytes.length) {
      let end = bytes.indexOf(0x0a, start);
      if (end === -1) end = bytes.length;
      let line = bytes.subarray(start, end);
      start = end + 1;
      // Patterns are C strings to git: a NUL ends one.
      const nul = line.indexOf(0);
      if (nul !== -1) line = line.subarray(0, nul);
      if (line.length === 0 || line[0] === 0x23) continue;
      if (line[line.length - 1] === 0x0d) line = line.subarray(0, -1);
      patterns.push(parsePattern(trimTrailingSpaces(line)));
    }
    return new IgnoreRules(patterns);
  }

  /**
   * git's verdict for `relative` (a path below this file's directory,
   * relative to it, UTF-8 bytes, no leading or trailing slash): true when
   * the last pattern that matches ignores it, false when it negates,
   * undefined when none matches.
   */
  verdict(relative: Uint8Array, isDirectory: boolean): boolean | undefined {
    const slash = relative.lastIndexOf(SLASH);
    const base = slash === -1 ? relative : relative.subarray(slash + 1);
    for (let i = this.#patterns.length - 1; i >= 0; i--) {
      const pattern = this.#patterns[i];
      if (pattern.mustBeDir && !isDirectory) continue;
      const hit = pattern.basename
        ? wildmatch(pattern.bytes, base, false)
        : wildmatch(pattern.bytes, relative, true);
      if (hit) return !pattern.negative;
    }
    return undefined;
  }

  /**
   * {@linkcode IgnoreRules.verdict} for `relative` given as text (its
   * UTF-8 bytes are what git matches): the same answer, without running
   * every pattern.
   */
  verdictOf(relative: string, isDirectory: boolean): boolean | undefined {
    const slash = relative.lastIndexOf("/");
    return this.verdictIn(
      relative,
      0,
      slash === -1 ? relative : relative.slice(slash + 1),
      isDirectory,
    );
  }

  /**
   * {@linkcode IgnoreRules.verdictOf} for `path.slice(offset)`, whose last
   * component is `base`: a walk that asks every level above an entry
   * slices its path only for the levels that need it, and its base once.
   */
  verdictIn(
    path: string,
    offset: number,
    base: string,
    isDirectory: boolean,
  ): boolean | undefined {
    const compiled = this.#compiled ??= compile(this.#patterns);
    const patterns = this.#patterns;
    // The last pattern that matches decides: find the highest index.
    let best = compiled.names.size > 0
      ? this.#highest(compiled.names.get(base), -1, isDirectory)
      : -1;
    let relative: string | undefined;
    if (
      compiled.paths.size > 0 && path.length - offset <= compiled.longestPath
    ) {
      relative = offset === 0 ? path : path.slice(offset);
      best = this.#highest(compiled.paths.get(relative), best, isDirectory);
    }
    if (compiled.extensions.size > 0) {
      const dot = base.lastIndexOf(".");
      if (dot !== -1) {
        best = this.#highest(
          compiled.extensions.get(base.slice(dot)),
          best,
          isDirectory,
        );
      }
    }
    for (const { text, index } of compiled.suffixes) {
      if (
        index > best && (isDirectory || !patterns[index].mustBeDir) &&
        base.endsWith(text)
      ) best = index;
    }
    for (const { text, index } of compiled.prefixes) {
      if (
        index > best && (isDirectory || !patterns[index].mustBeDir) &&
        base.startsWith(text)
      ) best = index;
    }
    if (compiled.generic.length > 0) {
      if (compiled.genericPaths) {
        relative ??= offset === 0 ? path : path.slice(offset);
      }
      best = this.#generic(compiled, relative, base, isDirectory, best);
    }
    return best === -1 ? undefined : !patterns[best].negative;
  }

  // The highest generic pattern above `best` that matches, else `best`.
  #generic(
    compiled: Compiled,
    relative: string | undefined,
    base: string,
    isDirectory: boolean,
    best: number,
  ): number {
    const patterns = this.#patterns;
    let bytes: Uint8Array | undefined;
    let baseBytes: Uint8Array | undefined;
    for (const { index, required } of compiled.generic) {
      if (index <= best) break;
      const pattern = patterns[index];
      if (pattern.mustBeDir && !isDirectory) continue;
      const subject = pattern.basename ? base : relative as string;
      if (!subject.includes(required)) continue;
      let hit: boolean;
      if (pattern.basename) {
        baseBytes ??= encoder.encode(base);
        hit = wildmatch(pattern.bytes, baseBytes, false);
      } else {
        bytes ??= encoder.encode(subject);
        hit = wildmatch(pattern.bytes, bytes, true);
      }
      if (hit) return index;
    }
    return best;
  }

  // The highest of `indices` (ascending) above `best` whose pattern
  // applies to this kind of entry, else `best`.
  #highest(
    indices: number[] | undefined,
    best: number,
    isDirectory: boolean,
  ): number {
    if (indices === undefined) return best;
    for (let i = indices.length - 1; i >= 0; i--) {
      const index = indices[i];
      if (index <= best) return best;
      if (isDirectory || !this.#patterns[index].mustBeDir) return index;
    }
    return best;
  }
}

/** UTF-8 bytes of a path, for {@linkcode IgnoreRules.verdict}. */
export function pathBytes(path: string): Uint8Array {
  return encoder.encode(path);
}
