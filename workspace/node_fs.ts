/**
 * The system calls under the confined file system: `node:fs`, loaded on
 * first use (keeping Node compatibility off the server's start-up path),
 * opens that never follow a final link (`O_NOFOLLOW`) and never block
 * (`O_NONBLOCK`: a FIFO opens at once instead of waiting for a writer),
 * and a count of the descriptors open, so tests can see that none leak.
 *
 * Deno's own `open` can neither refuse links nor avoid blocking on a
 * FIFO, hence `node:fs`.
 *
 * @module
 */

import { errnoOf } from "./fs_error.ts";

type NodeFs = typeof import("node:fs");
/** A Node stat. */
export type Stats = import("node:fs").Stats;

let fs: NodeFs | undefined;
let loading: Promise<NodeFs> | undefined;
let immediate: ((callback: () => void) => unknown) | undefined;

/** Load `node:fs` (once); the synchronous primitives need it loaded. */
export function loadNodeFs(): Promise<NodeFs> {
  return loading ??= Promise.all([import("node:fs"), import("node:timers")])
    .then(([module, timers]) => {
      immediate = timers.setImmediate;
      return fs = module;
    });
}

/**
 * Give the event loop a turn (a macrotask: timers, I/O and other requests
 * run first). `setImmediate` costs microseconds where a zero-delay
 * `setTimeout` is clamped to milliseconds.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => {
    if (immediate !== undefined) immediate(resolve);
    else setTimeout(resolve, 0);
  });
}

/** Whether {@linkcode loadNodeFs} has finished. */
export function nodeFsLoaded(): boolean {
  return fs !== undefined;
}

/** `node:fs`, once {@linkcode loadNodeFs} has loaded it. */
export function nodeFs(): NodeFs {
  if (fs === undefined) throw new Error("node:fs is not loaded yet");
  return fs;
}

/** The same information as `Deno.FileInfo`, from a Node stat. */
export function fileInfoOf(stats: Stats): Deno.FileInfo {
  return {
    isFile: stats.isFile(),
    isDirectory: stats.isDirectory(),
    isSymlink: stats.isSymbolicLink(),
    size: stats.size,
    mtime: stats.mtime,
    atime: stats.atime,
    birthtime: stats.birthtime ?? null,
    ctime: stats.ctime,
    dev: stats.dev,
    ino: stats.ino,
    mode: stats.mode,
    nlink: stats.nlink,
    uid: stats.uid,
    gid: stats.gid,
    rdev: stats.rdev,
    blksize: stats.blksize,
    blocks: stats.blocks,
    isBlockDevice: stats.isBlockDevice(),
    isCharDevice: stats.isCharacterDevice(),
    isFifo: stats.isFIFO(),
    isSocket: stats.isSocket(),
  };
}

/** An open directory inside the root. */
export interface DirHandle {
  /** Its descriptor (owned by whoever opened it). */
  readonly fd: number;
  /** Its real path relative to the root, "" for the root. */
  readonly real: string;
  /** Device and inode, as opened. */
  readonly dev: number;
  /** See `dev`. */
  readonly ino: number;
}

/** What opening a name gave. */
export type OpenResult =
  | { kind: "open"; fd: number; info: Deno.FileInfo }
  | { kind: "link" }
  | { kind: "missing" }
  | { kind: "denied"; code: string };

// Descriptors openPlain gave and closeFile has not closed.
let openFiles = 0;

/**
 * How many descriptors of names below a root this thread holds open (kept
 * ones included): for tests that check that none leak.
 */
export function openDescriptors(): number {
  return openFiles;
}

/** Close a descriptor {@linkcode openPlain} gave (once; again is a no-op). */
export function closeFile(fd: number): void {
  try {
    nodeFs().closeSync(fd);
    openFiles--;
  } catch {
    // Already closed.
  }
}

/**
 * What a lookup that failed with `error` found: nothing there, or a name
 * it may not look at.
 */
export function notOpened(
  error: unknown,
): { kind: "missing" } | { kind: "denied"; code: string } {
  const code = errnoOf(error);
  if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
  return { kind: "denied", code: code || String(error) };
}

/**
 * `path` opened for reading, not following a final link (as far as the
 * permission layer lets it: see `RootFs.openAt`), never blocking, and its
 * fstat.
 */
export function openPlain(
  path: string,
): { fd: number; stats: Stats } | Exclude<OpenResult, { kind: "open" }> {
  const node = nodeFs();
  const c = node.constants;
  let fd: number;
  try {
    fd = node.openSync(path, c.O_RDONLY | c.O_NOFOLLOW | c.O_NONBLOCK);
  } catch (error) {
    const code = errnoOf(error);
    if (code === "ELOOP" || code === "EMLINK") return { kind: "link" };
    return notOpened(error);
  }
  openFiles++;
  try {
    return { fd, stats: node.fstatSync(fd) };
  } catch (error) {
    closeFile(fd);
    return { kind: "denied", code: errnoOf(error) || String(error) };
  }
}
