/**
 * The root handle: the root directory held open for the life of the
 * process, and how a name below it is named (through `/proc/self/fd`
 * where Deno allows it, else by its path from the root), with the
 * unchecked lookups and the reads of an open descriptor. What a name is
 * checked to be is `RootFs`'s job (`secure_fs.ts`).
 *
 * Invariant: with descriptor paths, a name is looked up in the very
 * directory that was opened and checked; the root's own path is trusted,
 * as the root is held open and cannot be swapped.
 *
 * @module
 */

import { type DirHandle, fileInfoOf, loadNodeFs, nodeFs } from "./node_fs.ts";
import { absoluteIn } from "./recheck.ts";

/**
 * Open the real absolute directory `root`, and tell whether names below
 * it can be reached through `/proc/self/fd` (`descriptorPaths: false`
 * says not to try).
 */
export async function openRoot(
  root: string,
  descriptorPaths: boolean,
): Promise<{ rootDir: DirHandle; proc: boolean }> {
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
  return { rootDir, proc };
}

/** One open root: naming, unchecked lookups, reads of descriptors. */
export class RootHandle {
  /** Real absolute path of the root. */
  readonly root: string;
  /** Whether names are reached through `/proc/self/fd`. */
  readonly descriptorPaths: boolean;
  /** The root, held open for the life of the process. */
  readonly rootDir: DirHandle;

  /** The root `root`, opened as `rootDir` (see {@linkcode openRoot}). */
  protected constructor(root: string, rootDir: DirHandle, proc: boolean) {
    this.root = root;
    this.rootDir = rootDir;
    this.descriptorPaths = proc;
  }

  /** Absolute path of a root-relative real path (for messages, fallback). */
  absolute(real: string): string {
    return absoluteIn(this.root, real);
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
   * {@linkcode RootHandle.peekAt} of each of `items` (a name in an open
   * directory), in order, an `Error` for each that fails: hints, for a
   * caller that reads them inside a bracket (see `RootFs.lstatEachAt`).
   */
  peekEach(
    items: readonly { dir: DirHandle; name: string }[],
  ): (Deno.FileInfo | Error)[] {
    return items.map(({ dir, name }) => {
      try {
        return this.peekAt(dir, name);
      } catch (error) {
        return error instanceof Error ? error : new Error(String(error));
      }
    });
  }

  /**
   * The directory at the real path `real` (below the root), as a handle
   * without a descriptor, from an lstat: a hint (undefined for what is no
   * directory, a link included) for a bracketed read inside it, which
   * checks that the path still leads to it (see `RootFs.lstatEachAt`).
   */
  dirHint(real: string): DirHandle | undefined {
    try {
      const info = Deno.lstatSync(this.absolute(real));
      return info.isDirectory ? this.dirHandle(-1, real, info) : undefined;
    } catch {
      return undefined;
    }
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
}
