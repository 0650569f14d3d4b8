/**
 * One build of the trigram index, from the cache when there is a usable
 * one: the steps `index_worker.ts` runs off the main thread (and
 * `text_index.ts` runs on it when no worker can start).
 *
 * 1. Load the cache (`index_cache.ts`), if asked; a cache that cannot be
 *    used is noted, and the build starts from nothing.
 * 2. Hand the tree's real directories to `watch`, which starts watching
 *    them: a change from then on is reported, so what is read (or found
 *    unchanged) afterwards is never missed. They come from a walk, or
 *    from the cache (those still there; one made since is met by the
 *    walk of step 3, then watched and read again by the caller).
 * 3. Walk again, reading each file that is new or changed (for cached
 *    data: whose identity differs from the stored one) and keeping the
 *    others.
 * 4. Save the cache when anything differs from what was loaded.
 *
 * @module
 */

import {
  CacheError,
  type CacheKey,
  loadCache,
  saveCache,
} from "./index_cache.ts";
import { type IndexData, scanTree, treeDirs } from "./index_data.ts";
import type { TextSink } from "./postings_pipe.ts";
import type { Workspace } from "./workspace.ts";

/** Options of {@linkcode buildIndex}. */
export interface BuildOptions {
  /** Files larger than this are skipped, as the search skips them. */
  maxReadBytes: number;
  /** The cache file to load and save; none when undefined. */
  cacheFile?: string;
  /** Starts watching `dirs` (step 2); resolves once it has. */
  watch: (dirs: string[]) => Promise<void>;
  /** Called between entries: a turn of the event loop when it resolves. */
  pace?: () => Promise<void> | undefined;
  /** Stops the build (it then answers undefined). */
  stopped?: () => boolean;
  /** See `ScanTreeOptions.texts`. */
  texts?: () => Promise<TextSink | undefined>;
}

/** What a build made, and how. */
export interface BuildOutcome {
  /** The index's data. */
  data: IndexData;
  /** Files whose entries came from the cache unread. */
  kept: number;
  /** Files read. */
  read: number;
  /** What happened to the cache: "loaded", "none", "saved", or why not. */
  cache: string[];
  /** Whether a second worker kept the postings (`postings_pipe.ts`). */
  piped: boolean;
}

function sameOrder(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Build the index of `ws` (see the module's note). */
export async function buildIndex(
  ws: Workspace,
  options: BuildOptions,
): Promise<BuildOutcome | undefined> {
  const key: CacheKey = {
    root: ws.root,
    includeIgnored: ws.includeIgnored,
    maxReadBytes: options.maxReadBytes,
  };
  const cache: string[] = [];
  let loaded: IndexData | undefined;
  if (options.cacheFile !== undefined) {
    try {
      loaded = loadCache(options.cacheFile, key);
      cache.push("loaded");
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) cache.push("none");
      else if (error instanceof CacheError) {
        cache.push(`not used: ${error.message}`);
      } else cache.push(`not read: ${(error as Error).message}`);
    }
  }
  // The directories to watch before anything is read: from the cache, the
  // ones still there (one that appeared since is found by the walk, and
  // read again once watched: see `TextIndex`); otherwise from a walk.
  const dirs = loaded === undefined
    ? await treeDirs(ws, options.pace)
    : loaded.dirs.filter((dir) => {
      try {
        return Deno.lstatSync(dir).isDirectory;
      } catch {
        return false;
      }
    });
  if (options.stopped?.()) return undefined;
  await options.watch(dirs);
  const counts = { kept: 0, read: 0 };
  let piped = false;
  const texts = options.texts;
  const data = await scanTree(ws, loaded, {
    maxReadBytes: options.maxReadBytes,
    checkIdentity: true,
    pace: options.pace,
    stopped: options.stopped,
    counts,
    texts: texts && (async () => {
      const sink = await texts();
      piped = sink !== undefined;
      return sink;
    }),
  });
  if (data === undefined) return undefined;
  const unchanged = loaded !== undefined && counts.read === 0 &&
    sameOrder(loaded.order, data.order) &&
    JSON.stringify(loaded.skipEvents) === JSON.stringify(data.skipEvents) &&
    loaded.dirs.join("\0") === data.dirs.join("\0");
  if (options.cacheFile !== undefined && !unchanged) {
    try {
      saveCache(options.cacheFile, key, data);
      cache.push("saved");
    } catch (error) {
      cache.push(`not saved: ${(error as Error).message}`);
    }
  }
  return { data, ...counts, cache, piped };
}
