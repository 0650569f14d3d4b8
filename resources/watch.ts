/**
 * Watching a workspace for changes to its files: `Deno.watchFs` events,
 * debounced into one report per burst (an editor's save is several events:
 * truncate, write, close, sometimes a rename through a temporary file),
 * then classified into "this file's content changed" and "the list of files
 * changed".
 *
 * @module
 */

import type { ResourceChanges, ResourceWatch } from "../mcp/resource.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { isRealDirectory } from "./listing.ts";
import type { RootUri } from "./uri.ts";

/** Timing of change reports. */
export interface WatchOptions {
  /** A burst ends after this long without events. Default 75 ms. */
  quietMs?: number;
  /** A report goes out at the latest this long after a burst began. Default 1000 ms. */
  maxDelayMs?: number;
  /** Paths remembered per burst; past this, everything counts as changed. Default 10,000. */
  maxPaths?: number;
  /** Told when watching fails (the watch then reports nothing more). */
  onError?: (error: unknown) => void;
}

/**
 * Calls `flush` once per burst of {@linkcode Debouncer.poke} calls: after
 * `quietMs` without a poke, or `maxDelayMs` after the burst's first poke if
 * the pokes never stop (a file written continuously still gets reported).
 */
export class Debouncer {
  readonly #quietMs: number;
  readonly #maxDelayMs: number;
  readonly #flush: () => void;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #burstStart = 0;

  /** Make a debouncer that calls `flush`. */
  constructor(quietMs: number, maxDelayMs: number, flush: () => void) {
    this.#quietMs = quietMs;
    this.#maxDelayMs = maxDelayMs;
    this.#flush = flush;
  }

  /** Note an event: (re)start the quiet period. */
  poke(): void {
    const now = performance.now();
    if (this.#timer === undefined) this.#burstStart = now;
    else clearTimeout(this.#timer);
    const wait = Math.max(
      0,
      Math.min(this.#quietMs, this.#burstStart + this.#maxDelayMs - now),
    );
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#flush();
    }, wait);
  }

  /** Drop a pending flush. */
  close(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/** What the first event of a burst says about a path's existence before it. */
export type Before = "absent" | "present" | "unknown";

/** Where a path stands once its burst is over. */
export type Now = "file" | "directory" | "absent";

/**
 * Classify one path of a burst: whether to report its URI as updated and
 * whether the list of files changed. A file created and deleted within one
 * burst (an editor's temporary file) reports nothing.
 */
export function classify(
  before: Before,
  now: Now,
  firstKind: Deno.FsEvent["kind"],
): { updated: boolean; listChanged: boolean } {
  if (now === "directory") {
    // A directory's own modify events are its entries changing, which
    // arrive as events of their own; created or moved-in directories may
    // bring files whose events were never seen.
    return { updated: false, listChanged: firstKind !== "modify" };
  }
  if (before === "absent" && now === "absent") {
    return { updated: false, listChanged: false };
  }
  return {
    updated: true,
    listChanged: !(before === "present" && now === "file"),
  };
}

// The first event of a path fixes what is known about it before the burst.
function beforeOf(kind: Deno.FsEvent["kind"], index: number): Before {
  switch (kind) {
    case "create":
      return "absent";
    case "modify":
    case "access": // Closing a written file.
    case "remove":
      return "present";
    case "rename":
      // [from, to] pairs: "from" existed; a lone path could be either.
      return index === 0 ? "present" : "unknown";
    default:
      return "unknown";
  }
}

async function nowOf(absolute: string): Promise<Now> {
  try {
    const info = await Deno.stat(absolute);
    return info.isFile ? "file" : info.isDirectory ? "directory" : "absent";
  } catch {
    return "absent";
  }
}

interface Seen {
  before: Before;
  kind: Deno.FsEvent["kind"];
}

/** Directories watched at most; past this, deeper ones go unwatched. */
export const MAX_WATCHED_DIRECTORIES = 50_000;

/**
 * Every real directory inside the root that can be watched, root first: the
 * workspace's own walk, which never follows a link out of the root and
 * leaves out `.git/`, ignored and unreadable directories and names that are
 * not valid UTF-8 (which cannot be named again), and gives the event loop
 * turns as it goes; links to directories inside the root are left out too,
 * since the directories they name are watched under their real paths.
 */
export async function watchableDirectories(
  workspace: Workspace,
  max = MAX_WATCHED_DIRECTORIES,
): Promise<string[]> {
  const found = [workspace.root];
  for await (const entry of workspace.walk()) {
    if (found.length >= max) break;
    if (isRealDirectory(workspace, entry)) found.push(entry.absolute);
  }
  return found;
}

/**
 * A watcher over `paths`, each watched alone (not recursively, which would
 * follow links out of the root). A path that cannot be watched (it vanished,
 * or is unreadable) is dropped rather than failing the others; undefined when
 * none can be.
 */
function watchEach(paths: string[]): Deno.FsWatcher | undefined {
  try {
    return Deno.watchFs(paths, { recursive: false });
  } catch {
    // One bad path fails the whole call: keep those that can be watched.
  }
  const good: string[] = [];
  for (const path of paths) {
    try {
      Deno.watchFs(path, { recursive: false }).close();
      good.push(path);
    } catch {
      // Skipped.
    }
  }
  if (good.length === 0) return undefined;
  try {
    return Deno.watchFs(good, { recursive: false });
  } catch {
    return undefined;
  }
}

/**
 * Watch `workspace`'s root and call `listener` once per burst of changes
 * with the canonical URIs (from `uris`) of files that changed, appeared or
 * vanished, and whether the file list changed. `.git/` and ignored paths
 * are left out.
 *
 * Only real directories inside the root are watched, each on its own: a
 * recursive watch would follow symlinked directories out of the root. When
 * directories appear (or `.gitignore` rules change), the set is listed again
 * and the watcher replaced. A watch that fails is logged through `onError`
 * and never throws. Close the returned watch to stop (the process can then
 * exit).
 */
export function watchWorkspace(
  workspace: Workspace,
  uris: RootUri,
  listener: (changes: ResourceChanges) => void,
  options: WatchOptions = {},
): ResourceWatch {
  const maxPaths = options.maxPaths ?? 10_000;
  const root = workspace.root;
  const prefix = root === "/" ? "/" : `${root}/`;
  let watcher: Deno.FsWatcher | undefined;
  let pending = new Map<string, Seen>();
  let overflow = false;
  let closed = false;
  // Set when the watched directories may no longer be the right ones.
  let relist = false;
  let listing = false;
  // Reports leave in order even though classifying one is asynchronous.
  let reporting: Promise<void> = Promise.resolve();

  const report = async (paths: Map<string, Seen>, all: boolean) => {
    const updated: string[] = [];
    let listChanged = all;
    for (const relative of paths.keys()) {
      if (relative === ".gitignore" || relative.endsWith("/.gitignore")) {
        // New rules can show or hide any file below: read them again, and
        // tell the client the list may have changed.
        workspace.forgetRules(relative.slice(0, -".gitignore".length - 1));
        listChanged = true;
        relist = true;
      }
    }
    for (const [relative, seen] of paths) {
      const now = await nowOf(prefix + relative);
      if (now === "directory" && seen.kind !== "modify") relist = true;
      const ignored = now === "absent"
        ? await workspace.isIgnored(relative, false) ||
          await workspace.isIgnored(relative, true)
        : await workspace.isIgnored(relative, now === "directory");
      if (ignored) continue;
      const verdict = classify(seen.before, now, seen.kind);
      if (verdict.updated) updated.push(uris.uriOf(relative));
      if (verdict.listChanged) listChanged = true;
    }
    if (all) relist = true;
    if (relist) start();
    if (closed || (!all && updated.length === 0 && !listChanged)) return;
    listener(all ? { updated, listChanged, all } : { updated, listChanged });
  };

  const debouncer = new Debouncer(
    options.quietMs ?? 75,
    options.maxDelayMs ?? 1000,
    () => {
      const paths = pending;
      const all = overflow;
      pending = new Map();
      overflow = false;
      reporting = reporting.then(() => report(paths, all)).catch(() => {
        // A failed stat or ignore check loses one report, not the watch.
      });
    },
  );

  const consume = async (current: Deno.FsWatcher) => {
    try {
      for await (const event of current) {
        let relevant = false;
        event.paths.forEach((path, index) => {
          if (!path.startsWith(prefix)) return;
          const relative = path.slice(prefix.length);
          if (relative === "" || relative.split("/").includes(".git")) return;
          relevant = true;
          if (pending.has(relative) || overflow) return;
          if (pending.size >= maxPaths) {
            // A checkout of thousands of files: stop counting, report all.
            overflow = true;
            pending.clear();
            return;
          }
          pending.set(relative, {
            before: beforeOf(event.kind, event.paths.length > 1 ? index : 1),
            kind: event.kind,
          });
        });
        if (relevant) debouncer.poke();
      }
    } catch (error) {
      options.onError?.(error);
    }
  };

  // (Re)lists the directories and replaces the watcher. Events in the gap
  // between the old watcher and the new one are covered by a list_changed:
  // a relist happens only after the list changed anyway.
  const start = (): void => {
    if (closed) return;
    if (listing) {
      relist = true;
      return;
    }
    listing = true;
    relist = false;
    watchableDirectories(workspace).then((directories) => {
      if (closed) return;
      const next = watchEach(directories);
      try {
        watcher?.close();
      } catch {
        // Already closed.
      }
      watcher = next;
      if (next === undefined) {
        options.onError?.(new Error(`cannot watch ${root}`));
      } else consume(next);
    }).catch((error) => options.onError?.(error)).finally(() => {
      listing = false;
      if (relist) start();
    });
  };
  start();

  return {
    close() {
      if (closed) return;
      closed = true;
      debouncer.close();
      try {
        watcher?.close();
      } catch {
        // Already closed.
      }
    },
  };
}
