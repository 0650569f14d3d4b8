/**
 * `find_files` and `search_text` answered from the workspace's index
 * (`workspace/text_index.ts`, the `--index` flag) instead of a walk, with
 * the very answers a scan gives: the same files in the same order, the
 * same matching code, caps, counts, notes and skipped entries.
 *
 * A search reads only the files that hold every trigram of the query's
 * required text (the literal; a regex's required runs of characters); the
 * others cannot match, and what a scan would count of them (searched or
 * skipped) is known from the index. When the index cannot answer exactly
 * (not built, or behind a change; a start reached through a link; a
 * query without three known characters in a row; a file that changed
 * under the search), these functions answer undefined and the tool scans.
 *
 * @module
 */

import { toolError } from "../mcp/content.ts";
import type { ToolResult } from "../mcp/tool.ts";
import { decodeText } from "../workspace/content.ts";
import {
  FILE_SKIPPED,
  type IndexView,
  type TextIndex,
} from "../workspace/text_index.ts";
import { trigramsOf } from "../workspace/trigrams.ts";
import { Lookups, type ResolvedPath } from "../workspace/workspace.ts";
import type { WorkspaceView } from "../workspace/roots.ts";
import { displayPath, Pacer, skippedNote } from "./common.ts";
import { skipsBefore, viewFor } from "./index_view.ts";
import type { SearchRegex } from "./regex.ts";
import { findAnswer } from "./find_answer.ts";
import { readSearchable } from "./scan_unit.ts";
import type { ScanOutcome } from "./scan_pool.ts";
import { type Match, searchAnswer } from "./search_answer.ts";
import { requiredRuns } from "./regex_literals.ts";
import {
  matchLines,
  RegexBudget,
  type RegexHit,
  RegexTimeoutError,
  regexTimeoutMessage,
} from "./regex_worker.ts";

/**
 * The parts of the scanning `search_text` an indexed answer must share
 * with it, handed over by that module so both match and cut alike.
 */
export interface ScanParts {
  /** Lines of a text holding a literal (the scan's own function). */
  literalMatches(
    text: string,
    query: string,
    caseSensitive: boolean,
    limit: number,
    pacer: Pacer,
  ): Promise<[number, string][]>;
  /** A line as a match shows it. */
  clip(line: string): string;
  /** The regex matching budget, ms. */
  regexBudgetMs: number;
  /** Longest line text per match. */
  maxLineChars: number;
  /** Largest file read into the reused buffer. */
  scratchBytes: number;
  /**
   * The scan workers, when they can read the candidates (see
   * {@linkcode WORKER_CANDIDATES}): whether they are running now, and a
   * search of given files on them, as a sequential scan of those files
   * would answer.
   */
  workers?: {
    warm(): boolean;
    search(files: readonly string[]): Promise<ScanOutcome>;
  };
}

/**
 * Files an indexed search expects to read (its candidates, or its cap when
 * that is fewer) from which it has the scan workers read and match them,
 * two at a time: while they run (`warm`), and when they must first start
 * (`cold`, ~0.1 s). Fewer are read here, one after another. A search whose
 * cap is below its candidates goes to them only while they run: they take
 * the candidates in order, in runs, and stop once the cap is filled,
 * reading a few runs past it at most.
 */
export const WORKER_CANDIDATES = { warm: 64, cold: 1024, capped: false };

/**
 * Set {@linkcode WORKER_CANDIDATES} (tests); `capped`: a search whose cap
 * is below its candidates goes to the workers even when they must start.
 */
export function setWorkerCandidates(
  warm: number,
  cold: number,
  capped = false,
): void {
  WORKER_CANDIDATES.warm = warm;
  WORKER_CANDIDATES.cold = cold;
  WORKER_CANDIDATES.capped = capped;
}

let workerAnswers = 0;

/** How many indexed searches the scan workers have answered (tests). */
export function workerSearches(): number {
  return workerAnswers;
}

/** One `search_text` call, as the tool has checked it. */
export interface SearchCall {
  query: string;
  regex: SearchRegex | undefined;
  caseSensitive: boolean;
  start: ResolvedPath;
  inGlob: (relative: string) => boolean;
  limit: number;
  maxReadBytes: number;
  signal: AbortSignal;
  /** Progress: files looked at so far. */
  reportProgress(examined: number): void;
}

/** One `find_files` call, as the tool has checked it. */
export interface FindCall {
  pattern: string;
  start: ResolvedPath;
  matches: (relative: string) => boolean;
  limit: number;
  signal: AbortSignal;
}

/** Thrown inside a search when a file changed since it was indexed. */
class Stale extends Error {}

/**
 * The longest run of characters every path a glob matches holds (a quick
 * test before the matcher), or "" when none is known: literal text inside
 * one segment, outside classes, escapes and `{a,b}` alternatives.
 */
export function globLiteral(pattern: string): string {
  // Classes and escapes cut runs; so may braces anywhere.
  if (/[{[\\]/.test(pattern)) return "";
  let best = "";
  for (const segment of pattern.split("/")) {
    // "." and ".." are steps, not text of the path.
    if (segment === "." || segment === "..") continue;
    for (const run of segment.split(/[*?]/)) {
      if (run.length > best.length) best = run;
    }
  }
  return best;
}

/** `find_files` from the index, or undefined when it cannot answer. */
export async function indexedFindFiles(
  index: TextIndex,
  call: FindCall,
): Promise<ToolResult | undefined> {
  const found = await viewFor(index, call.start);
  if (found === undefined) return undefined;
  const { view, from, to } = found;
  const { limit, matches } = call;
  const paths: string[] = [];
  let truncated = false;
  let stop = view.order.length;
  const pacer = new Pacer(call.signal);
  const literal = globLiteral(call.pattern);
  for (let at = from; at < to; at++) {
    if ((at & 1023) === 0) await pacer.tick();
    const relative = view.relative[view.order[at]];
    if (!relative.includes(literal) || !matches(relative)) continue;
    if (paths.length === limit) {
      truncated = true;
      stop = at;
      break;
    }
    paths.push(displayPath(relative));
  }
  return findAnswer({
    paths,
    limit,
    truncated,
    // Skips are known only for the whole walk, or (none) below it.
    walkNote: skippedNote(skipsBefore(view, stop)),
  });
}

/** The trigrams a matching file must hold; empty when none are known. */
function requiredTrigrams(call: SearchCall): number[] {
  let runs: string[] | undefined;
  if (call.regex !== undefined) runs = requiredRuns(call.query);
  else if (call.caseSensitive) runs = [call.query];
  else {
    // Lower-casing "İ" gives "i" and U+0307: the dot is in no index.
    runs = call.query.toLowerCase().split("\u0307");
  }
  if (runs === undefined) return [];
  const all = new Set<number>();
  for (const run of runs) for (const t of trigramsOf(run)) all.add(t);
  return [...all];
}

/**
 * For a regex call: the lines of a text (line number, text with its "\r")
 * that hold the regex's longest required run, as the regex itself would
 * see it (with the `i` flag when the search ignores case: the rewriting
 * in `regex.ts` gives the regex exactly that flag's meaning); undefined
 * when the regex has no run.
 */
function linesHolding(
  call: SearchCall,
): ((text: string) => [number, string][]) | undefined {
  const runs = requiredRuns(call.query);
  if (runs === undefined || runs.length === 0) return undefined;
  const run = runs.reduce((a, b) => b.length > a.length ? b : a);
  const finder = new RegExp(
    run.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&"),
    call.caseSensitive ? "g" : "gi",
  );
  return (text) => {
    const out: [number, string][] = [];
    let line = 1;
    let lineStart = 0;
    finder.lastIndex = 0;
    for (
      let found = finder.exec(text);
      found !== null;
      found = finder.exec(text)
    ) {
      const at = found.index;
      // Count the lines up to the match.
      let newline = text.indexOf("\n", lineStart);
      while (newline !== -1 && newline < at) {
        line++;
        lineStart = newline + 1;
        newline = text.indexOf("\n", lineStart);
      }
      const end = newline === -1 ? text.length : newline;
      out.push([line, text.slice(lineStart, end)]);
      if (newline === -1) break;
      finder.lastIndex = end + 1;
      line++;
      lineStart = end + 1;
    }
    return out;
  };
}

/** `search_text` from the index, or undefined when it cannot answer. */
export async function indexedSearchText(
  index: TextIndex,
  ws: WorkspaceView,
  call: SearchCall,
  parts: ScanParts,
): Promise<ToolResult | undefined> {
  const trigrams = requiredTrigrams(call);
  if (trigrams.length === 0) return undefined;
  const found = await viewFor(index, call.start);
  if (found === undefined) return undefined;
  const { view, from, to } = found;
  const marks = view.matching(trigrams);
  try {
    // The files to read, in order: for the workers, or read ahead here.
    const positions = candidatesIn(view, from, to, marks, call);
    return await onWorkers(view, from, to, positions, call, parts) ??
      await search(view, from, to, marks, positions, ws, call, parts);
  } catch (error) {
    if (error instanceof Stale) return undefined;
    throw error;
  }
}

// The positions (in the view's order, from `from` to `to`) of the files
// to read: those `marks` holds, not skipped, in the call's glob.
function candidatesIn(
  view: IndexView,
  from: number,
  to: number,
  marks: Uint8Array,
  call: SearchCall,
): number[] {
  const positions: number[] = [];
  for (let at = from; at < to; at++) {
    const id = view.order[at];
    if (
      marks[id] === 1 && view.kinds[id] !== FILE_SKIPPED &&
      call.inGlob(view.relative[id])
    ) positions.push(at);
  }
  return positions;
}

// The search with the candidates read and matched by the scan workers,
// when there are enough of them (see WORKER_CANDIDATES); undefined when
// not. Their answer is a sequential scan's of the candidates; the files
// between are counted from the index, as `search` counts them.
async function onWorkers(
  view: IndexView,
  from: number,
  to: number,
  positions: readonly number[],
  call: SearchCall,
  parts: ScanParts,
): Promise<ToolResult | undefined> {
  const workers = parts.workers;
  if (workers === undefined) return undefined;
  const warm = workers.warm();
  const least = warm ? WORKER_CANDIDATES.warm : WORKER_CANDIDATES.cold;
  const capped = call.limit < positions.length;
  // A cap below the candidates is mostly filled by the first few of them,
  // read here sooner than cold workers start.
  if (
    Math.min(positions.length, call.limit) < least ||
    (capped && !warm && !WORKER_CANDIDATES.capped)
  ) {
    return undefined;
  }
  call.signal.throwIfAborted();
  let outcome: ScanOutcome;
  try {
    outcome = await workers.search(
      positions.map((at) => view.relative[view.order[at]]),
    );
  } catch (error) {
    if (error instanceof RegexTimeoutError) {
      return toolError(regexTimeoutMessage(call.query, parts.regexBudgetMs));
    }
    throw error;
  }
  // A candidate the index holds as text that a scan now skips changed.
  if (outcome.skipped > 0) throw new Stale();
  workerAnswers++;
  const { limit } = call;
  const matches: Match[] = outcome.matches;
  // Where the search ends: after the file that filled the cap, else at
  // the end; counted from the index up to there.
  let last = to - 1;
  let stop = view.order.length;
  if (matches.length >= limit) {
    const path = matches[limit - 1].path;
    last = positions.find((at) => view.relative[view.order[at]] === path) ??
      to - 1;
    stop = nextInGlob(view, call, last, to);
  }
  let searched = 0;
  let skipped = 0;
  for (let at = from; at <= last; at++) {
    const id = view.order[at];
    if (!call.inGlob(view.relative[id])) continue;
    if (view.kinds[id] === FILE_SKIPPED) skipped++;
    else searched++;
  }
  return answerOf(view, call, matches, searched, skipped, stop);
}

// Where a search that filled its cap in the file at `filled` stops: the
// next file in its glob (before `to`), else the end of the order.
function nextInGlob(
  view: IndexView,
  call: SearchCall,
  filled: number,
  to: number,
): number {
  for (let at = filled + 1; at < to; at++) {
    if (call.inGlob(view.relative[view.order[at]])) return at;
  }
  return view.order.length;
}

// The answer, with the walk's skips up to `stop` as the scan notes them.
function answerOf(
  view: IndexView,
  call: SearchCall,
  matches: Match[],
  searched: number,
  skipped: number,
  stop: number,
): ToolResult {
  return searchAnswer({
    matches,
    limit: call.limit,
    searched,
    skipped,
    maxReadBytes: call.maxReadBytes,
    walkNote: skippedNote(skipsBefore(view, stop)),
  });
}

// A regex search's candidates matched in one round trip to the worker, at
// most (files, and characters of their lines).
const BATCH_FILES = 256;
const BATCH_CHARS = 1 << 20;

// A candidate waiting in a regex search's batch: its lines (each with its
// line number, unless it is the whole text), where they start among the
// batch's, and the search's counts right after it.
interface Batched {
  relative: string;
  lines: { text: string; line?: number }[];
  first: number;
  at: number;
  examined: number;
  searched: number;
  skipped: number;
}

async function search(
  view: IndexView,
  from: number,
  to: number,
  marks: Uint8Array,
  positions: readonly number[],
  ws: WorkspaceView,
  call: SearchCall,
  parts: ScanParts,
): Promise<ToolResult> {
  const { query, regex, caseSensitive, limit } = call;
  let examined = 0;
  const pacer = new Pacer(call.signal, () => call.reportProgress(examined));
  const scratch = new Uint8Array(
    Math.min(call.maxReadBytes, parts.scratchBytes) + 1,
  );
  // The candidates' directories, looked up once for them all, and their
  // metadata read ahead a batch at a time (see Lookups.expect).
  const lookups = new Lookups();
  lookups.expect(positions.map((at) => view.relative[view.order[at]]));
  // The text of a file the index says can match, read as the scan reads.
  const textOf = async (relative: string, length: number) => {
    // The index holds it as text: a file the scan would skip now changed.
    const bytes = await readSearchable(ws, relative, {
      maxBytes: call.maxReadBytes,
      signal: call.signal,
      scratch,
      lookups,
    });
    if (bytes === undefined) throw new Stale();
    const text = decodeText(bytes);
    if (text.length !== length) throw new Stale();
    return text;
  };

  const matches: Match[] = [];
  let searched = 0;
  let skipped = 0;
  let stop = view.order.length;
  // A regex is matched on each candidate's lines that hold its longest
  // required run (the worker matches line by line), or on the whole text
  // when there is no run; as in the scan, the budget bounds each file's
  // match, and the search stops after the file that fills the cap.
  // Candidates go to the worker in batches (a round trip each would cost
  // more than most files' matching); the counts are kept as they stood
  // after each batched file, so that a cap filled inside a batch answers
  // exactly as a file-by-file search stopping there. (Files read past the
  // cap are read for nothing; one of them changed since it was indexed
  // sends the search to the scan, whose answer is the same.)
  const lineFinder = regex === undefined ? undefined : linesHolding(call);
  const batch: Batched[] = [];
  let batchLines = 0;
  let batchChars = 0;
  // Match the batch; true when the cap is filled, with the counts and the
  // stop put back where a file-by-file search would have left them.
  const flush = async (): Promise<boolean> => {
    if (regex === undefined || batch.length === 0) return false;
    const match = (texts: string[], wanted: number, budget: RegexBudget) =>
      matchLines(
        regex.source,
        regex.flags,
        texts,
        wanted,
        budget,
        call.signal,
        parts.maxLineChars,
      );
    const files = batch.splice(0);
    batchLines = 0;
    batchChars = 0;
    const texts: string[] = [];
    const owners: number[] = [];
    for (let f = 0; f < files.length; f++) {
      for (const line of files[f].lines) {
        texts.push(line.text);
        owners.push(f);
      }
    }
    let hits: RegexHit[];
    try {
      hits = await match(
        texts,
        limit - matches.length,
        // One file's budget for the batch: one over it is matched again
        // file by file, so a file over its own budget fails as it would
        // alone, and none under it does.
        new RegexBudget(parts.regexBudgetMs),
      );
    } catch (error) {
      if (!(error instanceof RegexTimeoutError) || files.length === 1) {
        throw error;
      }
      // Over the batch's budget: file by file, each with its own budget,
      // tells whether one file's match overran.
      hits = [];
      for (const file of files) {
        const own = await match(
          file.lines.map((line) => line.text),
          limit - matches.length - hits.length,
          new RegexBudget(parts.regexBudgetMs),
        );
        for (const [i, line, text] of own) {
          hits.push([file.first + i, line, text]);
        }
        if (matches.length + hits.length >= limit) break;
      }
    }
    let last = -1;
    for (const [i, line, text] of hits) {
      const file = files[owners[i]];
      const lineOf = file.lines[i - file.first].line;
      matches.push({ path: file.relative, line: lineOf ?? line, text });
      last = owners[i];
    }
    if (matches.length < limit) return false;
    // Filled in the batch's file `last`: what came after it was not
    // searched, and the search stops at the next file in the glob.
    const filled = files[last];
    examined = filled.examined;
    searched = filled.searched;
    skipped = filled.skipped;
    stop = nextInGlob(view, call, filled.at, to);
    return true;
  };
  try {
    let capped = false;
    for (let at = from; at < to; at++) {
      const id = view.order[at];
      const relative = view.relative[id];
      if (!call.inGlob(relative)) continue;
      examined++;
      if ((examined & 255) === 0 || marks[id] === 1) await pacer.tick();
      if (matches.length >= limit) {
        stop = at;
        capped = true;
        break;
      }
      if (view.kinds[id] === FILE_SKIPPED) {
        skipped++;
        continue;
      }
      searched++;
      const length = view.lengths[id];
      if (regex !== undefined) {
        if (marks[id] !== 1) continue;
        const text = await textOf(relative, length);
        const lines: { text: string; line?: number }[] =
          lineFinder === undefined
            ? [{ text }]
            : lineFinder(text).map(([line, lineText]) => ({
              text: lineText,
              line,
            }));
        if (lines.length === 0) continue;
        batch.push({
          relative,
          lines,
          first: batchLines,
          at,
          examined,
          searched,
          skipped,
        });
        batchLines += lines.length;
        for (const line of lines) batchChars += line.text.length;
        // At most as many files as matches are still wanted (most
        // candidates hold one), so few are read past the cap.
        if (
          (batch.length >= Math.min(BATCH_FILES, limit - matches.length) ||
            batchChars >= BATCH_CHARS) &&
          await flush()
        ) {
          capped = true;
          break;
        }
      } else if (marks[id] === 1) {
        const hits = await parts.literalMatches(
          await textOf(relative, length),
          query,
          caseSensitive,
          limit - matches.length,
          pacer,
        );
        for (const [line, lineText] of hits) {
          matches.push({ path: relative, line, text: parts.clip(lineText) });
        }
      }
    }
    if (!capped) await flush();
  } catch (error) {
    if (error instanceof RegexTimeoutError) {
      return toolError(regexTimeoutMessage(query, parts.regexBudgetMs));
    }
    throw error;
  }
  return answerOf(view, call, matches, searched, skipped, stop);
}
