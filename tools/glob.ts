/**
 * Glob patterns matched in time linear in the path's length times the
 * pattern's size: no backtracking regular expression is ever built from a
 * client's pattern, so no pattern can stall the server.
 *
 * Syntax: `*` (any run of characters within one path segment), `**` (as a
 * whole segment: any number of segments, none included), `?` (one
 * character), `[abc]`, `[a-z]`, `[!abc]` or `[^abc]` (one character of, or
 * not of, a set), `{a,b}` (alternatives, nested allowed, expanding to at
 * most {@linkcode MAX_GLOB_EXPANSIONS} patterns) and `\` (the next
 * character literally). Extended globs (`+(…)`, `@(…)`, `!(…)`, `*(…)`,
 * `?(…)`) are refused. Matching is case-sensitive and `*` matches names
 * that start with a dot.
 *
 * @module
 */

import { ToolFailure } from "../mcp/tool.ts";

/** Longest glob pattern accepted, in characters. */
export const MAX_GLOB_LENGTH = 1000;

/** Most patterns one glob's `{a,b}` alternatives may expand to. */
export const MAX_GLOB_EXPANSIONS = 256;

/** The syntax, in one sentence, for error messages and tool descriptions. */
export const GLOB_SYNTAX =
  "* (within a path segment), ** (any number of segments), ?, [abc], [a-z], [!abc], {a,b} and \\ to escape";

/** A glob the matcher refuses; the message says why and what to use. */
export class GlobError extends ToolFailure {
  /** Make the error for `pattern`, refused because of `why`. */
  constructor(pattern: string, why: string) {
    const shown = pattern.length > 80 ? `${pattern.slice(0, 80)}…` : pattern;
    super(
      `The glob "${shown}" is not supported: ${why}. Use ${GLOB_SYNTAX}.`,
    );
    this.name = "GlobError";
  }
}

type Token =
  | { kind: "char"; code: number }
  | { kind: "any" }
  | { kind: "star" }
  | { kind: "class"; negate: boolean; ranges: number[] };

// A segment pattern: "**", literal text, a literal with stars around it
// ("*.ts", "README*", "*test*"), or tokens run as an NFA.
type Segment =
  | { kind: "globstar" }
  | { kind: "literal"; text: string }
  | { kind: "affix"; text: string; before: boolean; after: boolean }
  | { kind: "tokens"; tokens: Token[] };

/** Where the class opening at `start` ends (its "]"), or -1 if it does not. */
function classEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === "!" || pattern[i] === "^") i++;
  if (pattern[i] === "]") i++;
  for (; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") i++;
    else if (c === "]") return i;
    else if (c === "/") return -1;
  }
  return -1;
}

/**
 * The patterns `{a,b}` alternatives expand to. Braces are paired first in
 * one linear pass, so expansion never re-parses: a brace without a partner
 * or without a top-level comma is literal text.
 */
function expandBraces(pattern: string): string[] {
  const partner = new Int32Array(pattern.length).fill(-1);
  const hasComma = new Uint8Array(pattern.length);
  const open: number[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      i++;
    } else if (c === "[") {
      const end = classEnd(pattern, i);
      if (end !== -1) i = end;
    } else if (c === "{") {
      open.push(i);
    } else if (c === "}" && open.length > 0) {
      const start = open.pop() as number;
      partner[start] = i;
      partner[i] = start;
    } else if (c === "," && open.length > 0) {
      hasComma[open[open.length - 1]] = 1;
    }
  }
  const product = (left: string[], right: string[]): string[] => {
    if (left.length * right.length > MAX_GLOB_EXPANSIONS) {
      throw new GlobError(
        pattern,
        `its {…} alternatives expand to more than ${MAX_GLOB_EXPANSIONS} patterns`,
      );
    }
    const out: string[] = [];
    for (const a of left) for (const b of right) out.push(a + b);
    return out;
  };
  // Expand pattern[from, to): literal runs, classes and brace groups.
  const expand = (from: number, to: number): string[] => {
    let results = [""];
    let literal = "";
    const flush = () => {
      if (literal === "") return;
      results = results.map((r) => r + literal);
      literal = "";
    };
    for (let i = from; i < to; i++) {
      const c = pattern[i];
      if (c === "\\") {
        literal += pattern.slice(i, i + 2);
        i++;
      } else if (c === "[") {
        const end = classEnd(pattern, i);
        if (end === -1 || end >= to) {
          literal += c;
        } else {
          literal += pattern.slice(i, end + 1);
          i = end;
        }
      } else if (c === "{" && partner[i] !== -1 && hasComma[i]) {
        flush();
        const close = partner[i];
        const alternatives: string[] = [];
        let start = i + 1;
        for (let j = i + 1; j <= close; j++) {
          const d = pattern[j];
          if (d === "\\") {
            j++;
          } else if (d === "[") {
            const end = classEnd(pattern, j);
            if (end !== -1 && end < close) j = end;
          } else if (d === "{" && partner[j] !== -1) {
            j = partner[j];
          } else if (d === "," || j === close) {
            alternatives.push(...expand(start, j));
            if (alternatives.length > MAX_GLOB_EXPANSIONS) {
              throw new GlobError(
                pattern,
                `its {…} alternatives expand to more than ${MAX_GLOB_EXPANSIONS} patterns`,
              );
            }
            start = j + 1;
          }
        }
        results = product(results, alternatives);
        i = close;
      } else {
        literal += c;
      }
    }
    flush();
    return results;
  };
  return expand(0, pattern.length);
}

/** Parse one segment (no "/" outside classes) into tokens. */
function parseSegment(source: string, pattern: string): Segment {
  if (source === "**") return { kind: "globstar" };
  const tokens: Token[] = [];
  let plain = true;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    const next = source[i + 1];
    if ("+@!*?".includes(c) && next === "(") {
      throw new GlobError(
        pattern,
        `extended globs such as ${c}(…) are not supported (write \\( to match a parenthesis)`,
      );
    }
    if (c === "[" && classEnd(source, i) === -1) {
      throw new GlobError(
        pattern,
        'a "[" opens a character class that is never closed with "]" (write \\[ to match a bracket)',
      );
    }
    if (c === "\\") {
      if (i + 1 < source.length) i++;
      tokens.push({ kind: "char", code: source.charCodeAt(i) });
    } else if (c === "*") {
      plain = false;
      // "**" inside a segment is just "*".
      if (tokens.at(-1)?.kind !== "star") tokens.push({ kind: "star" });
    } else if (c === "?") {
      plain = false;
      tokens.push({ kind: "any" });
    } else if (c === "[" && classEnd(source, i) !== -1) {
      plain = false;
      const end = classEnd(source, i);
      let j = i + 1;
      const negate = source[j] === "!" || source[j] === "^";
      if (negate) j++;
      const ranges: number[] = [];
      let first = true;
      while (j < end || (first && source[j] === "]")) {
        first = false;
        if (source[j] === "\\") j++;
        const low = source.charCodeAt(j);
        j++;
        let high = low;
        if (source[j] === "-" && j + 1 < end) {
          j++;
          if (source[j] === "\\") j++;
          high = source.charCodeAt(j);
          j++;
        }
        if (high < low) {
          throw new GlobError(
            pattern,
            `the range ${String.fromCharCode(low)}-${
              String.fromCharCode(high)
            } in […] runs backwards`,
          );
        }
        ranges.push(low, high);
      }
      tokens.push({ kind: "class", negate, ranges });
      i = end;
    } else {
      tokens.push({ kind: "char", code: source.charCodeAt(i) });
    }
  }
  const textOf = (chars: Token[]) =>
    String.fromCharCode(...chars.map((t) => (t as { code: number }).code));
  if (plain) return { kind: "literal", text: textOf(tokens) };
  // The common shapes need no automaton: a literal with a star before
  // and/or after it.
  const before = tokens[0].kind === "star";
  const after = tokens.length > 1 && tokens[tokens.length - 1].kind === "star";
  const middle = tokens.slice(before ? 1 : 0, after ? -1 : undefined);
  if (middle.every((t) => t.kind === "char")) {
    return { kind: "affix", text: textOf(middle), before, after };
  }
  return { kind: "tokens", tokens };
}

function tokenAccepts(token: Token, code: number): boolean {
  switch (token.kind) {
    case "char":
      return token.code === code;
    case "any":
      return true;
    case "class": {
      let inside = false;
      for (let k = 0; k < token.ranges.length; k += 2) {
        if (code >= token.ranges[k] && code <= token.ranges[k + 1]) {
          inside = true;
          break;
        }
      }
      return inside !== token.negate;
    }
    case "star":
      return false;
  }
}

/**
 * Whether `tokens` match all of `name`: a set-of-states simulation, so
 * the cost is at most `name.length × tokens.length` steps.
 */
function tokensMatch(tokens: Token[], name: string): boolean {
  const n = tokens.length;
  let current = new Uint8Array(n + 1);
  let next = new Uint8Array(n + 1);
  // A star may match nothing: reaching it also reaches what follows it.
  const close = (states: Uint8Array) => {
    for (let j = 0; j < n; j++) {
      if (states[j] && tokens[j].kind === "star") states[j + 1] = 1;
    }
  };
  current[0] = 1;
  close(current);
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    next.fill(0);
    let alive = false;
    for (let j = 0; j < n; j++) {
      if (!current[j]) continue;
      const token = tokens[j];
      if (token.kind === "star") {
        next[j] = 1;
        alive = true;
      } else if (tokenAccepts(token, code)) {
        next[j + 1] = 1;
        alive = true;
      }
    }
    if (!alive) return false;
    close(next);
    [current, next] = [next, current];
  }
  return current[n] === 1;
}

function segmentMatches(segment: Segment, name: string): boolean {
  switch (segment.kind) {
    case "literal":
      return segment.text === name;
    case "affix":
      if (segment.before && segment.after) return name.includes(segment.text);
      if (segment.before) return name.endsWith(segment.text);
      return name.startsWith(segment.text);
    case "tokens":
      return tokensMatch(segment.tokens, name);
    case "globstar":
      return true;
  }
}

/**
 * Whether `segments` match the path `parts`, "**" standing for any number
 * of whole parts: the same state-set simulation, one level up.
 */
function pathMatches(segments: Segment[], parts: string[]): boolean {
  const n = segments.length;
  if (n === 1 && segments[0].kind !== "globstar") {
    return parts.length === 1 && segmentMatches(segments[0], parts[0]);
  }
  let current = new Uint8Array(n + 1);
  let next = new Uint8Array(n + 1);
  const close = (states: Uint8Array) => {
    for (let j = 0; j < n; j++) {
      if (states[j] && segments[j].kind === "globstar") states[j + 1] = 1;
    }
  };
  current[0] = 1;
  close(current);
  for (const part of parts) {
    next.fill(0);
    let alive = false;
    for (let j = 0; j < n; j++) {
      if (!current[j]) continue;
      const segment = segments[j];
      if (segment.kind === "globstar") {
        next[j] = 1;
        alive = true;
      } else if (segmentMatches(segment, part)) {
        next[j + 1] = 1;
        alive = true;
      }
    }
    if (!alive) return false;
    close(next);
    [current, next] = [next, current];
  }
  return current[n] === 1;
}

/** Split at "/" outside classes and escapes; empty and "." segments go. */
function splitSegments(pattern: string): string[] {
  const segments: string[] = [];
  let start = 0;
  for (let i = 0; i <= pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      i++;
    } else if (c === "[") {
      const end = classEnd(pattern, i);
      if (end !== -1) i = end;
    } else if (c === "/" || i === pattern.length) {
      const segment = pattern.slice(start, i);
      if (segment !== "" && segment !== ".") segments.push(segment);
      start = i + 1;
    }
  }
  return segments;
}

function checkLength(pattern: string): void {
  if (pattern.length > MAX_GLOB_LENGTH) {
    throw new GlobError(
      pattern,
      `it is ${pattern.length} characters long, over the limit of ${MAX_GLOB_LENGTH}`,
    );
  }
}

function partsOf(path: string): string[] {
  return path.split("/").filter((p) => p !== "");
}

// One test of a path for a list of brace-free patterns. A pattern whose
// last segment is not "**" can match only a path whose last part that
// segment matches: that is tested first, on the text after the last "/",
// before the path is split; and when every segment before it is "**",
// nothing else is needed ("**/Makefile", "**/*.c").
function compileAll(
  patterns: string[],
  original: string,
): ((path: string) => boolean) | undefined {
  if (patterns.length === 0) return undefined;
  const compiled = patterns.map((p) => {
    const segments = splitSegments(p).map((s) => parseSegment(s, original));
    const last = segments[segments.length - 1];
    const ends = last !== undefined && last.kind !== "globstar"
      ? last
      : undefined;
    const rest = segments.slice(0, -1);
    return {
      segments,
      ends,
      starsBefore: ends !== undefined && rest.length > 0 &&
        rest.every((s) => s.kind === "globstar"),
    };
  });
  return (path) => {
    // A clean path ("a/b", never "" nor ending in "/"): its last part
    // is the text after its last "/".
    const clean = path !== "" && !path.endsWith("/");
    const base = clean ? path.slice(path.lastIndexOf("/") + 1) : "";
    let parts: string[] | undefined;
    for (const { segments, ends, starsBefore } of compiled) {
      if (clean && ends !== undefined) {
        if (!segmentMatches(ends, base)) continue;
        if (starsBefore) return true;
      }
      if (pathMatches(segments, parts ??= partsOf(path))) return true;
    }
    return false;
  };
}

/**
 * Compile `pattern` into a test of whole POSIX paths. Throws a
 * {@linkcode GlobError} for a pattern it refuses (too long, extended
 * globs, too many alternatives).
 */
export function compileGlob(pattern: string): (path: string) => boolean {
  checkLength(pattern);
  return compileAll(expandBraces(pattern), pattern) as (
    path: string,
  ) => boolean;
}

/**
 * A matcher for a glob over root-relative POSIX paths. A pattern (or a
 * `{a,b}` alternative) without "/" matches a file's name anywhere
 * ("*.ts"); one with "/" matches the path relative to `base`
 * ("src/**\/*.ts" under the root). Throws a {@linkcode GlobError} for a
 * pattern it refuses.
 */
export function globMatcher(
  pattern: string,
  base = "",
): (relative: string) => boolean {
  checkLength(pattern);
  const byName: string[] = [];
  const byPath: string[] = [];
  for (const expanded of expandBraces(pattern)) {
    const anchored = splitSegments(expanded).length > 1 ||
      expanded.startsWith("/") || expanded.startsWith("./");
    (anchored ? byPath : byName).push(expanded);
  }
  const name = compileAll(byName, pattern);
  const full = compileAll(byPath, pattern);
  const prefix = base === "" ? "" : `${base}/`;
  return (relative) => {
    if (name?.(relative.slice(relative.lastIndexOf("/") + 1))) return true;
    if (full === undefined) return false;
    return full(
      relative.startsWith(prefix) ? relative.slice(prefix.length) : relative,
    );
  };
}
