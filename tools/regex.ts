/**
 * Client regular expressions, checked before they run: valid, not too
 * long, and executable in linear time, as ripgrep's default engine
 * requires.
 *
 * V8 can fall back to a linear-time engine when a regex backtracks too
 * much (`--enable-experimental-regexp-engine-on-excessive-backtracks`),
 * which turns `(a+)+$` from minutes into a millisecond, but only for
 * regexes that engine can run: no backreferences, no lookahead, no huge
 * repetition counts, and neither the `i` nor the `u` flag. So a search
 * regex is compiled without flags (case-insensitivity is written into the
 * pattern by {@linkcode foldCase}) and validated with the `l` flag, which
 * refuses anything the linear engine cannot run; matching itself runs
 * without `l`, at the backtracking engine's full speed, and falls back
 * only when a line makes it backtrack.
 *
 * A worker stuck in a backtracking regex cannot be stopped (not even by
 * `terminate()`), so this check is what keeps every search finite. When
 * the process runs without these V8 flags (e.g. a plain `deno
 * run main.ts`), the `l` flag does not exist: regexes that can backtrack
 * badly (nested quantifiers, backreferences, lookahead) are then refused
 * by a conservative syntactic check instead, and the rest run under the
 * search's time budget.
 *
 * @module
 */

import { ToolFailure } from "../mcp/tool.ts";

/** Longest regular expression accepted, in characters. */
export const MAX_REGEX_LENGTH = 4096;

// V8's flag for its linear-time engine (not in the language standard).
const LINEAR_FLAG = "l";

let linear: boolean | undefined;

/** Whether V8's linear-time engine (the `l` flag) is on in this process. */
export function linearEngineAvailable(): boolean {
  if (linear === undefined) {
    try {
      new RegExp("", LINEAR_FLAG);
      linear = true;
    } catch {
      linear = false;
    }
  }
  return linear;
}

/** A regex the search refuses; the message says why and what to do. */
export class RegexError extends ToolFailure {
  /** Make the error for `query`, refused because of `why`. */
  constructor(query: string, why: string) {
    const shown = query.length > 80 ? `${query.slice(0, 80)}…` : query;
    super(
      `The regular expression "${shown}" ${why}; search literally with regex: false, or rewrite it.`,
    );
    this.name = "RegexError";
  }
}

// Characters grouped by the canonical form the `i` flag compares without
// `u` (ECMA-262 Canonicalize): only groups of two or more, built once.
let caseGroups: Map<number, number[]> | undefined;
let casedCodes: number[] | undefined;

function canonicalize(code: number): number {
  const upper = String.fromCharCode(code).toUpperCase();
  if (upper.length !== 1) return code;
  const result = upper.charCodeAt(0);
  return code >= 128 && result < 128 ? code : result;
}

function groups(): Map<number, number[]> {
  if (caseGroups !== undefined) return caseGroups;
  const all = new Map<number, number[]>();
  for (let code = 0; code < 0x10000; code++) {
    const key = canonicalize(code);
    const group = all.get(key);
    if (group === undefined) all.set(key, [code]);
    else group.push(code);
  }
  caseGroups = new Map();
  for (const group of all.values()) {
    if (group.length < 2) continue;
    for (const code of group) caseGroups.set(code, group);
  }
  casedCodes = [...caseGroups.keys()].sort((a, b) => a - b);
  return caseGroups;
}

function escapeCode(code: number): string {
  const isAlnum = (code >= 0x30 && code <= 0x39) ||
    (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
  return isAlnum
    ? String.fromCharCode(code)
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

// The code an escape at source[i] ("\x41", "\u0041") stands for, and its
// length; undefined for other escapes.
function escapedCode(
  source: string,
  i: number,
): { code: number; length: number } | undefined {
  const kind = source[i + 1];
  const digits = kind === "x" ? 2 : kind === "u" ? 4 : 0;
  if (digits === 0) return undefined;
  const hex = source.slice(i + 2, i + 2 + digits);
  if (hex.length !== digits || !/^[0-9a-fA-F]+$/.test(hex)) return undefined;
  return { code: parseInt(hex, 16), length: 2 + digits };
}

/**
 * Rewrite a regex (non-`u` syntax) so that, without flags, it matches what
 * the original matches with the `i` flag: each cased literal becomes a
 * class of its case variants, and each class gains the variants of what it
 * holds. Linear in the pattern's length (ranges cost at most the number of
 * cased characters in them).
 */
export function foldCase(source: string): string {
  const variants = groups();
  let out = "";
  const n = source.length;
  for (let i = 0; i < n; i++) {
    const c = source[i];
    if (c === "\\") {
      const escaped = escapedCode(source, i);
      if (escaped !== undefined) {
        const group = variants.get(escaped.code);
        out += group === undefined
          ? source.slice(i, i + escaped.length)
          : `[${group.map(escapeCode).join("")}]`;
        i += escaped.length - 1;
      } else {
        out += source.slice(i, i + 2);
        i++;
      }
    } else if (c === "(" && source.startsWith("(?<", i)) {
      const next = source[i + 3];
      const close = source.indexOf(">", i);
      if (next === "=" || next === "!" || close === -1) {
        out += c;
      } else {
        // A group name stays as written.
        out += source.slice(i, close + 1);
        i = close;
      }
    } else if (c === "[") {
      let j = i + 1;
      if (source[j] === "^") j++;
      const extra = new Set<number>();
      let end = -1;
      let previous: number | undefined;
      for (; j < n; j++) {
        const d = source[j];
        if (d === "]") {
          end = j;
          break;
        }
        let code: number | undefined;
        if (d === "\\") {
          const escaped = escapedCode(source, j);
          if (escaped !== undefined) {
            code = escaped.code;
            j += escaped.length - 1;
          } else {
            j++;
            const e = source[j];
            // \d, \w, \s, \b… have no case; other escapes are the char.
            if (e !== undefined && !/[dDwWsSbBcfnrtv0-9]/.test(e)) {
              code = e.charCodeAt(0);
            }
          }
        } else if (
          d === "-" && previous !== undefined && source[j + 1] !== "]"
        ) {
          // A range previous-high: add the variants of every cased char in it.
          let high: number | undefined;
          if (source[j + 1] === "\\") {
            const escaped = escapedCode(source, j + 1);
            if (escaped !== undefined) {
              high = escaped.code;
              j += escaped.length;
            }
          } else if (j + 1 < n) {
            high = source.charCodeAt(j + 1);
            j++;
          }
          if (high !== undefined) {
            for (const cased of casedCodes as number[]) {
              if (cased < previous) continue;
              if (cased > high) break;
              for (const v of variants.get(cased) as number[]) extra.add(v);
            }
          }
          previous = undefined;
          continue;
        } else {
          code = d.charCodeAt(0);
        }
        previous = code;
        const group = code === undefined ? undefined : variants.get(code);
        if (group !== undefined) { for (const v of group) extra.add(v); }
      }
      if (end === -1) {
        // No closing bracket: a syntax error the caller reports.
        out += source.slice(i);
        break;
      }
      // The variants go first, where they cannot form a range with what
      // follows (a leading "-" of the class is escaped for that).
      const bodyStart = source[i + 1] === "^" ? i + 2 : i + 1;
      let body = source.slice(bodyStart, end);
      if (body.startsWith("-")) body = `\\${body}`;
      out += source.slice(i, bodyStart);
      for (const code of extra) out += escapeCode(code);
      out += `${body}]`;
      i = end;
    } else {
      const group = variants.get(c.charCodeAt(0));
      out += group === undefined ? c : `[${group.map(escapeCode).join("")}]`;
    }
  }
  return out;
}

/**
 * Why `source` may backtrack without bound, by a conservative syntactic
 * check (used only without the linear engine): a backreference, a
 * lookahead, or a quantified group that holds a quantifier or an
 * alternation. Undefined when none is found.
 */
export function backtrackingRisk(source: string): string | undefined {
  // Per open group: whether it holds a quantifier or "|".
  const stack: boolean[] = [];
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      const e = source[i + 1];
      if (/[1-9]/.test(e ?? "") || (e === "k" && source[i + 2] === "<")) {
        return "uses a backreference";
      }
      i++;
      continue;
    }
    if (c === "[") {
      // Skip the class.
      for (i++; i < source.length && source[i] !== "]"; i++) {
        if (source[i] === "\\") i++;
      }
      continue;
    }
    if (c === "(") {
      if (source.startsWith("(?=", i) || source.startsWith("(?!", i)) {
        return "uses a lookahead";
      }
      stack.push(false);
      continue;
    }
    const quantifier = c === "*" || c === "+" || c === "?" || c === "{";
    if (c === "|" && stack.length > 0) stack[stack.length - 1] = true;
    if (c === ")") {
      const inner = stack.pop() ?? false;
      const next = source[i + 1];
      if (inner && (next === "*" || next === "+" || next === "{")) {
        return "repeats a group that itself repeats or alternates, such as (a+)+";
      }
      if (inner && stack.length > 0) stack[stack.length - 1] = true;
      continue;
    }
    if (quantifier && stack.length > 0) stack[stack.length - 1] = true;
  }
  return undefined;
}

/** A search regex ready to match: source and flags for `new RegExp`. */
export interface SearchRegex {
  /** The pattern, case-folded when the search ignores case. */
  source: string;
  /** The flags: always none, so the linear fallback can run it. */
  flags: string;
}

/**
 * Check a client's regex and make it ready to match. Throws a
 * {@linkcode RegexError} (a message for the model) when it is too long,
 * invalid, or cannot be matched in linear time.
 */
export function prepareRegex(
  query: string,
  caseSensitive: boolean,
): SearchRegex {
  if (query.length > MAX_REGEX_LENGTH) {
    throw new RegexError(
      query,
      `is ${query.length} characters long, over the limit of ${MAX_REGEX_LENGTH}`,
    );
  }
  try {
    new RegExp(query);
  } catch (error) {
    throw new RegexError(
      query,
      `is not valid (${(error as Error).message})`,
    );
  }
  const source = caseSensitive ? query : foldCase(query);
  if (linearEngineAvailable()) {
    try {
      new RegExp(source, LINEAR_FLAG);
    } catch {
      throw new RegexError(
        query,
        "cannot be matched in linear time: backreferences (\\1, \\k<name>), lookahead ((?=…), (?!…)) and large repetition counts such as {1000} are not supported",
      );
    }
  } else {
    const risk = backtrackingRisk(source);
    if (risk !== undefined) {
      throw new RegexError(
        query,
        `${risk}, which could take exponential time (this server runs without V8's linear-time regex engine, so such patterns are refused)`,
      );
    }
  }
  return { source, flags: "" };
}
