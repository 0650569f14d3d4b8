/**
 * ripgrep as a candidate finder for `search_text`'s scan (`--rg PATH`).
 *
 * `rg -l` lists the files under the searched directory whose bytes, as rg
 * sees them, hold the search's literal (or, for a regex, the runs of
 * characters every match holds, in order on one line), a NUL byte, or a
 * U+FFFD. The scan then walks as always and reads every file it lists,
 * except one that rg did not list and that it can show rg's answer was
 * complete for (`clearedByRg`). rg never decides what a client sees: every
 * byte comes from the scan's own confined read and its own match, and the
 * walk alone decides which files are searched.
 *
 * Why a file rg did not list can be counted as searched, without a match
 * (exactly what reading it would have found):
 * - rg ran with no configuration, no ignore rules, hidden files, every file
 *   as text (`--text`), up to the scan's size cap, and exited 0 or 1 (no
 *   error: every file of its walk was read), with its output whole.
 * - rg decodes a file as the scan does: by its byte-order mark (UTF-16 or
 *   UTF-8, the mark dropped), else as UTF-8 with each invalid sequence
 *   turned into U+FFFD (`--encoding utf-8`, WHATWG's decoders on both
 *   sides). A file without U+FFFD or NUL in rg's view is text to the scan
 *   (valid UTF-8 without NUL, or UTF-16), and its decoded text is rg's.
 * - Every literal match, and every line a regex matches, holds the pattern
 *   given to rg in that text, so the text holds no match.
 * - The walk's lstat shows the file not changed since just before rg
 *   started (ctime, a second of margin) and within the size cap; links are
 *   always read (rg does not follow them).
 * - Only case-sensitive searches use rg: JavaScript's case folding is not
 *   rg's.
 *
 * rg runs with a cleared environment, `--no-config`, the patterns after
 * `-e` (each character not a letter, digit or `_` written as `\x{…}`, so no
 * pattern starts with `-` or holds a NUL), the directory after `--`, under
 * a time limit and an output cap, and is killed when the search is
 * cancelled. Anything unexpected (rg missing, not permitted, an error, a
 * timeout, too much output) leaves the scan to read every file.
 *
 * @module
 */

import { requiredRuns } from "./regex_literals.ts";

/** How a scan may use ripgrep. */
export interface RgOptions {
  /** The `rg` executable (the `--rg` flag's value). */
  program: string;
  /** Longest rg may run, in ms (default {@linkcode RG_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** Most bytes of rg output taken (default {@linkcode RG_OUTPUT_CAP}). */
  outputCap?: number;
  /**
   * Called once rg has answered, before the scan walks (tests change the
   * tree here).
   */
  afterRun?: () => void | Promise<void>;
}

/** Default longest run of rg, in ms. */
export const RG_TIMEOUT_MS = 60_000;

/** Default cap on rg's output, in bytes. */
export const RG_OUTPUT_CAP = 32 * 1024 * 1024;

/** Longest pattern handed to rg, in characters (longer: no rg). */
export const MAX_RG_PATTERN = 16_384;

/** What rg proposed: the files that must be read, and since when. */
export interface RgAnswer {
  /** Root-relative paths of the files rg listed. */
  proposed: string[];
  /**
   * A file whose ctime is at or after this (ms since the epoch) may have
   * changed since rg read it, and is read.
   */
  before: number;
}

let runs = 0;

/** How many times rg has been started in this process (tests). */
export function rgRuns(): number {
  return runs;
}

/**
 * `text` as a pattern of rg's regex syntax matching exactly it: letters,
 * digits and `_` as they are, every other character as `\x{HEX}`.
 */
export function rgLiteral(text: string): string {
  let out = "";
  for (const c of text) {
    out += /^[A-Za-z0-9_]$/.test(c)
      ? c
      : `\\x{${(c.codePointAt(0) as number).toString(16)}}`;
  }
  return out;
}

/** What a search looks for, as far as rg is concerned. */
export interface RgQuery {
  /** The query text (a literal, or the client's regex). */
  query: string;
  /** Whether it is a regex. */
  regex: boolean;
  /** Match case exactly. */
  caseSensitive: boolean;
}

/**
 * The pattern that every match of `q` holds on its line, in rg's syntax,
 * or undefined when rg cannot be used for it (case-insensitive, a regex
 * without a required run, a newline, not well-formed, too long).
 */
export function rgPattern(q: RgQuery): string | undefined {
  if (!q.caseSensitive || !q.query.isWellFormed()) return undefined;
  let pattern: string;
  if (!q.regex) {
    if (q.query.includes("\n")) return undefined;
    pattern = rgLiteral(q.query);
  } else {
    const parts = requiredRuns(q.query);
    if (
      parts === undefined || parts.length === 0 ||
      parts.some((run) => run.includes("\n") || !run.isWellFormed())
    ) return undefined;
    // The runs stand in this order within one line of every match.
    pattern = parts.map(rgLiteral).join(".*");
  }
  return pattern.length > MAX_RG_PATTERN ? undefined : pattern;
}

/**
 * rg's arguments for `pattern` over the absolute directory `dir`, files
 * over `maxBytes` left out.
 */
export function rgArgs(pattern: string, dir: string, maxBytes: number) {
  return [
    "--no-config",
    "--files-with-matches",
    "--null",
    "--no-ignore",
    "--hidden",
    "--text",
    "--encoding",
    "utf-8",
    "--max-filesize",
    String(maxBytes),
    "--glob",
    "!.git/",
    "-e",
    pattern,
    "-e",
    String.raw`\x{0}`,
    "-e",
    String.raw`\x{fffd}`,
    "--",
    dir,
  ];
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Run rg for `q` over the directory `dir` (absolute, real; `relative` is
 * its root-relative path, "" for the root): the files it proposes, or
 * undefined when its answer cannot be used (the scan then reads every
 * file). Rejects with the abort reason when `signal` aborts (rg killed).
 */
export async function rgCandidates(
  rg: RgOptions,
  dir: string,
  relative: string,
  pattern: string,
  maxBytes: number,
  signal: AbortSignal,
): Promise<RgAnswer | undefined> {
  signal.throwIfAborted();
  const started = Date.now();
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(rg.program, {
      args: rgArgs(pattern, dir, maxBytes),
      clearEnv: true,
      env: {},
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).spawn();
  } catch {
    // Not installed, not permitted (`--allow-run`), not executable.
    return undefined;
  }
  runs++;
  let killed = false;
  const kill = () => {
    if (killed) return;
    killed = true;
    try {
      child.kill("SIGKILL");
    } catch {
      // Already ended.
    }
  };
  const onAbort = () => kill();
  signal.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(kill, rg.timeoutMs ?? RG_TIMEOUT_MS);
  const cap = rg.outputCap ?? RG_OUTPUT_CAP;
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of child.stdout) {
      size += chunk.length;
      if (size > cap) {
        kill();
        break;
      }
      chunks.push(chunk);
    }
    const status = await child.status;
    signal.throwIfAborted();
    if (killed || status.signal !== null || status.code > 1) return undefined;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
    kill();
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  const prefix = `${dir}/`;
  const proposed: string[] = [];
  let from = 0;
  while (from < bytes.length) {
    const end = bytes.indexOf(0, from);
    // Output ends with a NUL after each path: one without is cut.
    if (end === -1) return undefined;
    let path: string;
    try {
      path = strictUtf8.decode(bytes.subarray(from, end));
    } catch {
      // A name that is not UTF-8: the walk never lists it.
      path = "";
    }
    from = end + 1;
    if (!path.startsWith(prefix)) continue;
    const rest = path.slice(prefix.length);
    proposed.push(relative === "" ? rest : `${relative}/${rest}`);
  }
  await rg.afterRun?.();
  // File times have whole seconds (and the kernel's clock is coarse): a
  // file changed at or after `started` has a ctime of at least this.
  return { proposed, before: Math.floor(started / 1000) * 1000 - 1000 };
}

/** Metadata a walk read of a file (see `Workspace.listedInfo`). */
export interface ListedInfo {
  /** A regular file. */
  isFile: boolean;
  /** Its size. */
  size: number;
  /** Last change of its inode. */
  ctime: Date | null;
  /** Last change of its content. */
  mtime: Date | null;
}

/**
 * Whether a file the walk listed, which rg did not propose, may be counted
 * as searched without a match: `info` (the walk's lstat; undefined for a
 * link or when it made none) shows a file within `maxBytes` not changed
 * since `before`.
 */
export function clearedByRg(
  info: ListedInfo | undefined,
  before: number,
  maxBytes: number,
): boolean {
  if (info === undefined || !info.isFile || info.size > maxBytes) return false;
  const changed = info.ctime ?? info.mtime;
  if (changed === null || changed.getTime() >= before) return false;
  cleared++;
  return true;
}

let cleared = 0;

/** Files {@linkcode clearedByRg} has cleared in this thread (tests). */
export function rgClearedCount(): number {
  return cleared;
}
