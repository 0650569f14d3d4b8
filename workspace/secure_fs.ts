/**
 * The confined file system of one root: `RootFs`, the primitives through
 * which every name below the root is reached, so that a swap of names
 * cannot lead outside it.
 *
 * Every lookup goes one name at a time from an open directory, opening each
 * name with `O_NOFOLLOW` (a link is never followed: the caller reads it and
 * decides) and `O_NONBLOCK` (see `node_fs.ts`). Two modes:
 *
 * - Descriptor paths (Linux, when Deno lets us use `/proc/self/fd`, which it
 *   does only under `--allow-all`): a name is reached through
 *   `/proc/self/fd/<dir>/<name>`, so it is looked up in the very directory
 *   that was opened and checked. No window at all.
 * - Re-checked opens (everywhere else, including the server's usual
 *   `--allow-read`, where Deno also opens a path's real path, following a
 *   final link): a name is reached by its path from the root, and what is
 *   read is bracketed by settled directory times (`dir_times.ts`).
 *   Listings, a walk's metadata and the opens of files whose bytes are
 *   handed out are read so. Other opens (a `.gitignore`, a link's target
 *   looked up to be listed) are checked after the fact (`recheck.ts`),
 *   which makes a swap out and back unlikely to pass unseen, not
 *   impossible.
 *
 * Small files keep their descriptor for the next open of the same name
 * (`descriptor_cache.ts`). Races lost are thrown as an `FsError`
 * (`fs_error.ts`).
 *
 * @module
 */

import {
  type CachedFile,
  cacheKey,
  keep,
  releaseKept,
  takeKept,
} from "./descriptor_cache.ts";
import { DirTimes, ownUid, sameFile } from "./dir_times.ts";
import { FsError } from "./fs_error.ts";
import {
  closeFile,
  type DirHandle,
  fileInfoOf,
  notOpened,
  openPlain,
  type OpenResult,
} from "./node_fs.ts";
import { checkDir, stillAt, stillKept } from "./recheck.ts";
import { openRoot, RootHandle } from "./root_handle.ts";

export {
  CACHED_FILE_BYTES,
  CACHED_FILES,
  keptDescriptors,
  onBlockDevice,
} from "./descriptor_cache.ts";
export { changeSettleWait, SETTLE_MS, settleWait } from "./dir_times.ts";
export { openRoot, RootHandle } from "./root_handle.ts";
export { errnoOf, FsError, type FsErrorCode } from "./fs_error.ts";
export {
  type DirHandle,
  fileInfoOf,
  loadNodeFs,
  nodeFsLoaded,
  openDescriptors,
  type OpenResult,
  yieldToEventLoop,
} from "./node_fs.ts";

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
export class RootFs extends RootHandle {
  // Settled readings of directories by real path (see list).
  readonly #times: DirTimes;

  private constructor(
    root: string,
    rootDir: DirHandle,
    proc: boolean,
    ownUid: number | undefined,
  ) {
    super(root, rootDir, proc);
    this.#times = new DirTimes(root, ownUid);
  }

  /**
   * Open the real absolute directory `root`. `descriptorPaths: false`
   * forces the portable re-checking mode (tests exercise both).
   */
  static async open(root: string, descriptorPaths = true): Promise<RootFs> {
    const { rootDir, proc } = await openRoot(root, descriptorPaths);
    return new RootFs(root, rootDir, proc, ownUid());
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
    const key = cacheKey(dir, name);
    const kept = takeKept(
      key,
      (cached) => this.#stillCached(dir, name, cached),
    );
    if (kept !== undefined) return { kind: "open", ...kept };
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
      if (!stillAt(this.root, this.pathAt(dir, name), dir, stats)) {
        closeFile(fd);
        return { kind: "denied", code: "ESTALE" };
      }
      // Checked after the fact, which makes an escape unlikely, not
      // impossible: not kept for a later open to hand out.
      if (dir.real !== "") return { kind: "open", fd, info: fileInfoOf(stats) };
    }
    const info = fileInfoOf(stats);
    keep(key, fd, info);
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
      throw new FsError("ESTALE", "the file changed while opened");
    }
    keep(key, opened.fd, opened.info);
    return opened;
  }

  // The metadata of what `name` in `dir` names, when that is still the
  // kept file, unchanged (see recheck.ts's stillKept): in the root and
  // with descriptor paths no swap can come between.
  #stillCached(
    dir: DirHandle,
    name: string,
    kept: CachedFile,
  ): Deno.FileInfo | undefined {
    return stillKept(
      this.root,
      this.pathAt(dir, name),
      dir,
      kept,
      this.descriptorPaths || dir.real === "",
    );
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

  /** lstat of `name` in `dir` (metadata only; a link is not followed). */
  lstatAt(dir: DirHandle, name: string): Deno.FileInfo {
    const path = this.pathAt(dir, name);
    // The root's path never changes while it is held: nothing to check
    // between two readings, so one is as good as two.
    if (this.descriptorPaths || dir.real === "") return Deno.lstatSync(path);
    // Twice, with the directory checked after each: both must agree.
    const first = Deno.lstatSync(path);
    checkDir(this.root, dir);
    const second = Deno.lstatSync(path);
    checkDir(this.root, dir);
    if (first.dev !== second.dev || first.ino !== second.ino) {
      throw new FsError("ESTALE", "entry changed while read");
    }
    return second;
  }

  /** The target text of the link `name` in `dir`. */
  readLinkAt(dir: DirHandle, name: string): string {
    if (this.descriptorPaths) return Deno.readLinkSync(this.pathAt(dir, name));
    checkDir(this.root, dir);
    const target = Deno.readLinkSync(this.pathAt(dir, name));
    checkDir(this.root, dir);
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
   * `then` takes the entries in the same bracket (with reads of names in
   * `dir`: their metadata, say), and what it gives is the answer.
   *
   * Throws with code `EAGAIN` and `waitMs` when a directory above changed
   * too recently for its times to tell (call again after that long), and
   * with `ESTALE` when one changed while `dir` was read.
   */
  list<T>(dir: DirHandle, then: (entries: Deno.DirEntry[]) => T): T {
    const path = this.pathOf(dir);
    return this.#bracketed(dir, () => then([...Deno.readDirSync(path)]));
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
    return this.lstatEachAt(names.map((name) => ({ dir, name })));
  }

  /**
   * lstat of each of `items` (a name in an open directory), in order, as
   * {@linkcode RootFs.lstatAllAt} reads names of one directory: in the
   * re-checked mode in one bracket of every directory on their paths
   * (each read once, however many paths it is on). An item's own failure
   * is its `Error`; throws as `list` does when a directory above changes.
   */
  lstatEachAt(
    items: readonly { dir: DirHandle; name: string }[],
  ): (Deno.FileInfo | Error)[] {
    const read = () => this.peekEach(items);
    if (this.descriptorPaths) return read();
    // The root's own path is trusted (see #bracketed): only the others.
    const dirs = new Map<string, DirHandle>();
    for (const { dir } of items) if (dir.real !== "") dirs.set(dir.real, dir);
    if (dirs.size === 0) return read();
    return this.#times.bracketAll([...dirs.values()], read, false);
  }

  // `read` (by path, inside `dir`) bracketed by settled readings of the
  // directories above `dir` (see list), and of `dir` itself with `within`
  // (for a read of a name in it); as it is, with descriptor paths or in
  // the root, whose own path is trusted.
  #bracketed<T>(dir: DirHandle, read: () => T, within = false): T {
    if (this.descriptorPaths || dir.real === "") return read();
    return this.#times.bracket(dir, read, within);
  }

  /**
   * Release a descriptor {@linkcode RootFs.openAt} gave (never the root's;
   * -1 is none): closed, unless it is kept for the next open of its name.
   */
  close(fd: number): void {
    if (fd === this.rootDir.fd || fd === -1) return;
    if (releaseKept(fd)) return;
    closeFile(fd);
  }
}
