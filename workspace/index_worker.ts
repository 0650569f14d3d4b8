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
 * @module
 */

import { buildIndex } from "./index_build.ts";
import { dataParts, type IndexDataParts } from "./index_data.ts";
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
    ms: number;
  }
  | { error: string };

interface Scope {
  onmessage: ((event: MessageEvent) => void) | null;
  postMessage(message: IndexReply, transfer?: Transferable[]): void;
}

const scope = globalThis as unknown as Scope;
let watching: (() => void) | undefined;

async function run(job: IndexJob): Promise<void> {
  const started = performance.now();
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
        scope.postMessage({ dirs });
        return promise;
      },
    });
    if (outcome === undefined) throw new Error("the build stopped");
    const { parts, transfer } = dataParts(outcome.data);
    scope.postMessage({
      done: parts,
      kept: outcome.kept,
      read: outcome.read,
      cache: outcome.cache,
      ms: performance.now() - started,
    }, transfer);
  } catch (error) {
    scope.postMessage({
      error: String(error instanceof Error ? error.stack : error),
    });
  }
}

scope.onmessage = (event) => {
  const message = event.data as IndexJob | { watching: true };
  if ("watching" in message) {
    watching?.();
    watching = undefined;
  } else run(message);
};
