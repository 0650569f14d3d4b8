/**
 * Parsing for the symbol tools on worker threads, so that the thread that
 * answers requests never runs tree-sitter: a `ping` is answered, and a
 * cancelled call returns, while a large or hostile file is being parsed.
 *
 * The main thread reads each file through the workspace's confined reads
 * and hands its text over; the workers read nothing of the workspace.
 *
 * - Up to {@linkcode SYMBOL_WORKERS} workers take the texts in the order
 *   they were asked for, one at a time each. The first starts on the first
 *   parse (never at start-up), another only when parses queue up behind
 *   the busy ones. They are stopped once idle (a live worker would keep a
 *   finished process running): the first after {@linkcode WARM_MS}, since
 *   a fresh one loads the runtime and a grammar again (300 ms for C++),
 *   the others after a few seconds.
 * - A cancelled parse settles at once with the call's abort reason: one
 *   still waiting is dropped, and a running one is told to stop through a
 *   flag the worker reads while it parses; its late answer is dropped.
 * - A parse is bounded by its time budget inside the worker; a worker
 *   that still has not answered {@linkcode WATCHDOG_SLACK_MS} after that is
 *   terminated, the parse fails with a reason, and a fresh worker takes
 *   the next one.
 * - Where no worker can run (a bundle copied without `symbol_worker.js`,
 *   or one that cannot start), parsing falls back to this thread, with
 *   the same results.
 *
 * @module
 */

import { trackLoading } from "../mcp/loading.ts";
import {
  type DefinitionsResult,
  PARSE_TIMEOUT_MS,
} from "../symbols/definitions.ts";
import type { SymbolLanguage } from "../symbols/languages.ts";
import { moduleFileBeside } from "../workspace/module_file.ts";
import type { ParseJob, ParseReply, WarmUp } from "./symbol_worker.ts";

/** Worker threads the symbol tools parse on, at most. */
export const SYMBOL_WORKERS = 2;

/**
 * How long past a parse's own time budget a worker may stay silent before
 * it is terminated (ms): room for loading the runtime and a grammar, and
 * for a busy machine.
 */
export const WATCHDOG_SLACK_MS = 4000;

/**
 * How long the first worker stays warm after its last parse (ms): an
 * agent's symbol calls come tens of seconds apart, and a fresh worker
 * spends 300-400 ms loading the runtime and the C++ grammar before its
 * first parse (`outline` of a kernel file: 90-150 ms warm, 360-440 ms
 * cold).
 */
export const WARM_MS = 60_000;

// The other workers are stopped after this long idle (ms): they serve
// long searches, and each holds its own copy of the runtime and grammars
// (30-40 MiB for C++).
const IDLE_MS = 5000;

// Parses waiting, at least, before another worker starts: a fresh one
// costs more than a few small parses (a search of three files waits for
// the first worker rather than start a second).
const SPAWN_BACKLOG = 3;

interface Slot {
  worker: Worker;
  // Read by the worker while it parses: non-zero stops the parse.
  stop: Int32Array;
  job: Pending | undefined;
  // Loaded the runtime and a grammar: takes jobs from now on.
  ready: boolean;
  idle?: ReturnType<typeof setTimeout>;
  watchdog?: ReturnType<typeof setTimeout>;
}

interface Pending {
  language: SymbolLanguage;
  text: string;
  timeoutMs: number;
  id: number;
  settled: boolean;
  settle(outcome: DefinitionsResult | Error): void;
  // No worker could take it: parse it on this thread.
  lost(): void;
}

const slots: Slot[] = [];
const waiting: Pending[] = [];
let poolSize = SYMBOL_WORKERS;
let broken = false;
let nextId = 0;
let workerModule: URL | undefined;

/**
 * Set how many workers parsing may use from now on (at least 1); idle
 * workers beyond it are stopped. For tests and benches.
 */
export function setSymbolWorkers(count: number): void {
  poolSize = Math.max(1, Math.floor(count));
  for (const slot of slots.filter((s) => s.job === undefined)) {
    if (slots.length <= poolSize) break;
    drop(slot);
  }
}

/**
 * Load workers from `url` instead of `symbol_worker.ts` (undefined: that
 * again), and forget that a worker could not start. For tests of the
 * fallback to this thread.
 */
export function setSymbolWorkerUrl(url: URL | undefined): void {
  stopSymbolWorkers();
  workerModule = url;
  broken = false;
}

/** Stop every worker (tests); a later parse starts new ones. */
export function stopSymbolWorkers(): void {
  for (const slot of [...slots]) {
    const job = slot.job;
    drop(slot);
    job?.lost();
  }
}

/** The workers running now (tests). */
export function symbolWorkersRunning(): number {
  return slots.length;
}

// Where the worker module is: beside this one when run from source; in
// the bundle, `deno task bundle` writes it beside the bundle as
// `symbol_worker.js`. Undefined when neither is there.
let found: URL | undefined | null = null;

function workerUrl(): URL | undefined {
  if (workerModule !== undefined) return workerModule;
  if (found === null) {
    found = moduleFileBeside(import.meta.url, [
      "./symbol_worker.ts",
      "./symbol_worker.js",
    ]);
  }
  return found;
}

// Take a worker out of service (its job, if any, is the caller's).
function drop(slot: Slot): void {
  clearTimeout(slot.idle);
  clearTimeout(slot.watchdog);
  const at = slots.indexOf(slot);
  if (at !== -1) slots.splice(at, 1);
  slot.job = undefined;
  slot.worker.terminate();
}

function spawn(language: SymbolLanguage): Slot | undefined {
  const url = workerUrl();
  if (url === undefined) {
    // No worker module to load: every parse runs on this thread.
    broken = true;
    return undefined;
  }
  let worker: Worker;
  try {
    worker = new Worker(url, { type: "module" });
  } catch {
    broken = true;
    return undefined;
  }
  const slot: Slot = {
    worker,
    stop: new Int32Array(new SharedArrayBuffer(4)),
    job: undefined,
    ready: false,
  };
  // A worker's start-up, until it is ready, is code loading (see
  // mcp/loading.ts): it does not count against a call's place in the
  // order of answers.
  const booted = Promise.withResolvers<void>();
  trackLoading(booted.promise);
  // Jobs wait for a worker that takes this long to start up no more:
  // it is stopped, and counted as one that could not start.
  slot.watchdog = setTimeout(() => {
    booted.resolve();
    drop(slot);
    if (slots.length === 0) broken = true;
    dispatch();
  }, PARSE_TIMEOUT_MS + WATCHDOG_SLACK_MS);
  worker.onmessage = (event: MessageEvent<ParseReply>) => {
    const reply = event.data;
    if ("ready" in reply) {
      // Ready: the jobs waiting go to it (and to the busy ones as they
      // finish), none having waited on its start-up.
      clearTimeout(slot.watchdog);
      booted.resolve();
      slot.ready = true;
      dispatch();
      return;
    }
    const job = slot.job;
    if (job === undefined || job.id !== reply.id) return;
    clearTimeout(slot.watchdog);
    slot.job = undefined;
    job.settle(
      "result" in reply
        ? reply.result
        : new Error(`the symbol parser failed: ${reply.error}`),
    );
    dispatch();
  };
  const fail = (event: Event) => {
    event.preventDefault();
    booted.resolve();
    const job = slot.job;
    drop(slot);
    // A worker that never started will not start next time either: the
    // jobs are parsed on this thread (once no worker is left).
    if (!slot.ready) broken = true;
    job?.settle({ ok: false, reason: "the parser's worker failed" });
    dispatch();
  };
  worker.onerror = fail;
  worker.onmessageerror = fail;
  const warm: WarmUp = { warm: language.name };
  worker.postMessage(warm);
  slots.push(slot);
  return slot;
}

function dispatch(): void {
  try {
    assign();
  } finally {
    for (const slot of slots) {
      if (slot.job !== undefined || slot.idle !== undefined) continue;
      const timer = setTimeout(() => {
        slot.idle = undefined;
        if (slot.job === undefined) drop(slot);
      }, slot === slots[0] ? WARM_MS : IDLE_MS);
      slot.idle = timer;
      Deno.unrefTimer(timer);
    }
  }
}

function assign(): void {
  while (waiting.length > 0) {
    const slot = slots.find((s) => s.ready && s.job === undefined);
    if (slot === undefined) {
      if (
        !broken && slots.length < poolSize && slots.every((s) => s.ready) &&
        (slots.length === 0 || waiting.length >= SPAWN_BACKLOG)
      ) {
        spawn(waiting[0].language);
      }
      if (broken && slots.length === 0) {
        for (const job of waiting.splice(0)) job.lost();
      }
      return;
    }
    const job = waiting.shift() as Pending;
    clearTimeout(slot.idle);
    slot.idle = undefined;
    slot.job = job;
    Atomics.store(slot.stop, 0, 0);
    const running = slot;
    slot.watchdog = setTimeout(() => {
      // Silent past its budget: only terminating the worker stops it.
      drop(running);
      job.settle({
        ok: false,
        reason: `parsing took longer than ${job.timeoutMs} ms and was stopped`,
      });
      dispatch();
    }, job.timeoutMs + WATCHDOG_SLACK_MS);
    const message: ParseJob = {
      id: job.id,
      language: job.language.name,
      text: job.text,
      timeoutMs: job.timeoutMs,
      stop: slot.stop,
    };
    slot.worker.postMessage(message);
  }
}

/** Parse on this thread: where no worker can. */
async function parseHere(
  language: SymbolLanguage,
  text: string,
  timeoutMs: number,
): Promise<DefinitionsResult> {
  const [{ loadLanguage }, { definitionsOf }] = await Promise.all([
    import("../symbols/runtime.ts"),
    import("../symbols/definitions.ts"),
  ]);
  return definitionsOf(await loadLanguage(language), text, { timeoutMs });
}

/**
 * The definitions of `text` in `language`, parsed on a worker thread
 * (see the module's note). Rejects with `signal`'s reason as soon as it
 * aborts, and when the parser cannot load.
 */
export function parseDefinitions(
  language: SymbolLanguage,
  text: string,
  signal?: AbortSignal,
  timeoutMs: number = PARSE_TIMEOUT_MS,
): Promise<DefinitionsResult> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  const { promise, resolve, reject } = Promise.withResolvers<
    DefinitionsResult
  >();
  const onAbort = () => {
    const at = waiting.indexOf(job);
    if (at !== -1) waiting.splice(at, 1);
    // A running parse is told to stop; its answer will be dropped.
    const slot = slots.find((s) => s.job === job);
    if (slot !== undefined) Atomics.store(slot.stop, 0, 1);
    job.settle(signal?.reason ?? new Error("aborted"));
  };
  const job: Pending = {
    language,
    text,
    timeoutMs,
    id: ++nextId,
    settled: false,
    settle(outcome) {
      if (job.settled) return;
      job.settled = true;
      signal?.removeEventListener("abort", onAbort);
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    },
    lost() {
      if (job.settled) return;
      parseHere(language, text, timeoutMs).then(
        (result) => job.settle(result),
        (error) => job.settle(error),
      );
    },
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  waiting.push(job);
  dispatch();
  return promise;
}
