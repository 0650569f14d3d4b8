/**
 * `search_text` over a directory, scanned by worker threads.
 *
 * A scan spends its time in file operations (under `--allow-read` each open
 * pays the runtime's permission check) and in matching, on one core. Here
 * the directory is walked on the main thread down to
 * {@linkcode SPLIT_DEPTH} and its entries become units: each directory at
 * that depth a unit (its whole subtree), each run of files above it one
 * more, handed out as the walk makes them. {@linkcode SCAN_WORKERS} workers take the units in order, each
 * walking, reading (synchronously: a worker's blocking call blocks that
 * worker alone), testing the raw bytes and matching, and post back only
 * the files with matches, in chunks. The main thread composes the chunks
 * in unit order, so the answer is exactly that of one sequential walk:
 * the same matches in the same order, and the same counts wherever the
 * cap falls (see {@linkcode HitRecord}).
 *
 * - The cap and a cancel set a flag the workers share and read between
 *   files; the call answers at once without waiting for them.
 * - Workers start on the first search (never at start-up; a large index
 *   starts them once it is ready) and stay warm.
 * - A worker that fails (cannot start, crashes, throws) never fails the
 *   call: its unit is scanned again on the main thread, and a worker that
 *   could not start at all is not tried again.
 * - A regex is refused unless it can run in linear time, and V8 falls
 *   back to its linear engine when one backtracks, so matching a file
 *   takes time in proportion to it: the budget bounds each file's match,
 *   not the whole tree's (a large tree never fails a linear regex). A
 *   match past it is watched from here, the call fails as timed out and
 *   the worker is terminated.
 * - A case-sensitive regex with a run of plain characters every match
 *   must hold (`requiredLiteral`) tests each file's bytes for it first.
 *
 * @module
 */

import { trackLoading } from "../mcp/loading.ts";
import { yieldToEventLoop } from "../workspace/secure_fs.ts";
import {
  type WalkSkips,
  walkSkips,
  type Workspace,
} from "../workspace/workspace.ts";
import { globMatcher } from "./glob.ts";
import { RegexTimeoutError } from "./regex_worker.ts";
import {
  type RgAnswer,
  rgCandidates,
  type RgOptions,
  rgPattern,
} from "./rg_candidates.ts";
import {
  type HitRecord,
  type ScanQuery,
  type ScanUnit,
  scanUnit,
  skipsArray,
  type UnitChunk,
  UnitStopped,
} from "./scan_unit.ts";
import { moduleFileBeside } from "../workspace/module_file.ts";

// An idle worker is stopped after this long (ms): warm for the next
// search, but a live worker would keep a process that is done from ending.
// While something holds the workers warm (see keepScanWorkersWarm), the
// timer only looks again after as long.
const IDLE_MS = 3000;

/**
 * Depth of the directories that become units of their own (their whole
 * subtree); the walk on the main thread descends the ones above. Units
 * from the second level keep two workers busy to the end (the kernel's
 * largest is 7% of it, against 40% for its largest top-level directory)
 * and spread the first part of the tree, where a capped search ends, over
 * both; deeper levels would leave too many files to be read by path.
 */
export const SPLIT_DEPTH = 2;

/** Worker threads scans use by default. */
export const SCAN_WORKERS = 2;

let poolSize = SCAN_WORKERS;

/**
 * Set how many worker threads scans may use from now on (at least 1);
 * workers beyond it are stopped once idle. For tests and benches.
 */
export function setScanWorkers(count: number): void {
  poolSize = Math.max(1, Math.floor(count));
  for (const slot of slots.filter((s) => s.job === undefined)) {
    if (slots.length <= poolSize) break;
    slots.splice(slots.indexOf(slot), 1);
    clearTimeout(slot.idle);
    slot.worker.terminate();
  }
}

/** Which workspace a job reads: what `Workspace.open` needs to open it. */
export interface ScanConfig {
  /** Real absolute path of the root. */
  root: string;
  /** See `WorkspaceOptions.includeIgnored`. */
  includeIgnored: boolean;
  /** See `WorkspaceOptions.descriptorPaths`. */
  descriptorPaths: boolean;
}

/** A job sent to a scan worker. */
export interface ScanJob {
  /** Its id, echoed in every reply. */
  id: number;
  /** The workspace. */
  config: ScanConfig;
  /** What to scan. */
  unit: ScanUnit;
  /** What to search for. */
  query: ScanQuery;
  /** Shared flag: non-zero stops the job between files. */
  stop: Int32Array;
  /** Shared with the worker: when its current regex match started, or 0. */
  matching: Float64Array;
}

/** A scan worker's reply to a job (id -1: the worker has started). */
export type ScanReply =
  | { id: number; chunk: UnitChunk }
  | { id: number; stopped: true }
  | { id: number; error: string }
  | { id: -1; ready: true };

/** One match of a search. */
export interface ScanMatch {
  /** Path relative to the root. */
  path: string;
  /** 1-based line number. */
  line: number;
  /** The line's text, clipped. */
  text: string;
}

/** What a scan found, and the counts a sequential scan would give. */
export interface ScanOutcome {
  /** Matches in walk order, at most the query's limit. */
  matches: ScanMatch[];
  /** Files searched (text, not too large). */
  searched: number;
  /** Files skipped (binary, too large, unreadable). */
  skipped: number;
  /** What the walk left out. */
  skips: WalkSkips;
}

/** Options of {@linkcode scanSearch}. */
export interface ScanOptions {
  /** Stops the scan: the call rejects with the reason at once. */
  signal: AbortSignal;
  /** Called as files are looked at, with the count so far. */
  progress?: (examined: number) => void;
  /**
   * Longest a regex may take over one file's lines, in ms: a worker
   * matching longer is stopped and the call fails as timed out.
   */
  budgetMs: number;
  /** Scan on the main thread alone, without workers. */
  mainThread?: boolean;
  /**
   * Let ripgrep propose the files to read (`--rg`); see
   * `rg_candidates.ts`. The answer is the same with it or without.
   */
  rg?: RgOptions;
  /**
   * Search these files (root-relative paths, in this order; the query's
   * glob is not applied) instead of a walk of `path`: the answer is that
   * of a sequential search of them, in runs of 8 files, then 16, then
   * {@linkcode FILES_PER_UNIT}.
   * For the index's candidates.
   */
  files?: readonly string[];
}

/** Files of a `files` option that make one unit of work. */
export const FILES_PER_UNIT = 32;

// The first unit of a `files` search; each next one twice the last, up to
// FILES_PER_UNIT: a cap filled in the first few files (most files hold
// several matches of a common word) is known after a short run, not after
// reading 32 files on each worker.
const FIRST_FILES_PER_UNIT = 8;

/**
 * What rg proposes for a scan of `path`, split by the subtree units the
 * scan will make (keyed by their root-relative path); undefined when rg is
 * not to be used or its answer cannot be.
 */
async function rgUnits(
  ws: Workspace,
  path: string,
  q: ScanQuery,
  rg: RgOptions,
  signal: AbortSignal,
): Promise<((unit: string) => RgAnswer) | undefined> {
  const pattern = rgPattern({
    query: q.query,
    regex: q.regex !== undefined,
    caseSensitive: q.caseSensitive,
  });
  if (pattern === undefined || Deno.build.os === "windows") return undefined;
  const start = await ws.resolve(path);
  const dir = start.relative === "" ? ws.root : `${ws.root}/${start.relative}`;
  // rg walks the directory by its real path: one reached through a link
  // is left to the scan alone.
  if (!start.info.isDirectory || start.absolute !== dir) return undefined;
  const answer = await rgCandidates(
    rg,
    dir,
    start.relative,
    pattern,
    q.maxReadBytes,
    signal,
  );
  if (answer === undefined) return undefined;
  const byUnit = new Map<string, string[]>();
  const skip = start.relative === "" ? 0 : start.relative.length + 1;
  for (const file of answer.proposed) {
    const parts = file.slice(skip).split("/");
    // Files above the units' depth are read by path, always.
    if (parts.length <= SPLIT_DEPTH) continue;
    const key = file.slice(0, skip) + parts.slice(0, SPLIT_DEPTH).join("/");
    const list = byUnit.get(key);
    if (list === undefined) byUnit.set(key, [file]);
    else list.push(file);
  }
  return (unit) => ({
    proposed: byUnit.get(unit) ?? [],
    before: answer.before,
  });
}

interface Slot {
  worker: Worker;
  idle?: ReturnType<typeof setTimeout>;
  matching: Float64Array;
  job: Running | undefined;
  started: boolean;
}

interface Running {
  job: ScanJob;
  deliver(reply: ScanReply): void;
  // The worker died or could not start: scan the unit on the main thread.
  lost(): void;
}

const slots: Slot[] = [];
// A job's clock until a worker takes it (the worker's own replaces it).
const NO_CLOCK = new Float64Array(1);
const waiting: Running[] = [];
let broken = false;
let nextId = 0;

let workerModule: URL | undefined;

/**
 * Load workers from `url` instead of `scan_worker.ts` (undefined: that
 * again), and forget that a worker could not start. For tests of the
 * fallback to the main thread.
 */
export function setScanWorkerUrl(url: URL | undefined): void {
  stopScanWorkers();
  workerModule = url;
  broken = false;
}

// Where the worker module is: beside this one when run from source; in
// the bundle, `deno task bundle` writes it beside the bundle as
// `scan_worker.js`. Undefined when neither is there (a bundle copied
// alone): searches then run on the caller's thread, with the same results.
let found: URL | undefined | null = null;

function workerUrl(): URL | undefined {
  if (workerModule !== undefined) return workerModule;
  if (found === null) {
    found = moduleFileBeside(import.meta.url, [
      "./scan_worker.ts",
      "./scan_worker.js",
    ]);
  }
  return found;
}

/**
 * Whether scan workers can run here: their module is a file beside this
 * one (see above), and no worker has failed to start.
 */
export function scanWorkersAvailable(): boolean {
  return !broken && workerUrl() !== undefined;
}

function spawn(): Slot | undefined {
  const url = workerUrl();
  if (url === undefined) return undefined;
  let worker: Worker;
  try {
    worker = new Worker(url, { type: "module" });
  } catch {
    broken = true;
    return undefined;
  }
  const slot: Slot = {
    worker,
    matching: new Float64Array(new SharedArrayBuffer(8)),
    job: undefined,
    started: false,
  };
  // A worker's start-up is code loading (see mcp/loading.ts).
  const booted = Promise.withResolvers<void>();
  trackLoading(booted.promise);
  worker.onmessage = (event: MessageEvent<ScanReply>) => {
    const reply = event.data;
    if (reply.id === -1) {
      slot.started = true;
      booted.resolve();
      return;
    }
    const running = slot.job;
    if (running === undefined || running.job.id !== reply.id) return;
    if (!("chunk" in reply) || reply.chunk.done !== undefined) {
      slot.job = undefined;
    }
    running.deliver(reply);
    dispatch();
  };
  const fail = (event: Event) => {
    event.preventDefault();
    booted.resolve();
    // A worker that never started will not start next time either.
    if (!slot.started) broken = true;
    retire(slot);
  };
  worker.onerror = fail;
  worker.onmessageerror = fail;
  slots.push(slot);
  return slot;
}

// Take a worker out of service; its job is scanned on the main thread.
function retire(slot: Slot): void {
  clearTimeout(slot.idle);
  const at = slots.indexOf(slot);
  if (at !== -1) slots.splice(at, 1);
  slot.worker.terminate();
  const running = slot.job;
  slot.job = undefined;
  running?.lost();
  dispatch();
}

// Whatever keeps the workers warm now: each says whether it still does.
let holders: (() => boolean)[] = [];

function held(): boolean {
  holders = holders.filter((holds) => holds());
  return holders.length > 0;
}

/**
 * Keep the scan workers running while `holds()` answers true, idle or
 * not, and start them now: for a large index, whose searches hand their
 * candidates to warm workers (`search_indexed.ts`), where starting them
 * would cost more than reading the candidates here. Once no holder holds,
 * an idle worker is stopped after {@linkcode IDLE_MS} again.
 */
export function keepScanWorkersWarm(holds: () => boolean): void {
  if (!scanWorkersAvailable() || !holds()) return;
  holders.push(holds);
  while (!broken && slots.length < poolSize) {
    if (spawn() === undefined) break;
  }
  dispatch();
}

function idleTimer(slot: Slot): void {
  const timer = setTimeout(() => {
    slot.idle = undefined;
    if (slot.job !== undefined) return;
    if (held()) return idleTimer(slot);
    const at = slots.indexOf(slot);
    if (at !== -1) slots.splice(at, 1);
    slot.worker.terminate();
  }, IDLE_MS);
  slot.idle = timer;
  Deno.unrefTimer(timer);
}

function dispatch(): void {
  try {
    assign();
  } finally {
    for (const slot of slots) {
      if (slot.job === undefined && slot.idle === undefined) idleTimer(slot);
    }
  }
}

function assign(): void {
  while (waiting.length > 0) {
    let slot = slots.find((s) => s.job === undefined);
    if (slot === undefined && !broken && slots.length < poolSize) {
      slot = spawn();
    }
    if (slot === undefined) {
      if (broken && slots.length === 0) {
        // No worker at all: every unit is scanned on the main thread.
        for (const running of waiting.splice(0)) running.lost();
      }
      return;
    }
    const running = waiting.shift() as Running;
    if (Atomics.load(running.job.stop, 0) !== 0) continue;
    clearTimeout(slot.idle);
    slot.idle = undefined;
    slot.job = running;
    slot.matching[0] = 0;
    slot.worker.postMessage({ ...running.job, matching: slot.matching });
  }
}

/**
 * Stop the scan workers and forget what held them warm (tests; a later
 * scan starts new ones).
 */
export function stopScanWorkers(): void {
  holders = [];
  for (const slot of slots.splice(0)) {
    clearTimeout(slot.idle);
    slot.worker.terminate();
    const running = slot.job;
    slot.job = undefined;
    running?.lost();
  }
}

/** The workers running now (tests). */
export function scanWorkersRunning(): number {
  return slots.length;
}

function add(into: number[], from: readonly number[]): void {
  for (let i = 0; i < into.length; i++) into[i] += from[i];
}

function sum(a: readonly number[], b: readonly number[]): number[] {
  return a.map((x, i) => x + b[i]);
}

function toSkips(a: readonly number[]): WalkSkips {
  return {
    unreadable: a[0],
    vanished: a[1],
    badNames: a[2],
    tooDeep: a[3],
  };
}

// A unit's composition state.
interface UnitState {
  unit: ScanUnit;
  // Main walk's skips when it yielded the unit (a subtree), or each file.
  at: number[][];
  records: HitRecord[];
  cursor: number;
  first?: number[];
  done?: { searched: number; skipped: number; skips: number[] };
  examined: number;
  // Bumped when the unit is started again, so late replies are dropped.
  epoch: number;
}

/**
 * Search the directory `path` of `ws` for `q`, as `search_text` does:
 * matches in walk order and the counts, identical to a sequential scan.
 * Rejects with the abort reason when `options.signal` aborts, and with a
 * `RegexTimeoutError` when a regex search spends its budget.
 */
export async function scanSearch(
  ws: Workspace,
  path: string,
  q: ScanQuery,
  options: ScanOptions,
): Promise<ScanOutcome> {
  const signal = options.signal;
  signal.throwIfAborted();
  const useWorkers = !options.mainThread;
  const config: ScanConfig = {
    root: ws.root,
    includeIgnored: ws.includeIgnored,
    descriptorPaths: await ws.descriptorPaths(),
  };
  const inGlob = q.glob === undefined
    ? () => true
    : globMatcher(q.glob.pattern, q.glob.base);
  const rgFor = options.rg === undefined || options.files !== undefined
    ? undefined
    : await rgUnits(ws, path, q, options.rg, signal);

  const mainSkips = walkSkips();
  const units: UnitState[] = [];
  // Set once the walk here has made every unit, with its skips then.
  let walked = false;
  let endSkips: number[] = [];

  const stop = new Int32Array(new SharedArrayBuffer(4));
  const result = Promise.withResolvers<ScanOutcome>();
  // A cancel (or a regex over budget) settles the call while the walk
  // below may still be waiting on the file system, before the answer is
  // awaited at the end: marked handled here, or the process would end on
  // an unhandled rejection. The await below still sees it.
  result.promise.catch(() => {});
  let settled = false;
  const matches: ScanMatch[] = [];
  const limit = q.limit;
  // Totals of the units composed so far.
  let searched = 0;
  let skipped = 0;
  const unitSkips = [0, 0, 0, 0];
  let head = 0;
  // Once the cap is filled: the counts to answer with, waiting for the
  // walk skips at the next file (possibly in a later unit).
  let capped: { searched: number; skipped: number } | undefined;
  let examinedBase = 0;
  const finish = (outcome?: ScanOutcome, error?: unknown) => {
    if (settled) return;
    settled = true;
    Atomics.store(stop, 0, 1);
    signal.removeEventListener("abort", onAbort);
    clearInterval(watch);
    for (let i = waiting.length - 1; i >= 0; i--) {
      if (waiting[i].job.stop === stop) waiting.splice(i, 1);
    }
    if (error !== undefined) result.reject(error);
    else result.resolve(outcome as ScanOutcome);
  };
  const onAbort = () => finish(undefined, signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });

  const yieldAt = (u: UnitState, index: number, w: readonly number[]) =>
    u.unit.kind === "dir"
      ? sum(sum(u.at[0], unitSkips), w)
      : sum(u.at[index], unitSkips);

  const compose = () => {
    while (!settled && head < units.length) {
      const u = units[head];
      if (capped !== undefined) {
        // Looking for the next file's walk skips in the units after.
        if (u.first !== undefined) {
          return finish({
            matches,
            ...capped,
            skips: toSkips(yieldAt(u, 0, u.first)),
          });
        }
        if (u.done === undefined) return;
        add(unitSkips, u.done.skips);
        head++;
        continue;
      }
      while (u.cursor < u.records.length) {
        const r = u.records[u.cursor++];
        for (const [line, text] of r.hits) {
          if (matches.length >= limit) break;
          matches.push({ path: r.path, line, text });
        }
        if (matches.length >= limit) {
          const counts = {
            searched: searched + r.searched,
            skipped: skipped + r.skipped,
          };
          if (r.next !== undefined) {
            return finish({
              matches,
              ...counts,
              skips: toSkips(yieldAt(u, r.index + 1, r.next)),
            });
          }
          capped = counts;
          break;
        }
      }
      if (u.done === undefined) return;
      searched += u.done.searched;
      skipped += u.done.skipped;
      add(unitSkips, u.done.skips);
      head++;
    }
    if (settled || !walked) return;
    if (capped !== undefined) {
      return finish({
        matches,
        ...capped,
        skips: toSkips(sum(endSkips, unitSkips)),
      });
    }
    finish({
      matches,
      searched,
      skipped,
      skips: toSkips(sum(endSkips, unitSkips)),
    });
  };

  let lastProgress = 0;
  const take = (u: UnitState, chunk: UnitChunk) => {
    if (settled) return;
    examinedBase += chunk.examined - u.examined;
    u.examined = chunk.examined;
    if (chunk.first !== undefined) u.first ??= chunk.first;
    u.records.push(...chunk.records);
    if (chunk.done !== undefined) u.done = chunk.done;
    if (options.progress !== undefined) {
      const now = performance.now();
      if (now - lastProgress >= 100) {
        lastProgress = now;
        options.progress(examinedBase);
      }
    }
    compose();
  };
  const reset = (u: UnitState) => {
    examinedBase -= u.examined;
    u.examined = 0;
    u.records = [];
    u.cursor = 0;
    u.first = undefined;
    u.done = undefined;
    u.epoch++;
  };
  // Scan a unit on the main thread (no worker, or its worker failed),
  // one unit after another.
  let chain = Promise.resolve();
  const local = (u: UnitState) => {
    reset(u);
    const epoch = u.epoch;
    chain = chain.then(() =>
      settled ? undefined : scanUnit(
        ws,
        u.unit,
        q,
        () => settled || Atomics.load(stop, 0) !== 0,
        (chunk) => {
          if (u.epoch === epoch) take(u, chunk);
        },
        yieldToEventLoop,
      )
    ).catch((error) => {
      if (!(error instanceof UnitStopped)) finish(undefined, error);
    });
  };

  // A regex match that has run past the budget on one file: a pattern
  // the linear-time fallback did not catch. The call fails; the worker is
  // terminated (another takes its place).
  const watch = q.regex === undefined ? undefined : setInterval(() => {
    const now = Date.now();
    for (const slot of slots) {
      if (slot.job?.job.stop !== stop) continue;
      const since = slot.matching[0];
      if (since !== 0 && now - since > options.budgetMs) {
        finish(undefined, new RegexTimeoutError(options.budgetMs));
        const at = slots.indexOf(slot);
        if (at !== -1) slots.splice(at, 1);
        slot.job = undefined;
        slot.worker.terminate();
        dispatch();
      }
    }
  }, 50);

  // The directory is walked here down to SPLIT_DEPTH, as the sequential
  // walk meets its entries: each directory at that depth becomes a unit
  // (its whole subtree), each run of files above it one more. Units go to
  // the workers as the walk makes them.
  const state = (unit: ScanUnit, at: number[][]): UnitState => ({
    unit,
    at,
    records: [],
    cursor: 0,
    examined: 0,
    epoch: 0,
  });
  const start = (u: UnitState) => {
    if (!useWorkers) return local(u);
    const id = nextId++;
    waiting.push({
      job: { id, config, unit: u.unit, query: q, stop, matching: NO_CLOCK },
      deliver: (reply) => {
        if (settled) return;
        if ("chunk" in reply) take(u, reply.chunk);
        else if ("error" in reply) local(u);
        // "stopped": only after the call settled.
      },
      lost: () => {
        if (!settled) local(u);
      },
    });
    dispatch();
  };
  if (options.files !== undefined) {
    let size = FIRST_FILES_PER_UNIT;
    for (let i = 0; i < options.files.length; i += size) {
      if (i > 0) size = Math.min(size * 2, FILES_PER_UNIT);
      const paths = options.files.slice(i, i + size);
      const u = state({ kind: "files", paths }, paths.map(() => [0, 0, 0, 0]));
      units.push(u);
      start(u);
    }
    endSkips = [0, 0, 0, 0];
    walked = true;
    compose();
    return await result.promise;
  }
  // A run of files is started once the run ends.
  let run: UnitState | undefined;
  try {
    for await (
      const entry of ws.walk({
        path,
        maxDepth: SPLIT_DEPTH,
        signal,
        skips: mainSkips,
      })
    ) {
      if (settled) break;
      if (entry.isDirectory) {
        // A linked directory is listed, never descended; one above
        // SPLIT_DEPTH is descended by this walk.
        if (ws.isLink(entry) || entry.depth < SPLIT_DEPTH) continue;
        if (run !== undefined) start(run);
        run = undefined;
        const u = state({
          kind: "dir",
          path: entry.relative,
          rg: rgFor?.(entry.relative),
        }, [
          skipsArray(mainSkips),
        ]);
        units.push(u);
        start(u);
        continue;
      }
      if (!entry.isFile || !inGlob(entry.relative)) continue;
      if (run !== undefined && run.unit.kind === "files") {
        run.unit.paths.push(entry.relative);
        run.at.push(skipsArray(mainSkips));
      } else {
        run = state({ kind: "files", paths: [entry.relative] }, [
          skipsArray(mainSkips),
        ]);
        units.push(run);
      }
    }
  } catch (error) {
    finish(undefined, error);
  }
  if (run !== undefined && !settled) start(run);
  endSkips = skipsArray(mainSkips);
  walked = true;
  compose();
  return await result.promise;
}
