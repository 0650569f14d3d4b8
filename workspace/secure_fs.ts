/**
 * File system primitives under one root directory that a swap of names
 * cannot lead outside.
 *
 * Every lookup goes one name at a time from an open directory, opening each
 * name with `O_NOFOLLOW` (a link is never followed: the caller reads it and
 * decides) and `O_NONBLOCK` (opening a FIFO returns at once instead of
 * waiting for a writer). Two modes:
 *
 * - Descriptor paths (Linux, when Deno lets us use `/proc/self/fd`, which it
 *   does only under `--allow-all`): a name is reached through
 *   `/proc/self/fd/<dir>/<name>`, so it is looked up in the very directory
 *   that was opened and checked. No window at all.
 * - Re-checked opens (everywhere else, including the server's usual
 *   `--allow-read`, where Deno also opens a path's real path, following a
 *   final link): a name is reached by its path from the root, and what is
 *   read is bracketed. The times of the directories on the path, from the
 *   root down, are read before (a settled reading: still long enough that
 *   any later change moves them) and again after; unchanged, no name on
 *   the path changed in between, so the path named the same thing all
 *   along. Listings, a walk's metadata and the opens of files whose bytes
 *   are handed out are read so. Other opens (a `.gitignore`, a link's
 *   target looked up to be listed) are checked after the fact: the path
 *   must name the opened file and the directory's path must still lead to
 *   the directory held, each twice in turn, which makes a swap out and
 *   back unlikely to pass unseen, not impossible.
 *
 * Deno's own `open` can neither refuse links nor avoid blocking on a FIFO,
 * so files are opened with `node:fs`; it is loaded on first use, keeping
 * Node compatibility off the server's start-up path.
 *
 * @module
 */

import { COARSE_RACY_MS, isRacy } from "./racy.ts";

type NodeFs = typeof import("node:fs");
type Stats = import("node:fs").Stats;

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

function nodeFs(): NodeFs {
  if (fs === undefined) throw new Error("node:fs is not loaded yet");
  return fs;
}

/** The errno code of a failed call ("ENOENT", "ELOOP", …) or "". */
export function errnoOf(error: unknown): string {
  if (typeof error !== "object" || error === null) return "";
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") return code;
  switch ((error as { name?: unknown }).name) {
    case "NotFound":
      return "ENOENT";
    case "NotADirectory":
      return "ENOTDIR";
    case "PermissionDenied":
      return "EACCES";
    case "FilesystemLoop":
      return "ELOOP";
    case "InvalidData":
      return "EINVAL";
    default:
      return "";
  }
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

/**
 * Regular files up to this size keep their descriptor open after a read,
 * for the next open of the same name (see {@linkcode RootFs.openAt}).
 */
export const CACHED_FILE_BYTES = 256 * 1024;

/**
 * Descriptors kept open that way, at most, per thread (module instance):
 * the main thread's and each scan worker's.
 */
export const CACHED_FILES = 32;

/**
 * Whether `dev` (a file's device) is a block device on Linux: a local
 * disk. Network file systems, FUSE, tmpfs and overlays get anonymous
 * devices (major 0; btrfs too, which only loses the kept descriptors).
 * Elsewhere device numbers mean other things, and none is trusted.
 */
export function onBlockDevice(dev: number | null | undefined): boolean {
  if (Deno.build.os !== "linux" || !dev) return false;
  const major = ((dev >>> 8) & 0xfff) | (Math.floor(dev / 2 ** 32) & ~0xfff);
  return major !== 0;
}

/** A descriptor kept open for the next open of the same name. */
interface CachedFile {
  key: string;
  fd: number;
  // The file as opened: any change of these and the name is opened anew.
  dev: number;
  ino: number;
  mode: number;
  uid: number;
  gid: number;
  ctime: number;
  // Handles using the descriptor now; it is closed when evicted and unused.
  users: number;
  evicted: boolean;
}

// By directory (device:inode) and name, least recently used first.
const cachedFiles = new Map<string, CachedFile>();
// The same entries by descriptor, while their descriptor is open.
const sharedFds = new Map<number, CachedFile>();

/** How many descriptors are kept open now (in use or not). */
export function keptDescriptors(): number {
  return sharedFds.size;
}

function evict(entry: CachedFile): void {
  entry.evicted = true;
  if (cachedFiles.get(entry.key) === entry) cachedFiles.delete(entry.key);
  if (entry.users === 0) closeShared(entry);
}

function closeShared(entry: CachedFile): void {
  sharedFds.delete(entry.fd);
  closeFile(entry.fd);
}

// Descriptors openPlain gave and closeFile has not closed.
let openFiles = 0;

/**
 * How many descriptors of names below a root this thread holds open (kept
 * ones included): for tests that check that none leak.
 */
export function openDescriptors(): number {
  return openFiles;
}

// Close a descriptor openPlain gave.
function closeFile(fd: number): void {
  try {
    nodeFs().closeSync(fd);
    openFiles--;
  } catch {
    // Already closed.
  }
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

/** How {@linkcode RootFs.openAt} checks what it opens (re-checked mode). */
export interface OpenOptions {
  /**
   * The name was listed as no link: saves the lstat that tells a link
   * apart (a link found there is refused as changed).
   */
  listedPlain?: boolean;
  /**
   * What an lstat of the name read in a bracket (see
   * {@linkcode RootFs.lstatAllAt}): a file opened that is that very file,
   * unchanged, is the one inside the root, with no check of its path.
   */
  listed?: Deno.FileInfo;
  /**
   * Below the root, check the open in a bracket of the directories on
   * its path (see {@linkcode RootFs.list}), which no loop of swaps can
   * pass, rather than by checks of the path after it, which make an
   * escape unlikely, not impossible. It may then throw for the caller to
   * try again. Whatever is read and handed out should be opened so.
   */
  bracketed?: boolean;
}

/**
 * The primitives, bound to one root. Opens report what they found rather
 * than throwing for the expected outcomes (missing, a link, no permission).
 */
export class RootFs {
  /** Real absolute path of the root. */
  readonly root: string;
  /** Whether names are reached through `/proc/self/fd`. */
  readonly descriptorPaths: boolean;
  /** The root, held open for the life of the process. */
  readonly rootDir: DirHandle;
  // Settled readings of directories by real path (see list).
  readonly #stamps = new Map<string, DirStamp>();

  // The user running the server, when Deno lets it be known (see
  // #settledStamp).
  readonly #ownUid: number | undefined;

  private constructor(
    root: string,
    rootDir: DirHandle,
    proc: boolean,
    ownUid: number | undefined,
  ) {
    this.root = root;
    this.rootDir = rootDir;
    this.descriptorPaths = proc;
    this.#ownUid = ownUid;
  }

  /**
   * Open the real absolute directory `root`. `descriptorPaths: false`
   * forces the portable re-checking mode (tests exercise both).
   */
  static async open(root: string, descriptorPaths = true): Promise<RootFs> {
    const node = await loadNodeFs();
    const c = node.constants;
    const fd = node.openSync(root, c.O_RDONLY | c.O_DIRECTORY);
    const stats = node.fstatSync(fd);
    const rootDir = { fd, real: "", dev: stats.dev, ino: stats.ino };
    let proc = false;
    if (descriptorPaths && Deno.build.os === "linux") {
      try {
        const seen = Deno.statSync(`/proc/self/fd/${fd}`);
        proc = seen.dev === stats.dev && seen.ino === stats.ino;
      } catch {
        proc = false;
      }
    }
    return new RootFs(root, rootDir, proc, ownUid());
  }

  /** Absolute path of a root-relative real path (for messages, fallback). */
  absolute(real: string): string {
    if (real === "") return this.root;
    return this.root === "/" ? `/${real}` : `${this.root}/${real}`;
  }

  /** A path that names `name` inside the open directory `dir`. */
  pathAt(dir: DirHandle, name: string): string {
    if (this.descriptorPaths) return `/proc/self/fd/${dir.fd}/${name}`;
    return this.absolute(dir.real === "" ? name : `${dir.real}/${name}`);
  }

  /** A path that names the open directory `dir` itself. */
  pathOf(dir: DirHandle): string {
    return this.descriptorPaths
      ? `/proc/self/fd/${dir.fd}`
      : this.absolute(dir.real);
  }

  /**
   * Open `name` in `dir` for reading, never following a final link and
   * never blocking. In the re-checked mode what was opened is checked to
   * be what the path names inside the root, as `options` says.
   *
   * Throws, with `options.bracketed` only, as {@linkcode RootFs.list}
   * does: code `EAGAIN` and `waitMs` when a directory on the path changed
   * too recently to tell, `ESTALE` when one changed during the open.
   */
  openAt(
    dir: DirHandle,
    name: string,
    options: OpenOptions = {},
  ): OpenResult {
    const { listedPlain = false, listed, bracketed = false } = options;
    // A small file opened before keeps its descriptor: when the name still
    // names that very file, checked as an open is, it is opened again
    // without a new descriptor (fewer system calls and permission checks).
    const key = `${dir.dev}:${dir.ino}/${name}`;
    const cached = cachedFiles.get(key);
    if (cached !== undefined) {
      const info = this.#stillCached(dir, name, cached);
      if (info !== undefined) {
        cached.users++;
        cachedFiles.delete(key);
        cachedFiles.set(key, cached);
        return { kind: "open", fd: cached.fd, info };
      }
      evict(cached);
    }
    // In a directory below the root, a path is only as good as the
    // directories on it: bracketed, they are watched around the open.
    const bracket = bracketed && !this.descriptorPaths && dir.real !== "";
    if (bracket && listed === undefined) {
      return this.#openBracketed(dir, name, key);
    }
    if (!this.descriptorPaths && !listedPlain) {
      // Deno's permission layer opens the path's real path, following a
      // final link despite O_NOFOLLOW: tell links apart before opening.
      let seen: Deno.FileInfo;
      try {
        // A hint only: what is opened is checked afterwards.
        seen = this.peekAt(dir, name);
      } catch (error) {
        return notOpened(error);
      }
      if (seen.isSymlink) return { kind: "link" };
    }
    const opened = openPlain(this.pathAt(dir, name));
    if (!("stats" in opened)) return opened;
    const { fd, stats } = opened;
    if (
      !this.descriptorPaths &&
      !(listed !== undefined && sameFile(listed, stats))
    ) {
      if (bracket) {
        // Not the file listed: opened again, as any path is.
        closeFile(fd);
        return this.#openBracketed(dir, name, key);
      }
      if (!this.#stillAt(dir, name, stats)) {
        closeFile(fd);
        return { kind: "denied", code: "ESTALE" };
      }
      // Checked after the fact, which makes an escape unlikely, not
      // impossible: not kept for a later open to hand out.
      if (dir.real !== "") return { kind: "open", fd, info: fileInfoOf(stats) };
    }
    const info = fileInfoOf(stats);
    this.#keep(key, fd, info);
    return { kind: "open", fd, info };
  }

  // Re-checked mode, below the root: `name` in `dir` opened in a bracket
  // of the directories from the root down to `dir` itself (see list).
  // Each of them unchanged from a settled reading before to one after
  // means every name on the path named the same thing all along, so the
  // lstat of `name` in between saw what the open got: the open is the
  // file inside the root when the two agree. (A check of the path after
  // the open, however often repeated, can fall in step with a loop of
  // swaps. A directory's change time cannot be set back, and settled
  // readings wait until a change would move it: see #settledStamp.)
  #openBracketed(dir: DirHandle, name: string, key: string): OpenResult {
    let opened = { kind: "missing" } as OpenResult;
    let seen: Deno.FileInfo | undefined;
    try {
      this.#bracketed(dir, () => {
        try {
          seen = this.peekAt(dir, name);
        } catch (error) {
          opened = notOpened(error);
          return;
        }
        if (seen.isSymlink) {
          opened = { kind: "link" };
          return;
        }
        const plain = openPlain(this.pathAt(dir, name));
        // Set before the bracket's last check, which may throw: the catch
        // below then closes it.
        opened = "stats" in plain
          ? { kind: "open", fd: plain.fd, info: fileInfoOf(plain.stats) }
          : plain;
      }, true);
    } catch (error) {
      if (opened.kind === "open") closeFile(opened.fd);
      throw error;
    }
    if (opened.kind !== "open") return opened;
    if (seen?.dev !== opened.info.dev || seen?.ino !== opened.info.ino) {
      // Cannot be, with the directory unchanged; refused all the same.
      closeFile(opened.fd);
      throw Object.assign(new Error("the file changed while opened"), {
        code: "ESTALE",
      });
    }
    this.#keep(key, opened.fd, opened.info);
    return opened;
  }

  // Keep the descriptor of a small regular file whose metadata has not
  // changed lately, for the next open of the same name.
  #keep(key: string, fd: number, info: Deno.FileInfo): void {
    const ctime = info.ctime?.getTime() ?? NaN;
    if (
      !info.isFile || info.size > CACHED_FILE_BYTES ||
      // Changed within the clock's granularity of now: not kept. (Deno
      // gives change times in whole seconds; modification times tell the
      // clock's real granularity.)
      isRacy(Date.now(), info.mtime?.getTime() ?? NaN, ctime) ||
      // Only on a local disk: a network or FUSE mount answers lstat from an
      // attribute cache, which would keep an old descriptor looking current
      // while the file changed on the other side.
      !onBlockDevice(info.dev)
    ) return;
    if (cachedFiles.size >= CACHED_FILES) {
      evict(cachedFiles.values().next().value as CachedFile);
    }
    const entry: CachedFile = {
      key,
      fd,
      dev: info.dev ?? 0,
      ino: info.ino ?? 0,
      mode: info.mode ?? 0,
      uid: info.uid ?? 0,
      gid: info.gid ?? 0,
      ctime,
      users: 1,
      evicted: false,
    };
    cachedFiles.set(key, entry);
    sharedFds.set(fd, entry);
  }

  // The metadata of what `name` in `dir` names, when that is still the
  // kept file, unchanged (no link, same inode, mode, owner and ctime: any
  // change of the file's metadata moves its ctime), checked as `#stillAt`
  // checks an open: twice around checks of the directory's path, except
  // in the root and with descriptor paths, where no swap can come between.
  #stillCached(
    dir: DirHandle,
    name: string,
    kept: CachedFile,
  ): Deno.FileInfo | undefined {
    const path = this.pathAt(dir, name);
    const named = () => {
      try {
        const info = Deno.lstatSync(path);
        return !info.isSymlink && info.dev === kept.dev &&
            info.ino === kept.ino && info.mode === kept.mode &&
            info.uid === kept.uid && info.gid === kept.gid &&
            info.ctime?.getTime() === kept.ctime
          ? info
          : undefined;
      } catch {
        return undefined;
      }
    };
    if (this.descriptorPaths || dir.real === "") return named();
    if (named() === undefined || !this.#dirStill(dir)) return undefined;
    const info = named();
    return info !== undefined && this.#dirStill(dir) ? info : undefined;
  }

  /**
   * Step through `name` in `dir` on the way to something below it. In the
   * re-checked mode no descriptor is needed (every use is by path, checked
   * by identity), so a directory is identified by lstat, read twice around
   * checks of `dir`: its handle then has no descriptor (`fd` -1). With
   * descriptor paths it is opened like any name. `toList`: the directory
   * is stepped into to be listed (named as listed, no link), and nothing
   * else: one reading will do (the listing checks it). `bracketed`: what
   * is reached through it is opened in a bracket (see openAt), which checks
   * the whole path: one reading will do too.
   */
  stepAt(
    dir: DirHandle,
    name: string,
    toList = false,
    bracketed = false,
  ): OpenResult {
    if (this.descriptorPaths) {
      return this.openAt(dir, name, { listedPlain: toList });
    }
    let info: Deno.FileInfo;
    try {
      // A directory stepped into only to be listed, or to open something
      // in a bracket, needs one reading: the bracket checks that the path
      // leads to this very directory (see list).
      info = toList || bracketed
        ? this.peekAt(dir, name)
        : this.lstatAt(dir, name);
    } catch (error) {
      return notOpened(error);
    }
    if (info.isSymlink) return { kind: "link" };
    if (!info.isDirectory) return { kind: "missing" };
    return { kind: "open", fd: -1, info };
  }

  /** The directory just opened as `fd`, as a handle (it owns `fd`). */
  dirHandle(fd: number, real: string, info: Deno.FileInfo): DirHandle {
    return { fd, real, dev: info.dev ?? 0, ino: info.ino ?? 0 };
  }

  /**
   * lstat of `name` in `dir` without the re-checks: a hint (is it a link?
   * has it changed?) for callers that check what they then open.
   */
  peekAt(dir: DirHandle, name: string): Deno.FileInfo {
    return Deno.lstatSync(this.pathAt(dir, name));
  }

  /**
   * Whether `name` in `dir` may exist: false only when following it finds
   * nothing (no such entry, or a link to nothing). Much cheaper than a
   * failing lstat, which throws: a hint for callers that look for an
   * optional file (a `.gitignore`), whose true answer they then check.
   */
  mayExistAt(dir: DirHandle, name: string): boolean {
    try {
      return nodeFs().existsSync(this.pathAt(dir, name));
    } catch {
      // Not allowed to look: let the caller's own lookup say why.
      return true;
    }
  }

  /** lstat of `name` in `dir` (metadata only; a link is not followed). */
  lstatAt(dir: DirHandle, name: string): Deno.FileInfo {
    const path = this.pathAt(dir, name);
    // The root's path never changes while it is held: nothing to check
    // between two readings, so one is as good as two.
    if (this.descriptorPaths || dir.real === "") return Deno.lstatSync(path);
    // Twice, with the directory checked after each: both must agree.
    const first = Deno.lstatSync(path);
    this.#checkDir(dir);
    const second = Deno.lstatSync(path);
    this.#checkDir(dir);
    if (first.dev !== second.dev || first.ino !== second.ino) {
      throw Object.assign(new Error("entry changed while read"), {
        code: "ESTALE",
      });
    }
    return second;
  }

  /** The target text of the link `name` in `dir`. */
  readLinkAt(dir: DirHandle, name: string): string {
    if (this.descriptorPaths) return Deno.readLinkSync(this.pathAt(dir, name));
    this.#checkDir(dir);
    const target = Deno.readLinkSync(this.pathAt(dir, name));
    this.#checkDir(dir);
    return target;
  }

  /**
   * The entries of the open directory `dir`.
   *
   * Re-checked mode lists by path, and a path can be redirected between
   * any two checks of it: a loop swapping a directory with a link out and
   * back can fall in step with the checks, however many there are. So the
   * listing is bracketed by the directories above `dir` instead: each one's
   * times are read before (a settled reading, possibly kept from earlier)
   * and again after, deepest first. A directory whose entries do not
   * change keeps every name naming the same thing; an entry renamed,
   * added or removed moves its directory's modification time past any
   * settled reading. Unchanged times above, and `dir` itself found at its
   * path in between, mean the path led to `dir` when it was read.
   *
   * Throws with code `EAGAIN` and `waitMs` when a directory above changed
   * too recently for its times to tell (call again after that long), and
   * with `ESTALE` when one changed while `dir` was read.
   */
  list(dir: DirHandle): Deno.DirEntry[] {
    const path = this.pathOf(dir);
    return this.#bracketed(dir, () => [...Deno.readDirSync(path)]);
  }

  /**
   * lstat of each of `names` in `dir` (metadata only; links not followed),
   * in order: an entry's own failure (gone, not allowed) is its `Error`.
   * In the re-checked mode they are read in one bracket, as
   * {@linkcode RootFs.list} reads a directory: one lstat a name instead of
   * two around two checks of the directory's path. Throws as `list` does
   * when a directory above changes.
   */
  lstatAllAt(
    dir: DirHandle,
    names: readonly string[],
  ): (Deno.FileInfo | Error)[] {
    return this.#bracketed(dir, () =>
      names.map((name) => {
        try {
          return Deno.lstatSync(this.pathAt(dir, name));
        } catch (error) {
          return error instanceof Error ? error : new Error(String(error));
        }
      }));
  }

  // `read` (by path, inside `dir`) bracketed by settled readings of the
  // directories above `dir` (see list), and of `dir` itself with `within`
  // (for a read of a name in it); as it is, with descriptor paths or in
  // the root, whose own path is trusted.
  #bracketed<T>(dir: DirHandle, read: () => T, within = false): T {
    if (this.descriptorPaths || dir.real === "") return read();
    const above = [""];
    for (let at = dir.real.indexOf("/"); at !== -1;) {
      above.push(dir.real.slice(0, at));
      at = dir.real.indexOf("/", at + 1);
    }
    if (within) above.push(dir.real);
    const before = above.map((real) => this.#settledStamp(real));
    const own = before[before.length - 1];
    if (!within) this.#checkDir(dir);
    else if (own.dev !== dir.dev || own.ino !== dir.ino) {
      // Its path names another directory than the one reached.
      this.#stamps.delete(dir.real);
      throw Object.assign(new Error("a directory changed"), {
        code: "ESTALE",
      });
    }
    const result = read();
    // Deepest first: each reading of a directory falls while the one
    // above it is known unchanged, so it names what it named before.
    for (let i = above.length - 1; i >= 0; i--) {
      if (!this.#stampHolds(above[i], before[i])) {
        // Read afresh next time, every one: those above this one were not
        // checked, and may have changed with it (a swap moves both).
        for (const real of above) this.#stamps.delete(real);
        throw Object.assign(new Error("a directory above changed"), {
          code: "ESTALE",
        });
      }
    }
    return result;
  }

  /**
   * Release a descriptor {@linkcode RootFs.openAt} gave (never the root's;
   * -1 is none): closed, unless it is kept for the next open of its name.
   */
  close(fd: number): void {
    if (fd === this.rootDir.fd || fd === -1) return;
    const shared = sharedFds.get(fd);
    if (shared !== undefined) {
      shared.users--;
      if (shared.evicted && shared.users === 0) closeShared(shared);
      return;
    }
    closeFile(fd);
  }

  /** fstat of an open descriptor. */
  stat(fd: number): Deno.FileInfo {
    return fileInfoOf(nodeFs().fstatSync(fd));
  }

  /** Read synchronously into `buffer` from `position`; bytes read. */
  readSync(fd: number, buffer: Uint8Array, position: number): number {
    return nodeFs().readSync(fd, buffer, 0, buffer.length, position);
  }

  /** Read asynchronously (off the main thread) into `buffer`. */
  read(fd: number, buffer: Uint8Array, position: number): Promise<number> {
    return new Promise((resolve, reject) =>
      nodeFs().read(
        fd,
        buffer,
        0,
        buffer.length,
        position,
        (error, read) => error ? reject(error) : resolve(read),
      )
    );
  }

  // A settled reading of the directory at `real` (see list): kept from
  // earlier when there is one, else read now, refused (EAGAIN) when its
  // last change is too recent for its times to be sure to move again.
  #settledStamp(real: string): DirStamp {
    const kept = this.#stamps.get(real);
    if (kept !== undefined) return kept;
    const now = Date.now();
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(this.absolute(real));
    } catch (error) {
      throw Object.assign(new Error("a directory above is gone"), {
        code: errnoOf(error) || "ESTALE",
      });
    }
    if (!info.isDirectory) {
      throw Object.assign(new Error("a directory above changed"), {
        code: "ESTALE",
      });
    }
    const stamp = stampOf(info);
    // A directory's owner can set its modification time back after a
    // change (utimes); its change time follows the clock, but Deno gives
    // it in whole seconds, so settling it takes up to a second. That is
    // waited for in directories of any owner but the user running the
    // server and root: they may be an adversary's. Ours and root's are
    // trusted not to be (waiting a second after every change would stall
    // every read below a directory that changes often); whoever runs as
    // either could read the files directly.
    const trusted = info.uid === 0 ||
      (info.uid !== null && info.uid === this.#ownUid);
    const waitMs = Math.max(
      settleWait(now, stamp.mtime),
      trusted ? 0 : changeSettleWait(now, stamp.ctime),
    );
    if (waitMs > 0) {
      throw Object.assign(new Error("a directory above changed just now"), {
        code: "EAGAIN",
        waitMs,
      });
    }
    if (this.#stamps.size >= MAX_STAMPS) this.#stamps.clear();
    this.#stamps.set(real, stamp);
    return stamp;
  }

  // Whether the directory at `real` still reads as `stamp`.
  #stampHolds(real: string, stamp: DirStamp): boolean {
    try {
      const now = stampOf(Deno.lstatSync(this.absolute(real)));
      return now.dev === stamp.dev && now.ino === stamp.ino &&
        now.mtime === stamp.mtime && now.ctime === stamp.ctime;
    } catch {
      return false;
    }
  }

  // Fallback mode: does `dir`'s path still lead to the directory held
  // open? (One lstat: if it names that inode, the path leads there now.)
  #checkDir(dir: DirHandle): void {
    if (!this.#dirStill(dir)) {
      throw Object.assign(new Error("directory changed while in use"), {
        code: "ESTALE",
      });
    }
  }

  #dirStill(dir: DirHandle): boolean {
    if (dir.real === "") return true;
    try {
      const info = Deno.lstatSync(this.absolute(dir.real));
      return info.isDirectory && info.dev === dir.dev && info.ino === dir.ino;
    } catch {
      return false;
    }
  }

  // Fallback mode: the opened file must be what `dir`/`name` names, and
  // the directory's path must still lead to `dir`, each checked twice in
  // turn: a swap out and back would have to fall between every check.
  #stillAt(dir: DirHandle, name: string, stats: Stats): boolean {
    const path = this.pathAt(dir, name);
    const named = () => {
      try {
        const info = Deno.lstatSync(path);
        return !info.isSymlink && info.dev === stats.dev &&
          info.ino === stats.ino;
      } catch {
        return false;
      }
    };
    // In the root itself there is no directory to swap: once is enough
    // (what the name then names, not a link, is the file opened).
    if (dir.real === "") return named();
    return named() && this.#dirStill(dir) && named() && this.#dirStill(dir);
  }
}

// The user running this process, when Deno may tell (`--allow-sys=uid`,
// which the server is run with); undefined when it may not.
function ownUid(): number | undefined {
  try {
    if (
      Deno.permissions.querySync({ name: "sys", kind: "uid" }).state !==
        "granted"
    ) {
      return undefined;
    }
    return Deno.uid() ?? undefined;
  } catch {
    return undefined;
  }
}

// What a lookup that failed with `error` found: nothing there, or a name
// it may not look at.
function notOpened(
  error: unknown,
): { kind: "missing" } | { kind: "denied"; code: string } {
  const code = errnoOf(error);
  if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
  return { kind: "denied", code: code || String(error) };
}

// `path` opened for reading, not following a final link (as far as the
// permission layer lets it: see openAt), never blocking, and its fstat.
function openPlain(
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

// Whether `opened` (an fstat) is the regular file `listed` (an lstat read
// in a bracket) described, unchanged since: the same inode, type, owner
// and times. An inode freed and used again since would have new times.
function sameFile(listed: Deno.FileInfo, opened: Stats): boolean {
  return listed.isFile && opened.isFile() && listed.dev === opened.dev &&
    listed.ino === opened.ino && listed.mode === opened.mode &&
    listed.uid === opened.uid && listed.gid === opened.gid &&
    listed.mtime !== null && listed.ctime !== null &&
    listed.mtime.getTime() === opened.mtime.getTime() &&
    listed.ctime.getTime() === opened.ctime.getTime();
}

/** A directory's identity and times, as one reading saw them. */
interface DirStamp {
  dev: number;
  ino: number;
  /** Milliseconds since the epoch; NaN when the system does not say. */
  mtime: number;
  /** See `mtime`. */
  ctime: number;
}

// Settled readings kept, at most (a map by path; cleared when full).
const MAX_STAMPS = 65_536;

function stampOf(info: Deno.FileInfo): DirStamp {
  return {
    dev: info.dev ?? 0,
    ino: info.ino ?? 0,
    mtime: info.mtime?.getTime() ?? NaN,
    ctime: info.ctime?.getTime() ?? NaN,
  };
}

/**
 * A change after a reading gets a time no earlier than one clock tick
 * before it (at most 10 ms: the kernel's coarse clock at 100 Hz; with
 * multigrain times, at least the reading's own). A reading whose last
 * change is older than this is settled: any later change moves its time.
 */
export const SETTLE_MS = 20;

/**
 * How long to wait, at `now`, until a directory whose metadata last
 * changed at `ctime` (ms since the epoch) is settled, as
 * {@linkcode settleWait} says for its modification time; 0 when the
 * system gives no change time. Deno gives change times in whole seconds
 * (whatever the file system keeps), so a change made in the same second
 * would leave one unmoved: settled from SETTLE_MS past the next second.
 */
export function changeSettleWait(now: number, ctime: number): number {
  if (!Number.isFinite(ctime)) return 0;
  return waitPast(
    now,
    ctime,
    ctime % 1000 === 0 ? 1000 + SETTLE_MS : SETTLE_MS,
  );
}

/**
 * How long to wait, at `now`, until a directory last changed at `mtime`
 * (ms since the epoch) is settled; 0 when it is, Infinity when the system
 * gives no time. Whole-second times come from a coarse file system clock
 * and need seconds. A time far enough in the future (an archive's, a
 * clock set back) is settled too: a change now would move it back.
 */
export function settleWait(now: number, mtime: number): number {
  if (!Number.isFinite(mtime)) return Infinity;
  return waitPast(now, mtime, mtime % 1000 === 0 ? COARSE_RACY_MS : SETTLE_MS);
}

// How long, at `now`, until `window` ms have passed since `time`; 0 for a
// time more than `window` ahead (a change now would move it back).
function waitPast(now: number, time: number, window: number): number {
  if (time > now + window) return 0;
  return Math.max(0, time + window - now + 1);
}
