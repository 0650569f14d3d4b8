/**
 * The pieces of text a regular expression cannot match without: runs of
 * literal characters that every match holds as they are written (with the
 * case-insensitive search, up to ASCII case). An index uses them to pick
 * the only files a regex search must read.
 *
 * The extraction is conservative: it reads JavaScript regex syntax
 * without flags, takes only plain characters and escaped punctuation
 * outside groups, classes and alternations, and gives up (undefined) on
 * anything it does not know, so a file without a run can never match.
 *
 * @module
 */

const PUNCTUATION = "\\^$.|?*+()[]{}/-,:;=!<>#&~'\"`@%_ ";

// The index just past the group or class that starts at source[i].
function skipBracketed(source: string, i: number): number {
  let depth = 0;
  for (; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "[") {
      for (i++; i < source.length && source[i] !== "]"; i++) {
        if (source[i] === "\\") i++;
      }
      if (depth === 0) return i + 1;
      continue;
    }
    if (c === "(") depth++;
    else if (c === ")") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

// The smallest count the quantifier at source[i] allows, and its length;
// count 1 and length 0 when there is none.
function quantifier(
  source: string,
  i: number,
): { min: number; length: number } | undefined {
  const c = source[i];
  let min = 1;
  let length = 0;
  if (c === "*" || c === "?") {
    min = 0;
    length = 1;
  } else if (c === "+") {
    length = 1;
  } else if (c === "{") {
    const braces = /^\{(\d+)(,\d*)?\}/.exec(source.slice(i));
    // A "{" that is no quantifier is a character of its own.
    if (braces === null) return { min: 1, length: 0 };
    min = Number(braces[1]);
    length = braces[0].length;
  } else return { min: 1, length: 0 };
  if (source[i + length] === "?") length++; // Lazy.
  if (/[*+?{]/.test(source[i + length] ?? "") && source[i + length] !== "{") {
    return undefined; // A quantifier on a quantifier: a syntax error.
  }
  return { min, length };
}

/**
 * Runs of characters every match of `source` (a regex in JavaScript
 * syntax without flags, as a client wrote it) contains, in order met;
 * undefined when the pattern has a form not understood (then no file may
 * be ruled out).
 */
export function requiredRuns(source: string): string[] | undefined {
  const runs: string[] = [];
  let run = "";
  const end = () => {
    if (run !== "") runs.push(run);
    run = "";
  };
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    let literal: string | undefined;
    let next: number;
    if (c === "|") return undefined;
    if (c === "(" || c === "[") {
      next = skipBracketed(source, i);
      if (next === -1) return undefined;
    } else if (c === ")" || c === "]" || c === "}") {
      return undefined;
    } else if (c === "*" || c === "+" || c === "?") {
      return undefined; // Nothing to repeat: not a valid pattern.
    } else if (c === "{") {
      if (/^\{\d+(,\d*)?\}/.test(source.slice(i))) return undefined;
      next = i + 1;
    } else if (c === "\\") {
      const e = source[i + 1];
      if (e === undefined) return undefined;
      if (PUNCTUATION.includes(e)) literal = e;
      else if (!"dDwWsSbBnrtfv".includes(e)) return undefined;
      next = i + 2;
    } else if (c === "." || c === "^" || c === "$") {
      next = i + 1;
    } else {
      literal = c;
      next = i + 1;
    }
    const q = quantifier(source, next);
    if (q === undefined) return undefined;
    if (literal !== undefined && q.length === 0) {
      run += literal;
    } else if (literal !== undefined && q.min >= 1) {
      run += literal;
      end();
    } else end();
    i = next + q.length;
  }
  end();
  return runs;
}
