/**
 * Sandboxed, read-only access to one root directory: the only way tools and
 * resources reach the file system.
 *
 * A client path is resolved one name at a time from the open root
 * directory (see `secure_fs.ts`): each name is opened without following
 * links and what was opened is what is read, so a swap of a directory for
 * a link between a check and a read cannot lead outside the root. Links
 * are read and followed by this module, and a link whose target leaves
 * the root is refused without touching (or revealing the existence of)
 * anything outside it. A hard link to a file outside cannot be told from
 * an ordinary file: that is the sandbox's known limit.
 *
 * `.git/` is always excluded and `.gitignore` rules (root and nested
 * files) are honoured with git's exact semantics unless the workspace is
 * opened with `includeIgnored`.
 *
 * Names that cannot be read back by their text are never listed: a name
 * that is not valid UTF-8 (its decoded text names no file), and entries
 * whose path would be longer than {@linkcode MAX_PATH_BYTES} or deeper
 * than {@linkcode MAX_PATH_SEGMENTS}. Walks count what they skip.
 *
 * @module
 */

import {
  changing,
  ignored,
  invalid,
  notFound,
  outside,
  unreadable,
  WorkspaceError,
} from "./errors.ts";
import { WorkspaceHandle } from "./file.ts";
import type { ReadOptions, ReadResult } from "./file.ts";
import { IgnoreRules } from "./gitignore.ts";
import { Lru } from "./lru.ts";
import { isRacy } from "./racy.ts";
import {
  type DirHandle,
  errnoOf,
  nodeFsLoaded,
  RootFs,
  yieldToEventLoop,
} from "./secure_fs.ts";

export { WorkspaceError } from "./errors.ts";
export type { WorkspaceErrorCode } from "./errors.ts";
export { WorkspaceHandle } from "./file.ts";
export type { ChunkOptions, ReadOptions, ReadResult } from "./file.ts";

/** Longest client path accepted, in UTF-8 bytes (POSIX PATH_MAX). */
export const MAX_PATH_BYTES = 4096;

/** Most path components in a client path or below the root in a walk. */
export const MAX_PATH_SEGMENTS = 256;

/** Largest `.gitignore` read; rules past this many bytes are not used. */
export const MAX_RULES_BYTES = 1024 * 1024;

/** How a workspace is opened. */
export interface WorkspaceOptions {
  /** Serve files that `.gitignore` rules exclude. Default false. */
  includeIgnored?: boolean;
  /**
   * Reach names through `/proc/self/fd` where available (default true).
   * False forces the portable mode that re-checks each open.
   */
  descriptorPaths?: boolean;
}

/** A client path resolved inside the root. */
export interface ResolvedPath {
  /** POSIX path relative to the root; "" for the root itself. */
  relative: string;
  /** Real absolute path (links resolved): for display only, never open it. */
  absolute: string;
  /** Metadata of what the path named when resolved. */
  info: Deno.FileInfo;
}

/**
 * Read the file `handle` has open (see {@linkcode WorkspaceHandle.read}),
 * with the path it was reached by. The handle's owner disposes of it.
 */
export async function readOpened(
  handle: Pick<WorkspaceHandle, "read" | "relative" | "absolute" | "info">,
  options: ReadOptions,
): Promise<ReadResult & ResolvedPath> {
  const result = await handle.read(options);
  return {
    relative: handle.relative,
    absolute: handle.absolute,
    info: handle.info,
    ...result,
  };
}

/** One entry met by {@linkcode Workspace.walk}. */
export interface WalkEntry {
  /** POSIX path relative to the root, as reached (through links, if any). */
  relative: string;
  /** Real absolute path of what it points to: for display, never open it. */
  absolute: string;
  /** A regular file (or a link to one). */
  isFile: boolean;
  /** A directory (or a link to one). */
  isDirectory: boolean;
  /** 1 for entries directly in the walked directory, 2 below that, … */
  depth: number;
  /** Size in bytes of a file, when the walk was asked for `sizes`. */
  size?: number;
}

/** What a walk left out, counted by kind (see {@linkcode WalkOptions}). */
export interface WalkSkips {
  /** Entries or directories the server may not read. */
  unreadable: number;
  /** Entries that vanished or changed while the walk ran. */
  vanished: number;
  /** Names that are not valid UTF-8, so could not be read back. */
  badNames: number;
  /** Entries deeper or longer than the path limits. */
  tooDeep: number;
}

/** Options of {@linkcode Workspace.walk}. */
export interface WalkOptions {
  /** Client path of the directory to walk; default the root. */
  path?: string;
  /** Deepest level yielded (1 = only the directory's own entries). */
  maxDepth?: number;
  /** Stops the walk (the iterator throws the abort reason). */
  signal?: AbortSignal;
  /**
   * Resume after the walked directory's entry of this name: its entries
   * named up to it (code-unit order), and their contents, are skipped
   * without being checked or read (paging through a large tree).
   */
  after?: string;
  /** Fill {@linkcode WalkEntry.size} for files (one lstat each). */
  sizes?: boolean;
  /**
   * The caller opens the files it is given (a search reads them all).
   * Where names are re-checked, their metadata is then read in runs, as
   * for `sizes`, and an open checks the file it got against it: one lstat
   * a file, in a bracket the run shares, instead of a bracket around each
   * open. What is yielded is the same either way.
   */
  opens?: boolean;
  /** Counters the walk adds to for each entry it skips. */
  skips?: WalkSkips;
  /**
   * Walk this directory entry, yielded by an earlier walk of the same
   * workspace, instead of `path`: the same as `path: from.relative`, but
   * reached from the directory that walk met it in, when that saves a
   * lookup from the root (listing many directories one by one).
   */
  from?: WalkEntry;
}

/** Zeroed counters for {@linkcode WalkOptions.skips}. */
export function walkSkips(): WalkSkips {
  return { unreadable: 0, vanished: 0, badNames: 0, tooDeep: 0 };
}

// Symlink hops allowed while resolving one path, as POSIX's SYMLOOP_MAX.
const MAX_LINK_HOPS = 40;

// A walk gives the event loop a turn at least this often (milliseconds).
const YIELD_EVERY_MS = 8;

// Readings of a directory that keeps changing above (see RootFs.list)
// before it is given up as changing.
const SETTLE_ATTEMPTS = 5;

// The client's error for `path`, whose bracketed reading (see #settled)
// failed with `error`: it kept changing, or it could not be read.
function gaveUp(path: string, error: unknown): WorkspaceError {
  const code = errnoOf(error);
  if (code === "ESTALE" || code === "EAGAIN") return changing(path);
  return unreadable(path, code || String(error));
}

// Most files whose metadata a walk reads in one bracket (see walk).
const SIZE_RUN = 256;

// Listings of at least this many entries are cached for paging.
const CACHE_LISTING_ENTRIES = 256;

const encoder = new TextEncoder();

type Kind = 0 | 1 | 2 | 3; // file, directory, link, other
const FILE = 0;
const DIR = 1;
const LINK = 2;

/** The sorted names of a directory, as read at one moment. */
interface Listing {
  names: string[];
  kinds: Uint8Array;
  stamp: string;
  badNames: number;
}

/** A directory's `.gitignore`, or null, and what it was read from. */
interface RulesEntry {
  stamp: string;
  rules: IgnoreRules | null;
}

/** The rules of one directory on a path and where paths below it start. */
interface Level {
  rules: IgnoreRules | null;
  // Where, in the path's text, what is relative to it starts.
  offset: number;
}

/** A directory a walk has open; `open` turns false when it is closed. */
interface FrameRef {
  dir: DirHandle;
  open: boolean;
  // The ignore levels in force for its entries, when a later walk may
  // start at one of them (see WalkOptions.from).
  levels?: Level[];
}

/** What the walk remembers of an entry it yielded. */
interface EntryOrigin {
  frame: FrameRef;
  name: string;
  link: boolean;
  // The file as a bracketed lstat saw it (WalkOptions.opens).
  listed?: Deno.FileInfo;
}

/** The end of a resolution: what the path named, opened (fd -1: not). */
interface Found {
  relative: string;
  real: string;
  fd: number;
  info: Deno.FileInfo;
  // The open directory, when it is one.
  dir?: DirHandle;
}

function utf8Length(text: string): number {
  // ASCII (the common case) needs no encoding.
  // deno-lint-ignore no-control-regex
  return /^[\x00-\x7f]*$/.test(text)
    ? text.length
    : encoder.encode(text).length;
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function isExcluded(
  levels: readonly Level[],
  count: number,
  path: string,
  isDirectory: boolean,
): boolean {
  let base: string | undefined;
  for (let i = count - 1; i >= 0; i--) {
    const level = levels[i];
    if (level.rules === null) continue;
    base ??= path.slice(path.lastIndexOf("/") + 1);
    const verdict = level.rules.verdictIn(
      path,
      level.offset,
      base,
      isDirectory,
    );
    if (verdict !== undefined) return verdict;
  }
  return false;
}

/** A read-only view of one directory tree. */
export class Workspace {
  /** Real absolute path of the root. */
  readonly root: string;
  /** Whether `.gitignore` rules are ignored (files they exclude are served). */
  readonly includeIgnored: boolean;

  readonly #descriptorPaths: boolean;
  #fs: RootFs | undefined;
  #opening: Promise<RootFs> | undefined;
  // Parsed .gitignore per real directory path, bounded.
  readonly #rules = new Lru<string, RulesEntry>(4096, 32 * 1024 * 1024);
  // Sorted listings of large directories by device, inode and stamp.
  readonly #listings = new Lru<string, Listing>(64, 500_000);
  readonly #origins = new WeakMap<WalkEntry, EntryOrigin>();

  private constructor(
    root: string,
    includeIgnored: boolean,
    descriptorPaths: boolean,
  ) {
    this.root = root;
    this.includeIgnored = includeIgnored;
    this.#descriptorPaths = descriptorPaths;
  }

  /**
   * Open the directory `root` (made real: symlinks resolved). Throws a
   * {@linkcode WorkspaceError} when it is missing or not a directory.
   */
  static async open(
    root: string,
    options: WorkspaceOptions = {},
  ): Promise<Workspace> {
    let real: string;
    try {
      real = await Deno.realPath(root);
    } catch {
      throw new WorkspaceError(
        "not_found",
        root,
        `The workspace root "${root}" does not exist; pass an existing directory with --root.`,
      );
    }
    const info = await Deno.stat(real);
    if (!info.isDirectory) {
      throw new WorkspaceError(
        "not_a_directory",
        root,
        `The workspace root "${root}" is not a directory; pass a directory with --root.`,
      );
    }
    // "/" as root: keep it without a trailing separator problem.
    const normal = real.length > 1 && real.endsWith("/")
      ? real.slice(0, -1)
      : real;
    return new Workspace(
      normal,
      options.includeIgnored ?? false,
      options.descriptorPaths ?? true,
    );
  }

  /** Whether names are reached through `/proc/self/fd` (else re-checked). */
  async descriptorPaths(): Promise<boolean> {
    return (await this.#ready()).descriptorPaths;
  }

  // The root is opened on first use, loading node:fs off the start-up path.
  #ready(): Promise<RootFs> {
    if (this.#fs !== undefined) return Promise.resolve(this.#fs);
    return this.#opening ??= RootFs.open(this.root, this.#descriptorPaths)
      .then((fs) => this.#fs = fs);
  }

  /**
   * Check a client path's text and split it into root-relative segments,
   * without touching the file system. Backslashes and colons are ordinary
   * name characters on POSIX systems, so they are allowed.
   */
  #segments(path: string): string[] {
    if (typeof path !== "string") throw invalid(String(path), "not a string");
    if (path.length > MAX_PATH_BYTES || utf8Length(path) > MAX_PATH_BYTES) {
      throw invalid(path, `it is longer than ${MAX_PATH_BYTES} bytes`);
    }
    if (path.includes("\0")) throw invalid(path, "it contains a NUL byte");
    let rest = path;
    if (rest.startsWith("/")) {
      if (rest.startsWith("//")) throw outside(path); // UNC-like.
      const root = this.root === "/" ? "" : this.root;
      if (rest === root) rest = "";
      else if (rest.startsWith(`${root}/`)) rest = rest.slice(root.length + 1);
      else throw outside(path);
    }
    const segments: string[] = [];
    for (const segment of rest.split("/")) {
      if (segment === "" || segment === ".") continue;
      if (segment === "..") throw outside(path);
      segments.push(segment);
    }
    if (segments.length > MAX_PATH_SEGMENTS) {
      throw invalid(path, `it has more than ${MAX_PATH_SEGMENTS} components`);
    }
    return segments;
  }

  /**
   * Resolve a client path: relative to the root ("" or "." is the root),
   * or absolute inside the root. Refuses NUL bytes, "..", escapes, links
   * pointing outside the root, over-long paths, `.git/` and ignored paths
   * with a {@linkcode WorkspaceError}; missing paths are "not_found".
   * Nothing is kept open: to read, use {@linkcode Workspace.open}.
   */
  async resolve(path: string): Promise<ResolvedPath> {
    using handle = await this.open(path);
    return {
      relative: handle.relative,
      absolute: handle.absolute,
      info: handle.info,
    };
  }

  /**
   * Open a client path, or an entry a walk yielded, as
   * {@linkcode Workspace.resolve} checks it. The handle reads exactly the
   * file that was checked. Close it when done (`using`).
   */
  async open(target: string | WalkEntry): Promise<WorkspaceHandle> {
    const fs = await this.#ready();
    let found: Found;
    try {
      // Opened in a bracket (RootFs.openAt's `bracketed`): a directory on
      // the path that changed too lately, or during the open, is waited
      // out and tried again, a few times.
      found = await this.#settled(
        () =>
          typeof target === "string"
            ? this.#find(fs, target, this.#segments(target), undefined, true)
            : this.#findEntry(fs, target),
        undefined,
      );
    } catch (error) {
      if (error instanceof WorkspaceError) throw error;
      const path = typeof target === "string" ? target : target.relative;
      throw gaveUp(path, error);
    }
    return new WorkspaceHandle(
      fs,
      found.fd,
      found.relative,
      fs.absolute(found.real),
      found.info,
    );
  }

  /**
   * Read a regular file (a client path or a walk entry) up to
   * `options.maxBytes`; refuses anything else with "not_a_file".
   */
  async readFile(
    target: string | WalkEntry,
    options: ReadOptions,
  ): Promise<ReadResult & ResolvedPath> {
    using handle = await this.open(target);
    return await readOpened(handle, options);
  }

  /**
   * Whether `entry`, yielded by a walk of this workspace, is a symbolic
   * link (a walk lists a linked directory but never descends it).
   */
  isLink(entry: WalkEntry): boolean {
    return this.#origins.get(entry)?.link ?? false;
  }

  #findEntry(fs: RootFs, entry: WalkEntry): Found {
    const origin = this.#origins.get(entry);
    const byPath = () =>
      this.#find(
        fs,
        entry.relative,
        this.#segments(entry.relative),
        undefined,
        true,
      );
    if (origin === undefined || !origin.frame.open || origin.link) {
      return byPath();
    }
    // The walk still holds the entry's directory: one open, no lookup.
    const opened = fs.openAt(origin.frame.dir, origin.name, {
      listedPlain: true,
      listed: origin.listed,
      bracketed: true,
    });
    if (opened.kind === "open") {
      const dir = origin.frame.dir;
      return {
        relative: entry.relative,
        real: dir.real === "" ? origin.name : `${dir.real}/${origin.name}`,
        fd: opened.fd,
        info: opened.info,
      };
    }
    if (opened.kind === "missing") throw notFound(entry.relative);
    if (opened.kind === "denied") {
      throw unreadable(entry.relative, opened.code);
    }
    // It became a link since it was listed: resolve it as a path.
    return byPath();
  }

  /**
   * Follow `segments` from the root, one name at a time, reading links
   * ourselves and refusing any whose target leaves the root, checking
   * ignore rules for the path as given and for the real path reached.
   * Returns what the path names, opened when it could be. `levels`, when
   * given, receives the ignore levels of the directories above the end of
   * a non-empty path, as the lookup met them. `bracketed`: what the path
   * names is opened as RootFs.openAt's option says (for a caller that
   * hands out what it reads, and tries again when that throws).
   */
  #find(
    fs: RootFs,
    path: string,
    segments: string[],
    levels?: Level[],
    bracketed = false,
  ): Found {
    const stack: DirHandle[] = [fs.rootDir];
    // Pending names, last first: the requested ones, then link targets.
    const pending = segments.toReversed();
    let done = 0; // Requested segments fully resolved.
    let hops = 0;
    let final: { name: string; fd: number; info: Deno.FileInfo } | undefined;
    const check = !this.includeIgnored;
    // The path as given: its bytes and, per resolved directory, its rules.
    const asked = segments.join("/");
    const askedLevels: Level[] = check
      ? [{ rules: this.#rulesOf(fs, fs.rootDir), offset: 0 }]
      : [];
    let askedEnd = 0; // Length of the requested prefix resolved so far.
    const closeStack = () => {
      for (const dir of stack) fs.close(dir.fd);
      stack.length = 1;
    };
    try {
      while (pending.length > 0) {
        const name = pending.pop() as string;
        if (final !== undefined) {
          // A name after a file: the path cannot exist.
          throw notFound(path);
        }
        if (name === "" || name === ".") {
          // Only from link targets ("a//b", "./b").
        } else if (name === "..") {
          // Only from link targets: the real parent is the held one.
          if (stack.length === 1) throw outside(path);
          fs.close((stack.pop() as DirHandle).fd);
        } else if (name === ".git") {
          throw ignored(path);
        } else {
          const dir = stack[stack.length - 1];
          // A name with more to follow must be a directory: a step will do.
          const opened = pending.length > 0
            ? fs.stepAt(dir, name, false, bracketed)
            : fs.openAt(dir, name, { bracketed });
          if (opened.kind === "missing") throw notFound(path);
          if (opened.kind === "link") {
            if (++hops > MAX_LINK_HOPS) {
              throw invalid(path, "too many levels of symbolic links");
            }
            let target: string;
            try {
              target = fs.readLinkAt(dir, name);
            } catch {
              throw notFound(path); // Gone, or no longer a link.
            }
            if (target === "") throw notFound(path);
            if (target.startsWith("/")) {
              const root = fs.root === "/" ? "" : fs.root;
              if (target !== root && !target.startsWith(`${root}/`)) {
                throw outside(path);
              }
              closeStack();
              target = target.slice(root.length);
            }
            const parts = target.split("/");
            if (pending.length + parts.length > MAX_PATH_BYTES) {
              throw invalid(path, "its links expand to too long a path");
            }
            for (let i = parts.length - 1; i >= 0; i--) pending.push(parts[i]);
          } else if (opened.kind === "denied") {
            if (pending.length > 0 || opened.code === "ESTALE") {
              throw unreadable(path, opened.code);
            }
            // The last name, unreadable: its metadata still answers.
            let info: Deno.FileInfo;
            try {
              info = fs.lstatAt(dir, name);
            } catch {
              throw unreadable(path, opened.code);
            }
            if (info.isSymlink) throw unreadable(path, opened.code);
            final = { name, fd: -1, info };
          } else if (opened.info.isDirectory) {
            const real = dir.real === "" ? name : `${dir.real}/${name}`;
            stack.push(fs.dirHandle(opened.fd, real, opened.info));
          } else {
            final = { name, fd: opened.fd, info: opened.info };
          }
        }
        // A requested segment is done once its link targets are consumed.
        if (pending.length === segments.length - done - 1) {
          const isDir = final === undefined;
          askedEnd += (done === 0 ? 0 : 1) + segments[done].length;
          done++;
          if (
            check &&
            isExcluded(
              askedLevels,
              askedLevels.length,
              asked.slice(0, askedEnd),
              isDir,
            )
          ) throw ignored(path);
          if (check && isDir && done < segments.length) {
            askedLevels.push({
              rules: this.#rulesOf(fs, stack[stack.length - 1]),
              offset: askedEnd + 1,
            });
          }
        }
      }
      if (final === undefined && stack[stack.length - 1].fd === -1) {
        // Stepped into (a link's target ended in "/" or "/."): open it.
        const stepped = stack.pop() as DirHandle;
        const parent = stack[stack.length - 1];
        const name = stepped.real.slice(stepped.real.lastIndexOf("/") + 1);
        const opened = fs.openAt(parent, name, { bracketed });
        if (opened.kind !== "open") throw notFound(path);
        stack.push(fs.dirHandle(opened.fd, stepped.real, opened.info));
        if (
          !opened.info.isDirectory || opened.info.ino !== stepped.ino ||
          opened.info.dev !== stepped.dev
        ) throw unreadable(path, "it changed while being opened");
      }
      const top = stack[stack.length - 1];
      const real = final === undefined
        ? top.real
        : top.real === ""
        ? final.name
        : `${top.real}/${final.name}`;
      const relative = segments.join("/");
      if (check && real !== relative) this.#checkReal(fs, path, stack, final);
      // The levels above the end, for a caller that goes on below it.
      if (levels !== undefined && segments.length > 0) {
        levels.push(...askedLevels);
      }
      if (final !== undefined) {
        return { relative, real, fd: final.fd, info: final.info };
      }
      // The directory's descriptor goes to the caller.
      stack.pop();
      return { relative, real, fd: top.fd, info: fs.stat(top.fd), dir: top };
    } catch (error) {
      if (final !== undefined) fs.close(final.fd);
      throw error;
    } finally {
      closeStack();
    }
  }

  // Reached through links: the real path must not be excluded either.
  #checkReal(
    fs: RootFs,
    path: string,
    stack: DirHandle[],
    final: { name: string } | undefined,
  ): void {
    const real = final === undefined
      ? stack[stack.length - 1].real
      : [stack[stack.length - 1].real, final.name].filter((s) => s).join("/");
    if (real === "") return;
    const levels: Level[] = [];
    for (let i = 0; i < stack.length; i++) {
      const dir = stack[i];
      if (i > 0) {
        const end = dir.real.length;
        if (isExcluded(levels, levels.length, real.slice(0, end), true)) {
          throw ignored(path);
        }
      }
      levels.push({
        rules: this.#rulesOf(fs, dir),
        offset: dir.real === "" ? 0 : dir.real.length + 1,
      });
    }
    if (
      final !== undefined && isExcluded(levels, levels.length, real, false)
    ) throw ignored(path);
  }

  /**
   * Whether a root-relative POSIX path (real, as a watcher reports it) is
   * excluded: anything in `.git/` always, and `.gitignore` matches (root
   * and nested files, with a parent directory's exclusion covering
   * everything below it) unless the workspace includes ignored files.
   * Synchronous once the workspace has been used.
   */
  isIgnored(
    relative: string,
    isDirectory: boolean,
  ): boolean | Promise<boolean> {
    const parts = relative === "" ? [] : relative.split("/");
    if (parts.includes(".git")) return true;
    if (this.includeIgnored || parts.length === 0) return false;
    if (this.#fs !== undefined && nodeFsLoaded()) {
      return this.#ignoredNow(this.#fs, parts, isDirectory);
    }
    return this.#ready().then((fs) => this.#ignoredNow(fs, parts, isDirectory));
  }

  #ignoredNow(fs: RootFs, parts: string[], isDirectory: boolean): boolean {
    const joined = parts.join("/");
    const levels: Level[] = [{
      rules: this.#rulesOf(fs, fs.rootDir),
      offset: 0,
    }];
    const opened: number[] = [];
    let dir: DirHandle | undefined = fs.rootDir;
    let end = 0;
    try {
      for (let i = 0; i < parts.length; i++) {
        end += (i === 0 ? 0 : 1) + parts[i].length;
        const last = i === parts.length - 1;
        if (
          isExcluded(
            levels,
            levels.length,
            joined.slice(0, end),
            !last || isDirectory,
          )
        ) return true;
        if (last) break;
        // The next directory's rules, if it (still) exists as one.
        let rules: IgnoreRules | null = null;
        if (dir !== undefined) {
          const parent: DirHandle = dir;
          const result = fs.stepAt(parent, parts[i]);
          dir = undefined;
          if (result.kind === "open") {
            opened.push(result.fd);
            if (result.info.isDirectory) {
              dir = fs.dirHandle(
                result.fd,
                parts.slice(0, i + 1).join("/"),
                result.info,
              );
              rules = this.#rulesOf(fs, dir);
            }
          }
        }
        levels.push({ rules, offset: end + 1 });
      }
      return false;
    } finally {
      for (const fd of opened) fs.close(fd);
    }
  }

  /**
   * Forget the cached `.gitignore` rules of the directory `dir` (root-relative,
   * "" for the root), so the next check reads the file again. (Rules are
   * also re-read whenever the file's size or times change.)
   */
  forgetRules(dir: string): void {
    this.#rules.delete(dir);
  }

  // The rules of the open directory `dir`, from the cache while its
  // .gitignore is unchanged.
  #rulesOf(fs: RootFs, dir: DirHandle): IgnoreRules | null {
    if (this.includeIgnored) return null;
    let stamp = "-";
    // Its modification and change times (ms; NaN when the system does not
    // say).
    let changed: number[] = [];
    // Most directories have no .gitignore: say so without the lstat that
    // would throw (a thrown NotFound costs several times a lookup).
    if (fs.mayExistAt(dir, ".gitignore")) {
      try {
        // A hint: the content is read through a checked open.
        const info = fs.peekAt(dir, ".gitignore");
        // A .gitignore that is a link is not followed (as git does).
        if (info.isFile) {
          const mtime = info.mtime?.getTime() ?? NaN;
          const ctime = info.ctime?.getTime() ?? NaN;
          stamp =
            `${dir.dev}:${dir.ino}:${info.ino}:${info.size}:${mtime}:${ctime}`;
          changed = [mtime, ctime];
        }
      } catch {
        // None (or unreadable): no rules.
      }
    }
    const key = dir.real;
    const cached = this.#rules.get(key);
    if (cached !== undefined && cached.stamp === stamp) return cached.rules;
    let rules: IgnoreRules | null = null;
    let weight = 1;
    if (stamp !== "-") {
      const opened = fs.openAt(dir, ".gitignore");
      if (opened.kind === "open") {
        const handle = new WorkspaceHandle(fs, opened.fd, "", "", opened.info);
        try {
          if (opened.info.isFile) {
            const bytes = handle.head(MAX_RULES_BYTES);
            rules = IgnoreRules.parse(bytes);
            weight += bytes.length;
          }
        } catch {
          rules = null;
        } finally {
          handle.close();
        }
      }
    }
    // A file changed within the file system clock's granularity of now
    // may change again without its times moving: trust the stamp only
    // once the file is older than that (until then it is read each time).
    const racy = stamp !== "-" && isRacy(Date.now(), ...changed);
    this.#rules.set(key, { stamp: racy ? "" : stamp, rules }, weight);
    return rules;
  }

  // The rules of the open directory `dir` whose listing is `listing`: a
  // listing without a .gitignore that may be a file says there are none,
  // without the lstat (and its error) that would tell.
  #rulesIn(fs: RootFs, dir: DirHandle, listing: Listing): IgnoreRules | null {
    if (this.includeIgnored) return null;
    const names = listing.names;
    let low = 0;
    let high = names.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (names[mid] < ".gitignore") low = mid + 1;
      else high = mid;
    }
    if (names[low] !== ".gitignore") return null;
    const kind = listing.kinds[low];
    if (kind === DIR || kind === LINK) return null;
    return this.#rulesOf(fs, dir);
  }

  // The listing of `dir`, waiting out a directory above it that changed
  // too recently to be watched (RootFs.list says how long) and trying
  // again after one that changed while it was read, a few times: a
  // directory kept changing all the while is given up (a loop of swaps).
  #settledListingOf(
    fs: RootFs,
    dir: DirHandle,
    signal: AbortSignal | undefined,
    opened?: Deno.FileInfo,
  ): Promise<Listing> {
    return this.#settled(() => this.#listingOf(fs, dir, opened), signal);
  }

  // What `read` (a bracketed reading: RootFs.list, RootFs.lstatAllAt)
  // gives, tried again as #settledListingOf says.
  async #settled<T>(
    read: () => T,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    for (let attempt = 1;; attempt++) {
      try {
        return read();
      } catch (error) {
        const code = errnoOf(error);
        const waitMs = (error as { waitMs?: number }).waitMs ?? 0;
        if (
          attempt >= SETTLE_ATTEMPTS ||
          (code !== "EAGAIN" && code !== "ESTALE") || !(waitMs < Infinity)
        ) {
          if (code === "EAGAIN") {
            throw Object.assign(new Error("it keeps changing"), {
              code: "ESTALE",
            });
          }
          throw error;
        }
        signal?.throwIfAborted();
        await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
    }
  }

  /** The sorted listing of the open directory `dir`, cached when large. */
  #listingOf(fs: RootFs, dir: DirHandle, opened?: Deno.FileInfo): Listing {
    // The metadata read when it was opened, just now, will do.
    const info = opened ?? fs.stat(dir.fd);
    const mtime = info.mtime?.getTime() ?? 0;
    const stamp =
      `${mtime}:${info.ctime?.getTime()}:${info.size}:${info.nlink}`;
    const key = `${dir.dev}:${dir.ino}`;
    const cached = this.#listings.get(key);
    if (cached !== undefined && cached.stamp === stamp) return cached;
    const entries = fs.list(dir);
    entries.sort((a, b) => byName(a.name, b.name));
    const names: string[] = [];
    const kinds: Kind[] = [];
    let badNames = 0;
    for (const entry of entries) {
      if (entry.name === ".git") continue;
      if (entry.name.includes("\uFFFD")) {
        // Either a real U+FFFD, or a name that is not UTF-8 and was
        // decoded lossily: only the first can be opened by its text.
        try {
          fs.lstatAt(dir, entry.name);
        } catch {
          badNames++;
          continue;
        }
      }
      names.push(entry.name);
      kinds.push(
        entry.isSymlink
          ? LINK
          : entry.isDirectory
          ? DIR
          : entry.isFile
          ? FILE
          : 3,
      );
    }
    const listing = { names, kinds: Uint8Array.from(kinds), stamp, badNames };
    // A directory changed within the clock's granularity of now may change
    // again without its times moving: its listing is not cached.
    if (
      names.length >= CACHE_LISTING_ENTRIES &&
      !isRacy(Date.now(), mtime, info.ctime?.getTime() ?? NaN)
    ) {
      this.#listings.set(key, listing, names.length);
    }
    return listing;
  }

  /**
   * Walk a directory depth-first in a deterministic order: entries sorted
   * by name (code-unit order) at each level, a directory's contents right
   * after it. Skips `.git`, ignored entries, and links that leave the root
   * or are broken. Links inside the root are reported as what they point
   * to, but a linked directory is not descended: its contents are listed
   * under its real path. Each real directory is read at most once. One
   * bad entry (no permission, vanished, a name that is not UTF-8, too
   * deep) is skipped and counted in `options.skips`, never fatal.
   *
   * Lazy: reads a directory only when the consumer gets there. Gives the
   * event loop a turn every few milliseconds, and stops (throwing the
   * reason) soon after `options.signal` aborts.
   */
  async *walk(options: WalkOptions = {}): AsyncIterableIterator<WalkEntry> {
    const fs = await this.#ready();
    const path = options.from?.relative ?? options.path ?? "";
    // Ignore levels for the path as reached: the directories above the
    // start, as the lookup met them.
    const asReached: Level[] = [];
    const start = (options.from && this.#reopen(fs, options.from, asReached)) ||
      this.#find(fs, path, this.#segments(path), asReached);
    if (!start.info.isDirectory) {
      fs.close(start.fd);
      throw new WorkspaceError(
        "not_a_directory",
        path,
        start.info.isFile
          ? `"${path}" is a file, not a directory; use read_file or file_info for files.`
          : `"${path}" is not a regular file or a directory (a pipe, socket or device), so it cannot be listed or searched; file_info describes it.`,
      );
    }
    if (start.dir === undefined) {
      // A directory whose metadata answers but that cannot be opened.
      throw unreadable(path, "EACCES");
    }
    const skips = options.skips ?? walkSkips();
    const maxDepth = Math.min(options.maxDepth ?? Infinity, MAX_PATH_SEGMENTS);
    const signal = options.signal;
    const check = !this.includeIgnored;
    // Files' identities are read for the opens to come (WalkOptions.opens).
    const identities = options.opens === true && !fs.descriptorPaths;
    const startDir = start.dir as DirHandle;
    // When the start was reached through a link, ignore levels for its
    // real path too.
    const viaLink = start.relative !== start.real;
    const real = check && viaLink ? this.#levelsOf(fs, start.real) : [];
    const visited = new Set<string>([`${startDir.dev}:${startDir.ino}`]);

    interface Frame {
      ref: FrameRef;
      relative: string;
      relBytes: number;
      segments: number;
      depth: number;
      listing: Listing;
      index: number;
      levels: number; // asReached levels in force
      realLevels: number;
      // Files' metadata read ahead, for the entries sizedStart to
      // sizedEnd (one bracket for the run, see readSizes).
      sized?: (Deno.FileInfo | Error | undefined)[];
      sizedStart: number;
      sizedEnd: number;
      // Set once a run could not be read: each file on its own after.
      unsized?: boolean;
    }
    // Read the metadata of the files of `frame` from entry `at` on, up to
    // the next directory (at most SIZE_RUN): one bracketed reading of
    // them all, instead of a checked lstat each. Not past a directory:
    // its subtree is walked before the files after it are yielded, and
    // sizes read that much earlier would be stale.
    const readSizes = async (frame: Frame, at: number): Promise<void> => {
      const { names, kinds } = frame.listing;
      const picked: string[] = [];
      const slots: number[] = [];
      let end = at;
      while (
        end < names.length && kinds[end] !== DIR && picked.length < SIZE_RUN
      ) {
        if (kinds[end] === FILE) {
          picked.push(names[end]);
          slots.push(end);
        }
        end++;
      }
      const infos = await this.#settled(
        () => fs.lstatAllAt(frame.ref.dir, picked),
        signal,
      );
      const sized = new Array<Deno.FileInfo | Error | undefined>(end - at);
      for (let i = 0; i < slots.length; i++) sized[slots[i] - at] = infos[i];
      frame.sized = sized;
      frame.sizedStart = at;
      frame.sizedEnd = end;
    };
    const frames: Frame[] = [];
    // Once the start directory is a frame, its frame releases it.
    let startFramed = false;
    try {
      let rootListing: Listing;
      try {
        // The start's metadata was read as it was reached, just now.
        rootListing = await this.#settledListingOf(
          fs,
          startDir,
          signal,
          start.info,
        );
      } catch (error) {
        signal?.throwIfAborted();
        throw gaveUp(path, error);
      }
      skips.badNames += rootListing.badNames;
      let index = 0;
      if (options.after !== undefined) {
        // First name after `after`: binary search in the sorted names.
        let low = 0;
        let high = rootListing.names.length;
        while (low < high) {
          const mid = (low + high) >>> 1;
          if (rootListing.names[mid] <= options.after) low = mid + 1;
          else high = mid;
        }
        index = low;
      }
      if (check) {
        asReached.push({
          rules: this.#rulesIn(fs, startDir, rootListing),
          offset: start.relative === "" ? 0 : start.relative.length + 1,
        });
        if (viaLink) {
          real.push({
            rules: asReached[asReached.length - 1].rules,
            offset: start.real === "" ? 0 : start.real.length + 1,
          });
        }
      }
      // Re-checked paths need no descriptor of the parent: a later walk
      // can start at a directory this one met (WalkOptions.from).
      const keep = check && !viaLink && !fs.descriptorPaths;
      startFramed = true;
      frames.push({
        ref: {
          dir: startDir,
          open: true,
          levels: keep ? asReached.slice() : undefined,
        },
        relative: start.relative,
        relBytes: utf8Length(start.relative),
        segments: start.relative === "" ? 0 : start.relative.split("/").length,
        depth: 0,
        listing: rootListing,
        index,
        levels: asReached.length,
        realLevels: real.length,
        sizedStart: 0,
        sizedEnd: 0,
      });
      let lastTurn = performance.now();
      while (frames.length > 0) {
        signal?.throwIfAborted();
        if (performance.now() - lastTurn > YIELD_EVERY_MS) {
          await yieldToEventLoop();
          signal?.throwIfAborted();
          lastTurn = performance.now();
        }
        const frame = frames[frames.length - 1];
        if (frame.index >= frame.listing.names.length) {
          frames.pop();
          frame.ref.open = false;
          fs.close(frame.ref.dir.fd);
          continue;
        }
        const name = frame.listing.names[frame.index];
        const kind = frame.listing.kinds[frame.index];
        frame.index++;
        const depth = frame.depth + 1;
        const nameBytes = utf8Length(name);
        const relBytes = frame.relative === ""
          ? nameBytes
          : frame.relBytes + 1 + nameBytes;
        const relative = frame.relative === ""
          ? name
          : `${frame.relative}/${name}`;
        if (
          relBytes > MAX_PATH_BYTES || frame.segments + 1 > MAX_PATH_SEGMENTS
        ) {
          skips.tooDeep++;
          continue;
        }
        const dir = frame.ref.dir;
        const realName = dir.real === "" ? name : `${dir.real}/${name}`;
        let entry: WalkEntry;
        if (kind === LINK) {
          // git sees a link as a file: a rule for directories misses it.
          if (
            check &&
            this.#excludedEntry(
              asReached,
              frame.levels,
              relative,
              false,
              real,
              frame.realLevels,
              realName,
            )
          ) continue;
          let found: Found;
          try {
            // A full lookup applies every rule: links out, ignores, broken.
            found = this.#find(fs, realName, realName.split("/"));
          } catch (error) {
            if (error instanceof WorkspaceError) {
              if (error.code === "unreadable") skips.unreadable++;
              continue;
            }
            throw error;
          }
          fs.close(found.fd);
          entry = {
            relative,
            absolute: fs.absolute(found.real),
            isFile: found.info.isFile,
            isDirectory: found.info.isDirectory,
            depth,
          };
          if (options.sizes && found.info.isFile) entry.size = found.info.size;
          this.#origins.set(entry, { frame: frame.ref, name, link: true });
          yield entry;
          continue;
        }
        const isDir = kind === DIR;
        if (
          check &&
          this.#excludedEntry(
            asReached,
            frame.levels,
            relative,
            isDir,
            real,
            frame.realLevels,
            realName,
          )
        ) continue;
        entry = {
          relative,
          absolute: fs.absolute(realName),
          isFile: kind === FILE,
          isDirectory: isDir,
          depth,
        };
        let listed: Deno.FileInfo | undefined;
        if ((options.sizes || identities) && kind === FILE) {
          const at = frame.index - 1;
          if (
            !frame.unsized && (at < frame.sizedStart || at >= frame.sizedEnd)
          ) {
            try {
              await readSizes(frame, at);
            } catch {
              // A directory above kept changing: each file alone, checked.
              signal?.throwIfAborted();
              frame.sized = undefined;
              frame.unsized = true;
            }
          }
          let info: Deno.FileInfo | Error | undefined;
          if (frame.sized !== undefined) {
            info = frame.sized[at - frame.sizedStart];
          } else {
            try {
              info = fs.lstatAt(dir, name);
            } catch (error) {
              info = error instanceof Error ? error : new Error(String(error));
            }
          }
          if (!options.sizes) {
            // Identities only: what could not be read is checked as opened.
            if (info !== undefined && !(info instanceof Error)) listed = info;
          } else if (info === undefined || info instanceof Error) {
            if (info instanceof Deno.errors.PermissionDenied) {
              skips.unreadable++;
            } else skips.vanished++;
            continue;
          } else if (!info.isFile) {
            skips.vanished++;
            continue;
          } else {
            entry.size = info.size;
            listed = info;
          }
        }
        this.#origins.set(entry, {
          frame: frame.ref,
          name,
          link: false,
          listed,
        });
        yield entry;
        if (!isDir || depth >= maxDepth) continue;
        // Descend: open the directory itself, then list what was opened
        // (listed as no link: a link there now is refused as changed).
        // Re-checked paths reach it by path, checked by identity, with no
        // use for a descriptor: a checked step (as a lookup takes through
        // the directories on its way) saves the open, fstat and close.
        const opened = fs.stepAt(dir, name, true);
        if (opened.kind !== "open") {
          if (opened.kind === "denied" && opened.code !== "ESTALE") {
            skips.unreadable++;
          } else skips.vanished++;
          continue;
        }
        if (!opened.info.isDirectory) {
          fs.close(opened.fd);
          skips.vanished++;
          continue;
        }
        const child = fs.dirHandle(opened.fd, realName, opened.info);
        const id = `${child.dev}:${child.ino}`;
        if (visited.has(id)) {
          fs.close(child.fd);
          continue;
        }
        visited.add(id);
        let listing: Listing;
        try {
          listing = await this.#settledListingOf(
            fs,
            child,
            signal,
            opened.info,
          );
        } catch (error) {
          signal?.throwIfAborted();
          fs.close(child.fd);
          if (errnoOf(error) === "ESTALE") skips.vanished++;
          else skips.unreadable++;
          continue;
        }
        skips.badNames += listing.badNames;
        let levels = frame.levels;
        let realLevels = frame.realLevels;
        if (check) {
          const rules = this.#rulesIn(fs, child, listing);
          asReached.length = levels;
          asReached.push({ rules, offset: relative.length + 1 });
          levels++;
          if (viaLink) {
            real.length = realLevels;
            real.push({ rules, offset: realName.length + 1 });
            realLevels++;
          }
        }
        frames.push({
          ref: {
            dir: child,
            open: true,
            levels: keep ? asReached.slice(0, levels) : undefined,
          },
          relative,
          relBytes,
          segments: frame.segments + 1,
          depth,
          listing,
          index: 0,
          levels,
          realLevels,
          sizedStart: 0,
          sizedEnd: 0,
        });
      }
    } finally {
      for (const frame of frames) {
        frame.ref.open = false;
        fs.close(frame.ref.dir.fd);
      }
      if (!startFramed) fs.close(startDir.fd);
    }
  }

  // The start of a walk from `entry` (see WalkOptions.from), opened from
  // the directory its walk met it in, with the ignore levels in force
  // there put in `levels`; undefined when only a lookup will do.
  #reopen(fs: RootFs, entry: WalkEntry, levels: Level[]): Found | undefined {
    const origin = this.#origins.get(entry);
    const chain = origin?.frame.levels;
    if (
      origin === undefined || chain === undefined || origin.link ||
      !entry.isDirectory
    ) return undefined;
    const parent = origin.frame.dir;
    const real = parent.real === ""
      ? origin.name
      : `${parent.real}/${origin.name}`;
    if (real !== entry.relative) return undefined;
    // The parent is checked by its identity, read through its path; an
    // ancestor moved out of the root and replaced by a link to where it
    // went keeps that identity. The path must still be its own, with no
    // link on the way; otherwise the lookup from the root decides.
    const absolute = fs.absolute(real);
    try {
      if (Deno.realPathSync(absolute) !== absolute) return undefined;
    } catch {
      return undefined;
    }
    // A checked step, as the walk descends (the chain is kept only for
    // re-checked paths, where a directory is listed by its path): no
    // descriptor to open, fstat and close.
    const opened = fs.stepAt(parent, origin.name);
    if (opened.kind !== "open") return undefined;
    if (!opened.info.isDirectory) {
      fs.close(opened.fd);
      return undefined;
    }
    levels.push(...chain);
    return {
      relative: real,
      real,
      fd: opened.fd,
      info: opened.info,
      dir: fs.dirHandle(opened.fd, real, opened.info),
    };
  }

  #excludedEntry(
    asReached: Level[],
    levels: number,
    relative: string,
    isDir: boolean,
    real: Level[],
    realLevels: number,
    realName: string,
  ): boolean {
    if (isExcluded(asReached, levels, relative, isDir)) return true;
    return realLevels > 0 && isExcluded(real, realLevels, realName, isDir);
  }

  // Ignore levels of the directories above `relative` (a real directory
  // path whose own level the caller adds), read through fresh lookups.
  #levelsOf(fs: RootFs, relative: string): Level[] {
    const levels: Level[] = [{
      rules: this.#rulesOf(fs, fs.rootDir),
      offset: 0,
    }];
    if (relative === "") return [];
    const parts = relative.split("/");
    let offset = 0;
    for (let i = 0; i < parts.length - 1; i++) {
      offset += (i === 0 ? 0 : 1) + parts[i].length;
      let rules: IgnoreRules | null = null;
      try {
        const found = this.#find(fs, relative, parts.slice(0, i + 1));
        try {
          if (found.info.isDirectory) {
            rules = this.#rulesOf(fs, found.dir as DirHandle);
          }
        } finally {
          fs.close(found.fd);
        }
      } catch {
        rules = null;
      }
      levels.push({ rules, offset: offset + 1 });
    }
    return levels;
  }
}
