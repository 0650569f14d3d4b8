/**
 * Regular-expression matching in a Worker, under a per-call time budget.
 *
 * The main thread answers every request, so matching runs in a worker.
 * Jobs are sent to it one at a time, in order: a job's clock starts when
 * the worker starts on it, so a call's budget counts its own matching and
 * nothing else (not the walk, the reads, or another call's batch). When a
 * job overruns its call's remaining budget, or its call is cancelled, the
 * worker is terminated and a fresh one takes the jobs behind it; a
 * cancelled job that has not started is just dropped. Each job's failure
 * (an error thrown while matching) is reported to that job alone.
 *
 * `terminate()` cannot interrupt a backtracking regex, so a budget alone
 * does not bound CPU: regexes are checked by `regex.ts` to be executable in
 * linear time first, and V8 then falls back to its linear engine whenever
 * one backtracks too much.
 *
 * The worker's code is a self-contained string loaded from a Blob URL, so
 * it works the same from source, from the bundle and from a compiled
 * binary, and needs no permission at all.
 *
 * @module
 */

import { trackLoading } from "../mcp/loading.ts";

const WORKER_SOURCE = `
self.onmessage = (event) => {
  const started = performance.now();
  const { id, source, flags, texts, limit, maxChars } = event.data;
  try {
    const re = new RegExp(source, flags);
    const hits = [];
    outer: for (let f = 0; f < texts.length; f++) {
      const lines = texts[f].split("\\n");
      // A final newline ends the last line; it does not start another.
      if (lines[lines.length - 1] === "") lines.pop();
      for (let i = 0; i < lines.length; i++) {
        let line = lines[i];
        if (line.endsWith("\\r")) line = line.slice(0, -1);
        if (re.test(line)) {
          hits.push([f, i + 1, line.length > maxChars ? line.slice(0, maxChars) + "…" : line]);
          if (hits.length >= limit) break outer;
        }
      }
    }
    self.postMessage({ id, hits, ms: performance.now() - started });
  } catch (error) {
    self.postMessage({
      id,
      error: String(error && error.message || error),
      ms: performance.now() - started,
    });
  }
};
`;

/** Thrown when a call's matching ran out of its time budget. */
export class RegexTimeoutError extends Error {
  /** Make the error for a budget of `budgetMs`. */
  constructor(budgetMs: number) {
    super(`regular expression matching exceeded ${budgetMs} ms`);
    this.name = "RegexTimeoutError";
  }
}

/** The default round-trip room of a job (see {@linkcode RegexBudget}). */
const ROUND_TRIP_SLACK_MS = 250;

/** The matching time one search call may still spend, shared by its jobs. */
export class RegexBudget {
  /** The whole budget, in milliseconds. */
  readonly totalMs: number;
  /** What is left of it. */
  remainingMs: number;
  /**
   * How much longer than the remaining budget a job may go unanswered
   * before the worker is stopped: room for the round trip (copying the
   * texts, a busy main thread), which the budget does not count.
   */
  readonly slackMs: number;

  /**
   * A budget of `totalMs` milliseconds of matching, with `slackMs` of
   * round-trip room for each job.
   */
  constructor(totalMs: number, slackMs: number = ROUND_TRIP_SLACK_MS) {
    this.totalMs = totalMs;
    this.remainingMs = totalMs;
    this.slackMs = slackMs;
  }
}

/** One matching line: index of its text, 1-based line number, its text. */
export type RegexHit = [text: number, line: number, content: string];

interface MatchRequest {
  id: number;
  source: string;
  flags: string;
  texts: string[];
  limit: number;
  maxChars: number;
}

interface Job {
  message: MatchRequest;
  budget: RegexBudget;
  started: number;
  timer?: ReturnType<typeof setTimeout>;
  settle(error: Error | undefined, hits?: RegexHit[]): void;
}

let worker: Worker | undefined;
// Ends the current worker's start-up (see startWorker).
let booting: (() => void) | undefined;
let workerUrl: string | undefined;
let nextId = 0;
let running: Job | undefined;
const queue: Job[] = [];

function startWorker(): Worker {
  workerUrl ??= URL.createObjectURL(
    new Blob([WORKER_SOURCE], { type: "application/javascript" }),
  );
  const w = new Worker(workerUrl, { type: "module" });
  // A worker's start-up is code loading, which the connection does not
  // count against a call's place in the order of answers (mcp/loading.ts):
  // it lasts until the worker first answers or fails.
  const booted = Promise.withResolvers<void>();
  trackLoading(booted.promise);
  booting = booted.resolve;
  w.onmessage = (
    event: MessageEvent<
      { id: number; hits?: RegexHit[]; error?: string; ms: number }
    >,
  ) => {
    booted.resolve();
    const job = running;
    if (job === undefined || job.message.id !== event.data.id) return;
    const { error, hits, ms } = event.data;
    finish(job, ms);
    job.settle(
      error !== undefined
        ? new Error(`regex failed: ${error}`)
        : job.budget.remainingMs < 0
        ? new RegexTimeoutError(job.budget.totalMs)
        : undefined,
      hits,
    );
    pump();
  };
  w.onerror = (event) => {
    booted.resolve();
    event.preventDefault();
    // The job it was running is the one that broke it.
    if (running !== undefined) {
      fail(running, new Error(`regex worker failed: ${event.message}`));
    }
  };
  return w;
}

/**
 * Stop the clock of the running job and charge its matching time to its
 * budget: the time the worker measured, when it answered. Copying the
 * texts to the worker, and a main thread too busy to take the answer at
 * once, are not matching.
 */
function finish(job: Job, workerMs?: number): void {
  clearTimeout(job.timer);
  job.budget.remainingMs -= workerMs ?? performance.now() - job.started;
  running = undefined;
}

function pump(): void {
  if (running !== undefined) return;
  const job = queue.shift();
  if (job === undefined) return;
  if (job.budget.remainingMs <= 0) {
    job.settle(new RegexTimeoutError(job.budget.totalMs));
    pump();
    return;
  }
  running = job;
  worker ??= startWorker();
  job.started = performance.now();
  job.timer = setTimeout(
    () => fail(job, new RegexTimeoutError(job.budget.totalMs)),
    job.budget.remainingMs + job.budget.slackMs,
  );
  worker.postMessage(job.message);
}

/**
 * Fail `job` with `reason`: dropped from the queue if it has not started;
 * if it is running, the worker is terminated (the only way to stop a match
 * in progress) and the jobs behind it go on in a fresh one.
 */
function fail(job: Job, reason: Error): void {
  if (job === running) {
    finish(job);
    booting?.();
    worker?.terminate();
    worker = undefined;
  } else {
    const at = queue.indexOf(job);
    if (at === -1) return;
    queue.splice(at, 1);
  }
  job.settle(reason);
  pump();
}

/**
 * Terminate the worker (if any); every job, running or queued, fails with
 * `reason`. The next match starts a new worker.
 */
export function stopRegexWorker(
  reason: Error = new Error("regex worker stopped"),
): void {
  booting?.();
  worker?.terminate();
  worker = undefined;
  const jobs = running === undefined ? [...queue] : [running, ...queue];
  if (running !== undefined) clearTimeout(running.timer);
  running = undefined;
  queue.length = 0;
  for (const job of jobs) job.settle(reason);
}

/**
 * What a search answers when its regex ran out of its budget (`budgetMs`)
 * on one file's lines.
 */
export function regexTimeoutMessage(query: string, budgetMs: number): string {
  return `The regular expression "${query}" took over ${budgetMs} ms to match the lines of one file and was stopped; simplify it (a pattern that backtracks), or search literally with regex: false.`;
}

/**
 * Lines of `texts` that `new RegExp(source, flags)` matches, at most
 * `limit`, each with its text cut at `maxChars` characters. The time the
 * worker spends on them is taken from `budget`; rejects with
 * {@linkcode RegexTimeoutError} when the budget runs out first, and with
 * the abort reason when `signal` aborts.
 */
export function matchLines(
  source: string,
  flags: string,
  texts: string[],
  limit: number,
  budget: RegexBudget,
  signal?: AbortSignal,
  maxChars = Infinity,
): Promise<RegexHit[]> {
  signal?.throwIfAborted();
  if (budget.remainingMs <= 0) {
    return Promise.reject(new RegexTimeoutError(budget.totalMs));
  }
  return new Promise<RegexHit[]>((resolve, reject) => {
    const onAbort = () => fail(job, signal?.reason ?? new Error("aborted"));
    const job: Job = {
      message: { id: ++nextId, source, flags, texts, limit, maxChars },
      budget,
      started: 0,
      settle(error, hits) {
        signal?.removeEventListener("abort", onAbort);
        if (error !== undefined) reject(error);
        else resolve(hits ?? []);
      },
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    queue.push(job);
    pump();
  });
}
