/**
 * One unit of a parallel `search_text` scan: a directory's subtree or a run
 * of files, searched in order by one thread (a scan worker, or the main
 * thread when no worker can), reported as records from which the caller
 * composes exactly what one sequential scan would have answered, counts
 * included, wherever the match cap falls.
 *
 * @module
 */

import {
  decodeText,
  isProbablyText,
  SNIFF_BYTES,
} from "../workspace/content.ts";
import type { ReadOptions, ReadResult } from "../workspace/file.ts";
import {
  type LookupOptions,
  Lookups,
  type WalkEntry,
  type WalkSkips,
  type Workspace,
  WorkspaceError,
} from "../workspace/workspace.ts";
import { globMatcher } from "./glob.ts";
import { literalPrefilter, requiredLiteral } from "./prefilter.ts";
import { clearedByRg, type RgAnswer } from "./rg_candidates.ts";

/** What {@linkcode readSearchable} reads through. */
export interface SearchableSource {
  /** See `Workspace.readFile`. */
  readFile(
    target: string | WalkEntry,
    options: ReadOptions & LookupOptions,
  ): Promise<ReadResult>;
}

/**
 * The bytes of `target` as a search reads them (bounded by `maxBytes`), or
 * undefined when a search skips the file: it vanished, changed type or
 * cannot be read, is larger than `maxBytes`, or looks binary.
 */
export async function readSearchable(
  ws: SearchableSource,
  target: string | WalkEntry,
  options: {
    maxBytes: number;
    signal?: AbortSignal;
    scratch: Uint8Array;
    /** Judges UTF-8 as `decodesAsUtf8` does (see `isProbablyText`). */
    validUtf8?: (bytes: Uint8Array) => boolean;
    /** The run of lookups a path belongs to (see `Workspace.open`). */
    lookups?: Lookups;
  },
): Promise<Uint8Array | undefined> {
  let read: ReadResult;
  try {
    read = await ws.readFile(target, {
      maxBytes: options.maxBytes,
      signal: options.signal,
      scratch: options.scratch,
      skipLarger: true,
      lookups: options.lookups,
    });
  } catch (error) {
    if (!(error instanceof WorkspaceError)) throw error;
    return undefined;
  }
  if (read.truncated) return undefined;
  const bytes = read.bytes;
  return isProbablyText(bytes.subarray(0, SNIFF_BYTES), options.validUtf8)
    ? bytes
    : undefined;
}

/** What a scan searches for, and its caps (the same for every unit). */
export interface ScanQuery {
  /** The query text (a literal, or the client's regex). */
  query: string;
  /** The prepared regex (`prepareRegex`), for a regex search. */
  regex?: { source: string; flags: string };
  /** Match case exactly. */
  caseSensitive: boolean;
  /** The glob files must match, and the directory it is relative to. */
  glob?: { pattern: string; base: string };
  /** Files over this many bytes are skipped. */
  maxReadBytes: number;
  /** Most matches the whole search returns. */
  limit: number;
  /** Longest line text returned, in characters. */
  maxLineChars: number;
}

/**
 * A unit: a directory's subtree (walked) or files (looked up by path). A
 * subtree may carry what rg proposed in it (see `rg_candidates.ts`): then
 * the files it can clear are counted without being read.
 */
export type ScanUnit =
  | { kind: "dir"; path: string; rg?: RgAnswer }
  | { kind: "files"; paths: string[] };

/** One matching line: 1-based line number and its (clipped) text. */
export type LineHit = [line: number, text: string];

/**
 * A file of the unit with matches: its hits, the unit's counts after it,
 * and the unit's walk skips when the walk yielded the next file (`next`,
 * as [unreadable, vanished, badNames, tooDeep]; absent when it was the
 * unit's last file). `index` is the file's position in the unit.
 */
export interface HitRecord {
  index: number;
  path: string;
  hits: LineHit[];
  searched: number;
  skipped: number;
  next?: number[];
}

/** A batch of a unit's results, in order. */
export interface UnitChunk {
  /** Files of the unit looked at so far (for progress). */
  examined: number;
  /** The unit's walk skips when its first file was yielded, once known. */
  first?: number[];
  /** Files with matches since the previous chunk. */
  records: HitRecord[];
  /** The unit's totals, on its last chunk. */
  done?: { searched: number; skipped: number; skips: number[] };
}

/** Largest file read into a scan's reused buffer. */
const SCRATCH_BYTES = 1 << 20;

/** Bytes of the buffer {@linkcode scanUnit} reads files of `q` into. */
export function scanScratchBytes(q: ScanQuery): number {
  return Math.min(q.maxReadBytes, SCRATCH_BYTES) + 1;
}

// `node:buffer`'s UTF-8 check: it answers as a fatal TextDecoder does,
// without making a string of every file's first 8 KiB. Loaded on a
// unit's first use (the workspace has loaded the Node layer by then).
let utf8Check: Promise<(bytes: Uint8Array) => boolean> | undefined;

function validUtf8(): Promise<(bytes: Uint8Array) => boolean> {
  return utf8Check ??= import("node:buffer").then((m) => m.isUtf8);
}

// A unit reports at least this often (ms), so progress, the cap and the
// regex budget are seen while a large subtree is scanned.
const REPORT_EVERY_MS = 25;

function clip(line: string, max: number): string {
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** Walk skips as an array, [unreadable, vanished, badNames, tooDeep]. */
export function skipsArray(skips: WalkSkips): number[] {
  return [skips.unreadable, skips.vanished, skips.badNames, skips.tooDeep];
}

/**
 * Lines of `text` containing `query`, at most `limit`, each as
 * [line number, line without its "\r"]: what `search_text` answers for a
 * literal. Between hits, and every 4,096 lines of a long run without one,
 * it yields `undefined`: a point where a caller on the main thread may
 * pause (see {@linkcode literalLineHits} for one that never does).
 */
export function* literalLineScan(
  text: string,
  query: string,
  caseSensitive: boolean,
  limit: number,
): Generator<[number, string] | undefined> {
  const haystack = caseSensitive ? text : text.toLowerCase();
  const needle = caseSensitive ? query : query.toLowerCase();
  // Lower-casing can change lengths for a few characters, so positions are
  // mapped through line numbers only when the lengths still agree.
  const sameShape = haystack.length === text.length;
  const lines = sameShape ? undefined : text.split("\n");
  let from = 0;
  let lineNumber = 1;
  let lineStart = 0;
  let found = 0;
  while (found < limit) {
    const at = haystack.indexOf(needle, from);
    if (at === -1) break;
    // Advance the line counter to the match.
    let newline: number;
    while (
      (newline = haystack.indexOf("\n", lineStart)) !== -1 && newline < at
    ) {
      lineNumber++;
      lineStart = newline + 1;
      if ((lineNumber & 4095) === 0) yield undefined;
    }
    const end = haystack.indexOf("\n", lineStart);
    const lineEnd = end === -1 ? haystack.length : end;
    const raw = lines === undefined
      ? text.slice(lineStart, lineEnd)
      : lines[lineNumber - 1] ?? "";
    found++;
    yield [lineNumber, raw.endsWith("\r") ? raw.slice(0, -1) : raw];
    from = lineEnd + 1;
    if (end === -1) break;
    yield undefined;
  }
}

/**
 * {@linkcode literalLineScan}'s hits, all at once, without pauses (a unit
 * runs off the main thread).
 */
export function literalLineHits(
  text: string,
  query: string,
  caseSensitive: boolean,
  limit: number,
): [number, string][] {
  const hits: [number, string][] = [];
  for (const hit of literalLineScan(text, query, caseSensitive, limit)) {
    if (hit !== undefined) hits.push(hit);
  }
  return hits;
}

/**
 * Lines of `text` that `re` matches, at most `limit`, as the regex worker
 * answers them: split on "\n", a final empty line dropped, "\r" stripped.
 * With `literal`, a string every match contains (`requiredLiteral`), only
 * the lines holding it are tested: the same lines match, and a file is
 * not split into lines that mostly cannot.
 */
export function regexLineHits(
  text: string,
  re: RegExp,
  limit: number,
  maxChars: number,
  literal?: string,
): LineHit[] {
  const hits: LineHit[] = [];
  if (
    literal !== undefined && literal !== "" && !literal.includes("\n") &&
    !literal.includes("\r")
  ) {
    let lineNumber = 1;
    let lineStart = 0;
    let from = 0;
    while (hits.length < limit) {
      const at = text.indexOf(literal, from);
      if (at === -1) break;
      // Count the lines up to the one holding the literal.
      let newline: number;
      while ((newline = text.indexOf("\n", lineStart)) !== -1 && newline < at) {
        lineNumber++;
        lineStart = newline + 1;
      }
      const end = newline;
      let line = text.slice(lineStart, end === -1 ? text.length : end);
      if (line.endsWith("\r")) line = line.slice(0, -1);
      if (re.test(line)) hits.push([lineNumber, clip(line, maxChars)]);
      if (end === -1) break;
      from = end + 1;
    }
    return hits;
  }
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i];
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (re.test(line)) {
      hits.push([i + 1, clip(line, maxChars)]);
      if (hits.length >= limit) break;
    }
  }
  return hits;
}

/** Thrown inside a unit when its search was stopped (cap, cancel). */
export class UnitStopped extends Error {
  constructor() {
    super("the scan was stopped");
  }
}

/**
 * Search one unit of `ws` for `q`, in the order a sequential scan meets
 * its files, handing results to `emit` in chunks. `stopped` is polled
 * between files (and the unit ends early, throwing
 * {@linkcode UnitStopped}, when it answers true). A unit that alone fills
 * the cap stops once it knows its next file's walk skips. `pause`, when
 * given, is awaited at each report (the main thread gives the event loop
 * a turn there). `matching[0]`, when given, holds the time (`Date.now()`)
 * the regex match of the current file started, 0 between files: a watcher
 * on another thread can tell a match that does not end. `scratch` (of
 * {@linkcode scanScratchBytes} for the same caps), when given, is read into
 * instead of a new buffer: a thread that runs one unit at a time keeps one.
 */
export async function scanUnit(
  ws: Workspace,
  unit: ScanUnit,
  q: ScanQuery,
  stopped: () => boolean,
  emit: (chunk: UnitChunk) => void,
  pause?: () => Promise<void>,
  matching?: Float64Array,
  scratch: Uint8Array = new Uint8Array(scanScratchBytes(q)),
): Promise<void> {
  const isUtf8 = await validUtf8();
  // Files whose bytes cannot hold the query (or, for a case-sensitive
  // regex, a run of characters every match holds) are never decoded.
  let mayContain: ((bytes: Uint8Array) => boolean) | undefined;
  // For a regex: the text every match holds, when known.
  let literal: string | undefined;
  if (q.regex === undefined) {
    mayContain = literalPrefilter(q.query, q.caseSensitive);
  } else if (q.caseSensitive) {
    literal = requiredLiteral(q.regex.source);
    if (literal !== undefined) mayContain = literalPrefilter(literal, true);
  }
  const re = q.regex === undefined
    ? undefined
    : new RegExp(q.regex.source, q.regex.flags);
  const inGlob = q.glob === undefined
    ? () => true
    : globMatcher(q.glob.pattern, q.glob.base);
  const skips = { unreadable: 0, vanished: 0, badNames: 0, tooDeep: 0 };
  let searched = 0;
  let skipped = 0;
  let found = 0;
  let examined = 0;
  let first: number[] | undefined;
  let records: HitRecord[] = [];
  // A record waits for the walk to reach the next file (its `next`).
  let waiting: HitRecord | undefined;
  let reportAt = performance.now() + REPORT_EVERY_MS;
  const flush = (done: boolean) => {
    if (waiting !== undefined && done) {
      records.push(waiting);
      waiting = undefined;
    }
    emit({
      examined,
      first,
      records,
      done: done ? { searched, skipped, skips: skipsArray(skips) } : undefined,
    });
    records = [];
    reportAt = performance.now() + REPORT_EVERY_MS;
  };

  // The files of the unit, in order, as targets `readFile` takes.
  async function* files(): AsyncGenerator<string | WalkEntry> {
    if (unit.kind === "files") {
      yield* unit.paths;
      return;
    }
    try {
      for await (
        const entry of ws.walk({ path: unit.path, skips, opens: true })
      ) {
        if (stopped()) throw new UnitStopped();
        if (!entry.isFile || !inGlob(entry.relative)) continue;
        yield entry;
      }
    } catch (error) {
      if (!(error instanceof WorkspaceError)) throw error;
      // The subtree's own directory could not be opened: a sequential
      // walk counts it where it fails to descend.
      if (error.code === "unreadable") skips.unreadable++;
      else skips.vanished++;
    }
  }

  // With rg's answer: the files rg proposed (the others it may clear).
  const rg = unit.kind === "dir" ? unit.rg : undefined;
  const proposed = rg === undefined ? undefined : new Set(rg.proposed);

  // Files of a `files` unit are looked up by path: their directories once.
  const lookups = unit.kind === "files" ? new Lookups() : undefined;
  if (unit.kind === "files") lookups?.expect(unit.paths);
  let index = -1;
  for await (const target of files()) {
    index++;
    const at = skipsArray(skips);
    first ??= at;
    if (waiting !== undefined) {
      waiting.next = at;
      records.push(waiting);
      waiting = undefined;
      // This unit alone holds the cap's worth: nothing after it counts.
      if (found >= q.limit) break;
    }
    if (stopped()) throw new UnitStopped();
    if (performance.now() >= reportAt) {
      flush(false);
      if (pause !== undefined) await pause();
      if (stopped()) throw new UnitStopped();
    }
    examined++;
    const path = typeof target === "string" ? target : target.relative;
    if (
      rg !== undefined && typeof target !== "string" &&
      !proposed?.has(path) && !ws.isLink(target) &&
      clearedByRg(ws.listedInfo(target), rg.before, q.maxReadBytes)
    ) {
      // Text without a match, as reading it would find.
      searched++;
      continue;
    }
    const bytes = await readSearchable(ws, target, {
      maxBytes: q.maxReadBytes,
      scratch,
      validUtf8: isUtf8,
      lookups,
    });
    if (bytes === undefined) {
      skipped++;
      continue;
    }
    searched++;
    if (mayContain !== undefined && !mayContain(bytes)) {
      continue;
    }
    const text = decodeText(bytes);
    let hits: LineHit[];
    if (re !== undefined) {
      if (matching !== undefined) matching[0] = Date.now();
      hits = regexLineHits(
        text,
        re,
        q.limit - found,
        q.maxLineChars,
        literal,
      );
      if (matching !== undefined) matching[0] = 0;
    } else {
      hits = literalLineHits(text, q.query, q.caseSensitive, q.limit - found)
        .map(([line, lineText]) => [line, clip(lineText, q.maxLineChars)]);
    }
    if (hits.length > 0) {
      found += hits.length;
      waiting = { index, path, hits, searched, skipped };
    }
  }
  flush(true);
}
