/**
 * An in-memory index of a workspace's files, for searches that must not
 * read every file: the files a walk yields, in the walk's order, each
 * with what a search would make of it (text of so many characters, or
 * skipped as binary, oversized or unreadable), and the trigram postings of
 * the text files (`trigrams.ts`).
 *
 * It is built from the workspace's own walk and reads, so it holds exactly
 * the files a scan would consider (`.gitignore` rules, `.git/` skipped,
 * links confined to the root, binary and oversized files skipped, UTF-16
 * decoded). It is built in the background, giving the event loop a turn
 * every few milliseconds, and kept fresh by watching every real directory
 * of the tree: a file whose content changes is indexed again; anything
 * else (files or directories appearing, vanishing or renamed, `.gitignore`
 * rules changing) walks the tree again, reading only what changed.
 *
 * {@linkcode TextIndex.view} answers only while the index has caught up
 * with every change the watch has reported (events received, counted, and
 * applied): callers scan when it answers undefined, so an answer from the
 * index is never older than the last change seen.
 *
 * @module
 */

import { buildIndex, type BuildOutcome } from "./index_build.ts";
import { cacheFile } from "./index_cache.ts";
import {
  addFile,
  dataFromParts,
  FILE_SKIPPED,
  FILE_TEXT,
  IDENTITY_FIELDS,
  type IndexData,
  scanTree,
  scratchFor,
  type SkipEvent,
} from "./index_data.ts";
import type { IndexJob, IndexReply } from "./index_worker.ts";
import type { Workspace } from "./workspace.ts";
import { moduleFileBeside } from "./module_file.ts";

export { FILE_SKIPPED, FILE_TEXT, type SkipEvent };

/** The index as one consistent snapshot, for one query. */
export interface IndexView {
  /** The ids of the files, in the walk's order. */
  readonly order: Int32Array;
  /** Each id's root-relative path. */
  readonly relative: readonly string[];
  /** Each id's {@linkcode FILE_TEXT} or {@linkcode FILE_SKIPPED}. */
  readonly kinds: readonly number[];
  /** Each text id's length in UTF-16 code units, as decoded. */
  readonly lengths: readonly number[];
  /** An id's size in bytes when it was read; NaN where unknown. */
  size(id: number): number;
  /** What the walk left out, in order. */
  readonly skipEvents: readonly SkipEvent[];
  /** Marks, by id, of the files holding every one of `trigrams`. */
  matching(trigrams: readonly number[]): Uint8Array;
}

/** Numbers on the index, for logs and the bench. */
export interface IndexStats {
  /** Files indexed (text and skipped). */
  files: number;
  /** Text files among them. */
  textFiles: number;
  /** (trigram, file) pairs stored. */
  postings: number;
  /** Bytes of the postings' tables and pages. */
  bytes: number;
  /** How long the first build took, in ms. */
  buildMs: number;
  /** Files read by the first build (the others came from the cache). */
  read: number;
  /** Files whose entries came from the cache, unchanged. */
  kept: number;
  /** Whether the first build ran on a worker thread. */
  worker: boolean;
  /** Whether a second worker kept its postings (`postings_pipe.ts`). */
  piped: boolean;
  /** What happened to the cache ("loaded", "saved", why not…); [] without. */
  cache: string[];
}

/** Options of {@linkcode TextIndex.start}. */
export interface TextIndexOptions {
  /** Files larger than this are skipped, as the search skips them. */
  maxReadBytes: number;
  /**
   * Keep the index in this directory between runs (`index_cache.ts`): a
   * start loads it, reads only the files that changed, and saves it when
   * anything did.
   */
  cacheDir?: string;
  /** Build on the main thread even when a worker could (for tests). */
  noWorker?: boolean;
  /** Told once the first build is done. */
  onReady?: (stats: IndexStats) => void;
  /** Told when the index gives up (it then never answers). */
  onError?: (error: unknown) => void;
  /** A burst of changes is applied after this long without events (ms). */
  quietMs?: number;
}

// The index works this long at most before the event loop gets a turn in
// which it polls input (a timer's: see `turn`), in milliseconds.
const SLICE_MS = 8;

/** A turn of the event loop in which the runtime polls for I/O. */
function turn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** A pacer: a turn of the event loop every {@linkcode SLICE_MS}. */
function pacer(): () => Promise<void> | undefined {
  let sliceEnd = performance.now() + SLICE_MS;
  return () => {
    if (performance.now() <= sliceEnd) return undefined;
    return turn().then(() => {
      sliceEnd = performance.now() + SLICE_MS;
    });
  };
}

// Where the worker module is: beside this one when run from source; in
// the bundle, `deno task bundle` writes it beside the bundle as
// `index_worker.js`. Undefined when neither is there (a bundle copied
// alone): the index is then built on the main thread, in slices.
let found: URL | undefined | null = null;

function workerUrl(): URL | undefined {
  if (found === null) {
    found = moduleFileBeside(import.meta.url, [
      "./index_worker.ts",
      "./index_worker.js",
    ]);
  }
  return found;
}

/** An index of `workspace`'s text, built and kept fresh in the background. */
export class TextIndex {
  readonly #ws: Workspace;
  readonly #options: TextIndexOptions;
  readonly #prefix: string;
  // Made by the first build.
  #data: IndexData | undefined;
  #view: IndexView | undefined;
  #dirs: string[] = [];
  #watcher: Deno.FsWatcher | undefined;
  #worker: Worker | undefined;
  #helper: Worker | undefined;
  #closed = false;
  #failed = false;
  // Changes: counted when reported, and applied.
  #received = 0;
  #applied = 0;
  #pending = new Set<string>();
  #structural = false;
  #rereadAll = false;
  #applying = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stats: IndexStats | undefined;
  #readyWaiters: (() => void)[] = [];

  private constructor(ws: Workspace, options: TextIndexOptions) {
    this.#ws = ws;
    this.#options = options;
    this.#prefix = ws.root === "/" ? "/" : `${ws.root}/`;
  }

  /** Start indexing `workspace` in the background. */
  static start(workspace: Workspace, options: TextIndexOptions): TextIndex {
    const index = new TextIndex(workspace, options);
    index.#build().catch((error) => index.#fail(error));
    return index;
  }

  /** Real absolute path of the workspace's root. */
  get root(): string {
    return this.#ws.root;
  }

  /** Numbers on the index once it is built; undefined before. */
  get stats(): IndexStats | undefined {
    return this.#stats;
  }

  /**
   * The index, when it is built and has applied every change reported;
   * otherwise undefined (the caller scans instead).
   */
  view(): IndexView | undefined {
    if (this.#failed || this.#closed) return undefined;
    if (this.#received !== this.#applied) return undefined;
    return this.#view;
  }

  /**
   * Resolves once the index answers (built, every reported change
   * applied), or it gave up or was closed.
   */
  whenCurrent(): Promise<void> {
    if (this.#failed || this.#closed || this.view() !== undefined) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#readyWaiters.push(resolve));
  }

  /** Whether the index is still kept: neither closed nor given up. */
  get live(): boolean {
    return !this.#closed && !this.#failed;
  }

  /** Changes reported by the watch so far (for tests). */
  get changesSeen(): number {
    return this.#received;
  }

  /** Stop watching and answering. */
  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#worker?.terminate();
    this.#worker = undefined;
    this.#helper?.terminate();
    this.#helper = undefined;
    this.#unwatch();
    this.#wake();
  }

  #wake(): void {
    if (!this.#failed && !this.#closed && this.view() === undefined) return;
    const waiters = this.#readyWaiters;
    this.#readyWaiters = [];
    for (const resolve of waiters) resolve();
  }

  #fail(error: unknown): void {
    if (this.#closed) return;
    this.#failed = true;
    this.#worker?.terminate();
    this.#worker = undefined;
    this.#helper?.terminate();
    this.#helper = undefined;
    this.#unwatch();
    this.#options.onError?.(error);
    this.#wake();
  }

  async #build(): Promise<void> {
    const started = performance.now();
    const cache = this.#options.cacheDir === undefined
      ? undefined
      : cacheFile(this.#options.cacheDir, {
        root: this.#ws.root,
        includeIgnored: this.#ws.includeIgnored,
        maxReadBytes: this.#options.maxReadBytes,
      });
    const url = this.#options.noWorker ? undefined : workerUrl();
    let outcome: BuildOutcome | undefined;
    let worker = false;
    if (url !== undefined) {
      outcome = await this.#buildOnWorker(url, cache);
      worker = outcome !== undefined;
    }
    if (outcome === undefined && !this.#closed && !this.#failed) {
      // No worker: the same build here, giving the event loop turns.
      outcome = await buildIndex(this.#ws, {
        maxReadBytes: this.#options.maxReadBytes,
        cacheFile: cache,
        watch: (dirs) => Promise.resolve(this.#watch(dirs)),
        pace: pacer(),
        stopped: () => this.#closed,
      });
    }
    if (outcome === undefined || this.#closed || this.#failed) return;
    this.#adopt(outcome.data);
    const data = outcome.data;
    this.#stats = {
      files: data.order.length,
      textFiles: [...data.order].filter((id) => data.kinds[id] === FILE_TEXT)
        .length,
      postings: data.postings.postings,
      bytes: data.postings.bytes,
      buildMs: performance.now() - started,
      read: outcome.read,
      kept: outcome.kept,
      worker,
      piped: outcome.piped,
      cache: outcome.cache,
    };
    this.#options.onReady?.(this.#stats);
    this.#wake();
    this.#schedule();
  }

  /**
   * The build on a worker; undefined when the worker cannot start (the
   * caller builds here). A worker that starts and then fails fails the
   * index.
   */
  #buildOnWorker(
    url: URL,
    cache: string | undefined,
  ): Promise<BuildOutcome | undefined> {
    let worker: Worker;
    try {
      worker = new Worker(url, { type: "module" });
    } catch {
      return Promise.resolve(undefined);
    }
    this.#worker = worker;
    // A second worker of the same module keeps the postings of a build
    // from nothing (index_worker.ts); without it the first keeps them.
    let helper: Worker | undefined;
    let channel: MessageChannel | undefined;
    try {
      helper = new Worker(url, { type: "module" });
      channel = new MessageChannel();
      helper.postMessage({ postings: true, port: channel.port2 }, [
        channel.port2,
      ]);
    } catch {
      helper?.terminate();
      helper = undefined;
      channel = undefined;
    }
    this.#helper = helper;
    const { promise, resolve, reject } = Promise.withResolvers<
      BuildOutcome | undefined
    >();
    const end = () => {
      worker.terminate();
      helper?.terminate();
      if (this.#worker === worker) this.#worker = undefined;
      if (this.#helper === helper) this.#helper = undefined;
    };
    worker.onmessage = (event: MessageEvent<IndexReply>) => {
      const reply = event.data;
      if ("dirs" in reply) {
        this.#watch(reply.dirs);
        worker.postMessage({ watching: true });
      } else if ("done" in reply) {
        end();
        try {
          resolve({ ...reply, data: dataFromParts(reply.done) });
        } catch (error) {
          reject(error);
        }
      } else {
        end();
        reject(new Error(`the index worker failed: ${reply.error}`));
      }
    };
    worker.onerror = (event) => {
      event.preventDefault();
      end();
      reject(new Error(`the index worker failed: ${event.message}`));
    };
    if (helper !== undefined) {
      helper.onerror = (event) => {
        event.preventDefault();
        end();
        reject(new Error(`the postings worker failed: ${event.message}`));
      };
    }
    const job: IndexJob = {
      root: this.#ws.root,
      includeIgnored: this.#ws.includeIgnored,
      descriptorPaths: false,
      maxReadBytes: this.#options.maxReadBytes,
      cacheFile: cache,
    };
    this.#ws.descriptorPaths().then((descriptorPaths) => {
      const port = channel?.port1;
      worker.postMessage(
        { ...job, descriptorPaths, postings: port },
        port === undefined ? [] : [port],
      );
    }, reject);
    return promise;
  }

  /** Make `data` the index's, and watch the directories it went through. */
  #adopt(data: IndexData): void {
    this.#data = data;
    const dirs = data.dirs;
    if (this.#dirs.join("\0") !== dirs.join("\0")) {
      // Directories not watched while they were read: watch them, and read
      // them again (what changed in them before the watch began was not
      // reported).
      const watched = new Set(this.#dirs);
      this.#watch(dirs);
      for (const dir of dirs) {
        if (!watched.has(dir)) this.#note(dir.slice(this.#prefix.length), true);
      }
    }
    const postings = data.postings;
    this.#view = {
      order: data.order,
      relative: data.relative,
      kinds: data.kinds,
      lengths: data.lengths,
      // The size is the third number of a file's identity.
      size: (id) => data.identity[id * IDENTITY_FIELDS + 2],
      skipEvents: data.skipEvents,
      matching: (trigrams) => postings.matching(trigrams),
    };
  }

  /**
   * Walk the tree and make a new view: a file already indexed under the
   * same path, reached the same way, and untouched by `changed` (paths
   * reported as changed, and their directories) keeps its id; others are
   * read and indexed.
   */
  async #scan(changed: Set<string>): Promise<void> {
    const rereadAll = this.#rereadAll;
    this.#rereadAll = false;
    const data = await scanTree(this.#ws, this.#data, {
      maxReadBytes: this.#options.maxReadBytes,
      changed,
      rereadAll,
      pace: pacer(),
      stopped: () => this.#closed,
    });
    if (data === undefined) return;
    this.#adopt(data);
  }

  #unwatch(): void {
    try {
      this.#watcher?.close();
    } catch {
      // Already closed.
    }
    this.#watcher = undefined;
  }

  #watch(dirs: string[]): void {
    if (this.#closed) return;
    this.#dirs = dirs;
    let watcher: Deno.FsWatcher;
    try {
      watcher = Deno.watchFs(dirs, { recursive: false });
    } catch (error) {
      // A directory that vanished since it was walked: walk again.
      if (error instanceof Deno.errors.NotFound) {
        // Changes are not seen until the next watch: read everything then.
        this.#unwatch();
        this.#dirs = [];
        this.#rereadAll = true;
        this.#note("", true);
        return;
      }
      throw error;
    }
    this.#unwatch();
    this.#watcher = watcher;
    this.#consume(watcher);
  }

  async #consume(watcher: Deno.FsWatcher): Promise<void> {
    try {
      for await (const event of watcher) {
        const structural = event.kind !== "modify" && event.kind !== "access";
        for (const path of event.paths) {
          if (!path.startsWith(this.#prefix) && path !== this.#ws.root) {
            continue;
          }
          const relative = path === this.#ws.root
            ? ""
            : path.slice(this.#prefix.length);
          if (relative.split("/").includes(".git")) continue;
          this.#note(relative, structural);
        }
      }
    } catch (error) {
      if (watcher === this.#watcher) this.#fail(error);
    }
  }

  /** Count one reported change to `relative` and schedule applying it. */
  #note(relative: string, structural: boolean): void {
    if (this.#closed) return;
    this.#received++;
    this.#pending.add(relative);
    if (structural) this.#structural = true;
    this.#schedule();
  }

  #schedule(): void {
    if (this.#applying || this.#stats === undefined || this.#closed) return;
    if (this.#received === this.#applied) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#apply().catch((error) => this.#fail(error));
    }, this.#options.quietMs ?? 20);
  }

  async #apply(): Promise<void> {
    this.#applying = true;
    try {
      while (this.#received !== this.#applied && !this.#closed) {
        const target = this.#received;
        const paths = this.#pending;
        const structural = this.#structural;
        this.#pending = new Set();
        this.#structural = false;
        // Many dead ids (files indexed again and again): the walk starts
        // the postings over.
        const live = this.#view?.order.length ?? 0;
        const churned = (this.#data?.postings.nextId ?? 0) > 2 * live + 1024;
        if (structural || churned || !await this.#refreshFiles(paths)) {
          for (const path of paths) {
            if (path === ".gitignore" || path.endsWith("/.gitignore")) {
              this.#ws.forgetRules(path.slice(0, -".gitignore".length - 1));
            }
          }
          await this.#scan(paths);
        }
        this.#applied = target;
      }
    } finally {
      this.#applying = false;
    }
    this.#wake();
    this.#schedule();
  }

  /**
   * Index again the files whose content `paths` changed, when each is a
   * file already indexed (under its own path or as a link's target) and
   * no `.gitignore`; false (nothing done) otherwise.
   */
  async #refreshFiles(paths: Set<string>): Promise<boolean> {
    const view = this.#view;
    const data = this.#data;
    if (view === undefined || data === undefined) return false;
    const byAbsolute = new Map<string, number[]>();
    for (let at = 0; at < view.order.length; at++) {
      const id = view.order[at];
      const absolute = data.absolute[id];
      const list = byAbsolute.get(absolute);
      if (list === undefined) byAbsolute.set(absolute, [at]);
      else list.push(at);
    }
    const positions: number[] = [];
    for (const path of paths) {
      if (
        path === "" || path === ".gitignore" || path.endsWith("/.gitignore")
      ) {
        return false;
      }
      const found = byAbsolute.get(this.#prefix + path);
      if (found === undefined) return false;
      positions.push(...found);
    }
    const order = Int32Array.from(view.order);
    const scratch = scratchFor(this.#options.maxReadBytes);
    const pace = pacer();
    for (const at of positions) {
      const paced = pace();
      if (paced !== undefined) await paced;
      const relative = data.relative[order[at]];
      order[at] = await addFile(
        this.#ws,
        data,
        relative,
        relative,
        this.#options.maxReadBytes,
        scratch,
      );
    }
    data.order = order;
    this.#view = { ...view, order };
    return true;
  }
}
