/**
 * The index worker's entry: builds the trigram index of one tree off the
 * main thread (`index_build.ts`), with the cache when asked, and hands
 * the result over by transfer (no copy of the postings). Its steps:
 *
 * - receives an {@linkcode IndexJob};
 * - posts `{ dirs }` once it knows the directories to watch, and waits
 *   for `{ watching: true }` (the main thread watches them first);
 * - posts `{ done }` with the data, or `{ error }`.
 *
 * A build from nothing starts a second worker of this same module, which
 * keeps the postings while this one reads (`postings_pipe.ts`): on two
 * cores the two halves of the work run side by side. When it cannot
 * start, this one keeps them itself.
 *
 * @module
 */

import { buildIndex } from "./index_build.ts";
import { dataParts, type IndexDataParts } from "./index_data.ts";
import { PipedTexts, type Port, servePostings } from "./postings_pipe.ts";
import { Workspace } from "./workspace.ts";

/** What the main thread sends to start a build. */
export interface IndexJob {
  /** Real absolute path of the root. */
  root: string;
  /** See `WorkspaceOptions.includeIgnored`. */
  includeIgnored: boolean;
  /** See `WorkspaceOptions.descriptorPaths`. */
  descriptorPaths: boolean;
  /** Files larger than this are skipped. */
  maxReadBytes: number;
  /** The cache file, if any. */
  cacheFile?: string;
}

/** What the worker posts back. */
export type IndexReply =
  | { dirs: string[] }
  | {
    done: IndexDataParts;
    kept: number;
    read: number;
    cache: string[];
    piped: boolean;
    ms: number;
  }
  | { error: string };

const scope = globalThis as unknown as Port;
let watching: (() => void) | undefined;

// A second worker of this module, keeping the postings; undefined when it
// cannot start.
function postingsWorker(): { texts: PipedTexts; worker: Worker } | undefined {
  let worker: Worker;
  try {
    worker = new Worker(import.meta.url, { type: "module" });
  } catch {
    return undefined;
  }
  const texts = new PipedTexts(worker);
  worker.onerror = (event) => {
    event.preventDefault();
    texts.fail(new Error(event.message));
  };
  return { texts, worker };
}

async function run(job: IndexJob): Promise<void> {
  const started = performance.now();
  let helper: Worker | undefined;
  try {
    const ws = await Workspace.open(job.root, {
      includeIgnored: job.includeIgnored,
      descriptorPaths: job.descriptorPaths,
    });
    const outcome = await buildIndex(ws, {
      maxReadBytes: job.maxReadBytes,
      cacheFile: job.cacheFile,
      watch: (dirs) => {
        const { promise, resolve } = Promise.withResolvers<void>();
        watching = resolve;
        scope.postMessage({ dirs } satisfies IndexReply);
        return promise;
      },
      texts: () => {
        const started = postingsWorker();
        helper = started?.worker;
        return started?.texts;
      },
    });
    if (outcome === undefined) throw new Error("the build stopped");
    const { parts, transfer } = dataParts(outcome.data);
    scope.postMessage({
      done: parts,
      kept: outcome.kept,
      read: outcome.read,
      cache: outcome.cache,
      piped: outcome.piped,
      ms: performance.now() - started,
    }, transfer);
  } catch (error) {
    scope.postMessage(
      {
        error: String(error instanceof Error ? error.stack : error),
      } satisfies IndexReply,
    );
  } finally {
    helper?.terminate();
  }
}

scope.onmessage = (event) => {
  const message = event.data as IndexJob | { watching: true } | {
    postings: true;
  };
  if ("postings" in message) {
    // This worker is the other's postings worker: it serves from now on.
    servePostings(scope);
  } else if ("watching" in message) {
    watching?.();
    watching = undefined;
  } else run(message);
};
