/**
 * C's macro habits that the C++ grammar cannot read, blanked before
 * parsing: every character but the line ends becomes a space, so every
 * other line, column and offset stays where it was. What is blanked
 * defines nothing the symbol tools report.
 *
 * - A top-level macro call that takes a type among its arguments
 *   (`module_param(debug, int, 0644);`, `DEFINE_PER_CPU(int, x);`) or
 *   declares something (`static SENSOR_DEVICE_ATTR_RO(in0, in, 0);`):
 *   the grammar takes one for a declaration gone wrong, and its error
 *   recovery then swallows the definitions after it, often hundreds of
 *   lines (in the kernel's `drivers/`, most of the functions lost to
 *   syntax errors were lost so).
 * - A lock annotation on its own line between a function's parameters
 *   and its body (`__acquires(&lock)`, `__must_hold(x)`): the grammar
 *   ends the declaration before it and reads the annotation as a
 *   function of its own.
 *
 * @module
 */

/** A line that starts, at column 0, with a name and its `(`. */
const CALL_START = /^(?:static[ \t]+)?[A-Za-z_]\w*[ \t]*\(/gm;

/** A type keyword as a whole word: what the grammar stumbles on. */
const TYPE_WORD =
  /\b(?:bool|char|short|int|long|signed|unsigned|float|double|void|struct|union|enum)\b/;

/**
 * A line that is only an annotation call, `__name(…)`, after a line that
 * ends with `)`: a function's parameters.
 */
const ANNOTATION =
  /(?<=\)[ \t]*\n)(?:[ \t]*__\w+\([^;{}\n]*\)[ \t]*\n)+(?=[ \t]*\{)/g;

/** Longest call blanked, in characters. */
const MAX_CALL = 4096;

/**
 * Whether the line before `at` (the last one not blank) ends a
 * statement, a block, a comment or a directive, so that the line at `at`
 * starts a statement of its own: not the second line of a definition
 * whose type is on the line above (`static int\nprobe(…)`), nor a line of
 * a multi-line macro definition.
 */
function startsStatement(text: string, at: number): boolean {
  let end = at - 1;
  while (end >= 0) {
    const start = text.lastIndexOf("\n", end - 1) + 1;
    const line = text.slice(start, end).trim();
    if (line === "") {
      end = start - 1;
      continue;
    }
    return /[;}]$|\*\/$/.test(line) ||
      (line.startsWith("#") && !line.endsWith("\\")) ||
      line.startsWith("//");
  }
  return true;
}

/**
 * Where the call whose `(` is at `open` ends: the index just past its
 * `;`, or -1 when its parentheses do not close, a `;` does not follow
 * them, or it runs over {@linkcode MAX_CALL} characters. Strings and
 * character literals are skipped.
 */
function callEnd(text: string, open: number): number {
  let depth = 0;
  const limit = Math.min(text.length, open + MAX_CALL);
  for (let i = open; i < limit; i++) {
    const c = text[i];
    if (c === '"' || c === "'") {
      for (i++; i < limit && text[i] !== c && text[i] !== "\n"; i++) {
        if (text[i] === "\\") i++;
      }
    } else if (c === "(") depth++;
    else if (c === ")") {
      depth--;
      if (depth === 0) {
        const semicolon = /^[ \t]*;/.exec(text.slice(i + 1, i + 64));
        return semicolon === null ? -1 : i + 1 + semicolon[0].length;
      }
    } else if (c === ";" || c === "{" || c === "}") return -1;
  }
  return -1;
}

/** `text` with what the module's note says blanked (the same when none). */
export function blankUnreadableMacros(text: string): string {
  return blankAnnotations(blankTypeMacroCalls(text));
}

/** `text` with the lock annotations before function bodies blanked. */
function blankAnnotations(text: string): string {
  if (!text.includes("__")) return text;
  return text.replace(ANNOTATION, (lines) => lines.replace(/[^\n]/g, " "));
}

/** `text` with its top-level macro calls that take a type or declare. */
function blankTypeMacroCalls(text: string): string {
  let out: string[] | undefined;
  let copied = 0;
  for (const match of text.matchAll(CALL_START)) {
    const start = match.index;
    if (start < copied || !startsStatement(text, start)) continue;
    const open = start + match[0].length - 1;
    const end = callEnd(text, open);
    // `static NAME(…);` has no type: a macro that declares something.
    const declares = match[0].startsWith("static");
    if (end < 0 || !(declares || TYPE_WORD.test(text.slice(open, end)))) {
      continue;
    }
    out ??= [];
    out.push(
      text.slice(copied, start),
      text.slice(start, end).replace(/[^\n]/g, " "),
    );
    copied = end;
  }
  if (out === undefined) return text;
  out.push(text.slice(copied));
  return out.join("");
}
