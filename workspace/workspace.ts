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
 * This module is the façade; the parts, each with its invariant (see
 * `docs/security.md`), are: `client_path.ts` (a client path's text),
 * `resolve.ts` (following names and links from the root),
 * `ignore_stack.ts` (`.gitignore` levels), `listing.ts` (bracketed,
 * cached listings), `walk.ts` and `walk_steps.ts` (the walk), `tree.ts`
 * (what they share), and under them `secure_fs.ts` (the confined file
 * system).
 *
 * @module
 */

import { clientSegments } from "./client_path.ts";
import { WorkspaceError } from "./errors.ts";
import { WorkspaceHandle } from "./file.ts";
import type { ReadOptions, ReadResult } from "./file.ts";
import { IgnoreCache, ignoredNow } from "./ignore_stack.ts";
import { gaveUp, Listings, settled } from "./listing.ts";
import { find, findEntry } from "./resolve.ts";
import type { Lookups } from "./lookups.ts";
import { nodeFsLoaded, RootFs } from "./secure_fs.ts";
import type {
  EntryOrigin,
  Found,
  Tree,
  WalkEntry,
  WalkOptions,
} from "./tree.ts";
import { walkTree } from "./walk.ts";

export { WorkspaceError } from "./errors.ts";
export type { WorkspaceErrorCode } from "./errors.ts";
export { WorkspaceHandle } from "./file.ts";
export type { ChunkOptions, ReadOptions, ReadResult } from "./file.ts";
export { MAX_PATH_BYTES, MAX_PATH_SEGMENTS } from "./client_path.ts";
export { MAX_RULES_BYTES } from "./ignore_stack.ts";
export { walkSkips } from "./tree.ts";
export { Lookups } from "./lookups.ts";
export type { WalkEntry, WalkOptions, WalkSkips } from "./tree.ts";

/** How a lookup by path may start from where earlier ones went. */
export interface LookupOptions {
  /**
   * The run of lookups this one belongs to (one search's files, say):
   * see {@linkcode Lookups}.
   */
  lookups?: Lookups;
}

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

/** A read-only view of one directory tree. */
export class Workspace {
  /** Real absolute path of the root. */
  readonly root: string;
  /** Whether `.gitignore` rules are ignored (files they exclude are served). */
  readonly includeIgnored: boolean;

  readonly #descriptorPaths: boolean;
  #tree: Tree | undefined;
  #opening: Promise<Tree> | undefined;
  // Parsed .gitignore per real directory path, bounded.
  readonly #rules: IgnoreCache;
  // Sorted listings of large directories by device, inode and stamp.
  readonly #listings = new Listings();
  readonly #origins = new WeakMap<WalkEntry, EntryOrigin>();

  private constructor(
    root: string,
    includeIgnored: boolean,
    descriptorPaths: boolean,
  ) {
    this.root = root;
    this.includeIgnored = includeIgnored;
    this.#descriptorPaths = descriptorPaths;
    this.#rules = new IgnoreCache(includeIgnored);
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
    return (await this.#ready()).fs.descriptorPaths;
  }

  // The root is opened on first use, loading node:fs off the start-up path.
  #ready(): Promise<Tree> {
    if (this.#tree !== undefined) return Promise.resolve(this.#tree);
    return this.#opening ??= RootFs.open(this.root, this.#descriptorPaths)
      .then((fs) =>
        this.#tree = {
          fs,
          rules: this.#rules,
          listings: this.#listings,
          origins: this.#origins,
        }
      );
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
   * file that was checked. Close it when done (`using`). A path looked up
   * as one of a run (`lookups`) starts from the directories the run
   * passed.
   */
  async open(
    target: string | WalkEntry,
    lookups?: Lookups,
  ): Promise<WorkspaceHandle> {
    const tree = await this.#ready();
    const fs = tree.fs;
    let found: Found;
    try {
      // Opened in a bracket (RootFs.openAt's `bracketed`): a directory on
      // the path that changed too lately, or during the open, is waited
      // out and tried again, a few times (from the root: see Lookups).
      found = await settled(
        () => {
          if (typeof target !== "string") return findEntry(tree, target);
          try {
            return find(
              tree,
              target,
              clientSegments(fs.root, target),
              undefined,
              true,
              lookups,
            );
          } catch (error) {
            lookups?.clear(tree);
            throw error;
          }
        },
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
    options: ReadOptions & LookupOptions,
  ): Promise<ReadResult & ResolvedPath> {
    using handle = await this.open(target, options.lookups);
    return await readOpened(handle, options);
  }

  /**
   * Whether `entry`, yielded by a walk of this workspace, is a symbolic
   * link (a walk lists a linked directory but never descends it).
   */
  isLink(entry: WalkEntry): boolean {
    return this.#origins.get(entry)?.link ?? false;
  }

  /**
   * The lstat a walk with `opens` made of `entry` (a file it yielded, not
   * a link), when it made one (not with descriptor paths): a caller that
   * leaves a file unopened can tell from it whether the file changed since.
   */
  listedInfo(entry: WalkEntry): Deno.FileInfo | undefined {
    return this.#origins.get(entry)?.listed;
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
    if (this.#tree !== undefined && nodeFsLoaded()) {
      return ignoredNow(this.#tree.fs, this.#rules, parts, isDirectory);
    }
    return this.#ready().then((tree) =>
      ignoredNow(tree.fs, this.#rules, parts, isDirectory)
    );
  }

  /**
   * Forget the cached `.gitignore` rules of the directory `dir` (root-relative,
   * "" for the root), so the next check reads the file again. (Rules are
   * also re-read whenever the file's size or times change.)
   */
  forgetRules(dir: string): void {
    this.#rules.forget(dir);
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
    yield* walkTree(await this.#ready(), options);
  }
}
