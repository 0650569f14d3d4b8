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

import { decodeText, isProbablyText, SNIFF_BYTES } from "./content.ts";
import { Postings } from "./trigrams.ts";
import {
  type WalkEntry,
  type WalkSkips,
  walkSkips,
  type Workspace,
  WorkspaceError,
} from "./workspace.ts";

/** What a search makes of an indexed file. */
export const FILE_TEXT = 0;
/** A file a search skips (binary, over the read cap, or unreadable). */
export const FILE_SKIPPED = 1;

/** A kind of entry a walk left out, and where. */
export interface SkipEvent {
  /** Position (in walk order) of the first file the walk yielded after it. */
  file: number;
  /** Which counter of {@linkcode WalkSkips} it added to. */
  kind: keyof WalkSkips;
  /** By how much. */
  count: number;
}

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
}

/** Options of {@linkcode TextIndex.start}. */
export interface TextIndexOptions {
  /** Files larger than this are skipped, as the search skips them. */
  maxReadBytes: number;
  /** Told once the first build is done. */
  onReady?: (stats: IndexStats) => void;
  /** Told when the index gives up (it then never answers). */
  onError?: (error: unknown) => void;
  /** A burst of changes is applied after this long without events (ms). */
  quietMs?: number;
}

// Largest file read into the reused buffer.
const SCRATCH_BYTES = 1 << 20;

const SKIP_KINDS = ["unreadable", "vanished", "badNames", "tooDeep"] as const;

// The index works this long at most before the event loop gets a turn in
// which it polls input (a timer's: see `turn`), in milliseconds.
const SLICE_MS = 8;

/** A turn of the event loop in which the runtime polls for I/O. */
function turn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** The ancestors of a relative path, nearest first, without "". */
function ancestors(path: string): string[] {
  const out: string[] = [];
  for (
    let at = path.lastIndexOf("/");
    at > 0;
    at = path.lastIndexOf("/", at - 1)
  ) {
    out.push(path.slice(0, at));
  }
  return out;
}

/** An index of `workspace`'s text, built and kept fresh in the background. */
export class TextIndex {
  readonly #ws: Workspace;
  readonly #options: TextIndexOptions;
  readonly #prefix: string;
  // Made with the first build: its tables are large.
  #postings: Postings | undefined;
  // By id (append-only: an id is never reused).
  #relative: string[] = [];
  #absolute: string[] = [];
  #kinds: number[] = [];
  #lengths: number[] = [];
  #view: IndexView | undefined;
  #dirs: string[] = [];
  #watcher: Deno.FsWatcher | undefined;
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

  /** Changes reported by the watch so far (for tests). */
  get changesSeen(): number {
    return this.#received;
  }

  /** Stop watching and answering. */
  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
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
    this.#unwatch();
    this.#options.onError?.(error);
    this.#wake();
  }

  async #build(): Promise<void> {
    const started = performance.now();
    // Watch first, then read: a change after the watch starts is
    // reported, so what is read afterwards is never missed.
    const dirs: string[] = [];
    let sliceEnd = performance.now() + SLICE_MS;
    for await (const entry of this.#ws.walk()) {
      if (this.#closed) return;
      if (this.#isRealDirectory(entry)) dirs.push(entry.absolute);
      if (performance.now() > sliceEnd) {
        await turn();
        sliceEnd = performance.now() + SLICE_MS;
      }
    }
    this.#watch([this.#ws.root, ...dirs]);
    await this.#scan(new Set());
    if (this.#closed || this.#failed) return;
    const postings = this.#postings as Postings;
    this.#stats = {
      files: this.#view?.order.length ?? 0,
      textFiles: this.#kinds.filter((k) => k === FILE_TEXT).length,
      postings: postings.postings,
      bytes: postings.bytes,
      buildMs: performance.now() - started,
    };
    this.#options.onReady?.(this.#stats);
    this.#wake();
    this.#schedule();
  }

  #isRealDirectory(entry: WalkEntry): boolean {
    return entry.isDirectory &&
      entry.absolute === this.#prefix + entry.relative;
  }

  /**
   * Walk the tree and make a new view: a file already indexed under the
   * same path, reached the same way, and untouched by `changed` (paths
   * reported as changed, and their directories) keeps its id; others are
   * read and indexed.
   */
  async #scan(changed: Set<string>): Promise<void> {
    const previous = new Map<string, number>();
    const view = this.#view;
    this.#postings ??= new Postings();
    // Too many dead ids: start over, so memory does not grow with churn.
    const live = view?.order.length ?? 0;
    if (view !== undefined && this.#postings.nextId > 2 * live + 1024) {
      this.#postings = new Postings();
      this.#relative = [];
      this.#absolute = [];
      this.#kinds = [];
      this.#lengths = [];
    } else if (view !== undefined && !this.#rereadAll) {
      for (const id of view.order) previous.set(this.#relative[id], id);
    }
    this.#rereadAll = false;
    const touched = (relative: string) =>
      changed.has(relative) || ancestors(relative).some((a) => changed.has(a));
    const order: number[] = [];
    const skipEvents: SkipEvent[] = [];
    const dirs: string[] = [this.#ws.root];
    const skips = walkSkips();
    const seen = walkSkips();
    // Record the skips the walk counted since last time, at the place in
    // the file order where they happened.
    const noteSkips = () => {
      for (const kind of SKIP_KINDS) {
        if (skips[kind] === seen[kind]) continue;
        skipEvents.push({
          file: order.length,
          kind,
          count: skips[kind] - seen[kind],
        });
        seen[kind] = skips[kind];
      }
    };
    const scratch = new Uint8Array(
      Math.min(this.#options.maxReadBytes, SCRATCH_BYTES) + 1,
    );
    let sliceEnd = performance.now() + SLICE_MS;
    // Every file is read: its metadata comes with the listing (opens).
    for await (const entry of this.#ws.walk({ skips, opens: true })) {
      if (this.#closed) return;
      if (performance.now() > sliceEnd) {
        await turn();
        sliceEnd = performance.now() + SLICE_MS;
      }
      noteSkips();
      if (this.#isRealDirectory(entry)) dirs.push(entry.absolute);
      if (!entry.isFile) continue;
      const old = previous.get(entry.relative);
      const real = entry.absolute.startsWith(this.#prefix)
        ? entry.absolute.slice(this.#prefix.length)
        : entry.absolute;
      if (
        old !== undefined && this.#absolute[old] === entry.absolute &&
        !touched(entry.relative) && !touched(real)
      ) {
        order.push(old);
        continue;
      }
      order.push(await this.#add(entry, entry.relative, scratch));
    }
    noteSkips();
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
    const postings = this.#postings;
    this.#view = {
      order: Int32Array.from(order),
      relative: this.#relative,
      kinds: this.#kinds,
      lengths: this.#lengths,
      skipEvents,
      matching: (trigrams) => postings.matching(trigrams),
    };
  }

  /** Read and index one file; returns its new id. */
  async #add(
    target: WalkEntry | string,
    relative: string,
    scratch: Uint8Array,
  ): Promise<number> {
    const postings = this.#postings as Postings;
    let id: number;
    let kind = FILE_SKIPPED;
    let length = 0;
    let absolute = typeof target === "string" ? "" : target.absolute;
    try {
      const read = await this.#ws.readFile(target, {
        maxBytes: this.#options.maxReadBytes,
        skipLarger: true,
        scratch,
      });
      absolute = read.absolute;
      const bytes = read.bytes;
      if (read.truncated || !isProbablyText(bytes.subarray(0, SNIFF_BYTES))) {
        id = postings.addNothing();
      } else {
        kind = FILE_TEXT;
        id = postings.addAsciiBytes(bytes);
        if (id === -1) {
          const text = decodeText(bytes);
          id = postings.addText(text);
          length = text.length;
        } else length = bytes.length;
      }
    } catch (error) {
      if (!(error instanceof WorkspaceError)) throw error;
      id = postings.addNothing();
    }
    this.#relative[id] = relative;
    this.#absolute[id] = absolute;
    this.#kinds[id] = kind;
    this.#lengths[id] = length;
    return id;
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
        const churned = (this.#postings?.nextId ?? 0) > 2 * live + 1024;
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
    if (view === undefined) return false;
    const byAbsolute = new Map<string, number[]>();
    for (let at = 0; at < view.order.length; at++) {
      const id = view.order[at];
      const absolute = this.#absolute[id];
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
    const scratch = new Uint8Array(
      Math.min(this.#options.maxReadBytes, SCRATCH_BYTES) + 1,
    );
    let sliceEnd = performance.now() + SLICE_MS;
    for (const at of positions) {
      if (performance.now() > sliceEnd) {
        await turn();
        sliceEnd = performance.now() + SLICE_MS;
      }
      const relative = this.#relative[order[at]];
      order[at] = await this.#add(relative, relative, scratch);
    }
    this.#view = { ...view, order };
    return true;
  }
}
