/**
 * Regular-expression matching in a Worker, under a time budget.
 *
 * JavaScript regexes backtrack, so a pattern like `(a+)+$` can run for
 * ages on one line, and a busy main thread cannot serve anyone else. The
 * matching therefore runs in a worker; when a call's budget runs out the
 * worker is terminated (which stops even a regex stuck in one `test`), that
 * call fails, and the calls that were waiting behind it go on in a fresh
 * worker.
 *
 * The worker's code is a self-contained string loaded from a Blob URL, so
 * it works the same from source, from the bundle and from a compiled
 * binary, and needs no permission at all.
 *
 * @module
 */

const WORKER_SOURCE = `
self.onmessage = (event) => {
  const { id, source, flags, texts, limit } = event.data;
  const re = new RegExp(source, flags);
  const hits = [];
  outer: for (let f = 0; f < texts.length; f++) {
    const lines = texts[f].split("\\n");
    for (let i = 0; i < lines.length; i++) {
      let line = lines[i];
      if (line.endsWith("\\r")) line = line.slice(0, -1);
      if (re.test(line)) {
        hits.push(f, i + 1);
        if (hits.length / 2 >= limit) break outer;
      }
    }
  }
  self.postMessage({ id, hits });
};
`;

/** Thrown when matching ran out of its time budget. */
export class RegexTimeoutError extends Error {
  /** Make the error for a budget of `budgetMs`. */
  constructor(budgetMs: number) {
    super(`regular expression matching exceeded ${budgetMs} ms`);
    this.name = "RegexTimeoutError";
  }
}

interface MatchRequest {
  id: number;
  source: string;
  flags: string;
  texts: string[];
  limit: number;
}

interface Pending {
  message: MatchRequest;
  resolve(hits: number[]): void;
  reject(error: Error): void;
}

let worker: Worker | undefined;
let workerUrl: string | undefined;
let nextId = 0;
const pending = new Map<number, Pending>();

function startWorker(): Worker {
  workerUrl ??= URL.createObjectURL(
    new Blob([WORKER_SOURCE], { type: "application/javascript" }),
  );
  const w = new Worker(workerUrl, { type: "module" });
  w.onmessage = (event: MessageEvent<{ id: number; hits: number[] }>) => {
    const entry = pending.get(event.data.id);
    pending.delete(event.data.id);
    entry?.resolve(event.data.hits);
  };
  w.onerror = (event) => {
    event.preventDefault();
    stopRegexWorker(new Error(`regex worker failed: ${event.message}`));
  };
  return w;
}

/**
 * Terminate the worker because of the call `culprit` (over its budget, or
 * cancelled): that call fails with `reason`, and the calls it held up are
 * sent again to a fresh worker, each still under its own deadline.
 */
function stopFor(culprit: number, reason: Error): void {
  const entry = pending.get(culprit);
  if (entry === undefined) return;
  pending.delete(culprit);
  worker?.terminate();
  worker = undefined;
  entry.reject(reason);
  if (pending.size === 0) return;
  worker = startWorker();
  for (const other of pending.values()) worker.postMessage(other.message);
}

/**
 * Terminate the worker (if any); calls waiting on it fail with `reason`.
 * The next match starts a new one.
 */
export function stopRegexWorker(
  reason: Error = new Error("regex worker stopped"),
): void {
  worker?.terminate();
  worker = undefined;
  for (const entry of pending.values()) entry.reject(reason);
  pending.clear();
}

/**
 * Lines of `texts` that `new RegExp(source, flags)` matches, as flat
 * `[textIndex, lineNumber, …]` pairs (1-based lines, at most `limit`
 * pairs). Rejects with {@linkcode RegexTimeoutError} when `deadline`
 * (a `performance.now()` time) passes first, and with the abort reason
 * when `signal` aborts.
 */
export function matchLines(
  source: string,
  flags: string,
  texts: string[],
  limit: number,
  deadline: number,
  budgetMs: number,
  signal?: AbortSignal,
): Promise<number[]> {
  signal?.throwIfAborted();
  const w = worker ??= startWorker();
  const id = ++nextId;
  return new Promise<number[]>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Terminating is the only way to stop a regex mid-match.
      stopFor(id, new RegexTimeoutError(budgetMs));
    }, Math.max(0, deadline - performance.now()));
    const onAbort = () => stopFor(id, signal?.reason ?? new Error("aborted"));
    signal?.addEventListener("abort", onAbort, { once: true });
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };
    const message: MatchRequest = { id, source, flags, texts, limit };
    pending.set(id, {
      message,
      resolve: (hits) => {
        done();
        resolve(hits);
      },
      reject: (error) => {
        done();
        reject(error);
      },
    });
    w.postMessage(message);
  });
}
