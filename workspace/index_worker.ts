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
 * The main thread may start a second worker of this same module and hand
 * each one end of a channel (`{ postings, port }` to it, the job's
 * `postings` to this one): a build from nothing then pipes its texts to
 * it, which keeps the postings while this one reads
 * (`postings_pipe.ts`), so on two cores the two halves of the work run
 * side by side. (Started from the main thread: a worker started from a
 * worker took a second longer to start.) Without it, or when it fails as
 * it starts, this one keeps them itself.
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
  /**
   * The port of a second worker of this module that keeps the postings of
   * a build from nothing (see the module's note); none: kept here.
   */
  postings?: MessagePort;
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

async function run(job: IndexJob): Promise<void> {
  const started = performance.now();
  try {
    const ws = await Workspace.open(job.root, {
      includeIgnored: job.includeIgnored,
      descriptorPaths: job.descriptorPaths,
    });
    const port = job.postings;
    const outcome = await buildIndex(ws, {
      maxReadBytes: job.maxReadBytes,
      cacheFile: job.cacheFile,
      watch: (dirs) => {
        const { promise, resolve } = Promise.withResolvers<void>();
        watching = resolve;
        scope.postMessage({ dirs } satisfies IndexReply);
        return promise;
      },
      texts: port === undefined ? undefined : async () => {
        const texts = new PipedTexts(port);
        try {
          await texts.serving();
          return texts;
        } catch {
          // It failed as it started: the postings are kept here.
          return undefined;
        }
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
  }
}

scope.onmessage = (event) => {
  const message = event.data as IndexJob | { watching: true } | {
    postings: true;
    port: MessagePort;
  };
  if ("port" in message) {
    // This worker keeps the postings of the other's build from now on.
    servePostings(message.port);
  } else if ("watching" in message) {
    watching?.();
    watching = undefined;
  } else run(message);
};
