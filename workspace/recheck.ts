/**
 * After-the-fact checks of the re-checked mode (no descriptor paths): a
 * path is looked at again after what it named was opened or read.
 *
 * Invariant, weaker than the bracket of `dir_times.ts`: what was opened
 * is what the path names, and the directory's path still leads to the
 * directory held, each checked twice in turn, so a swap out and back
 * would have to fall between every check. That makes an escape unlikely,
 * not impossible: these checks guard only opens whose bytes are not
 * handed out (a `.gitignore`, a link's target looked up to be listed),
 * steps through directories, and the reuse of a kept descriptor (which
 * was inside the root when opened). In the root itself, whose path
 * cannot be swapped, one look is enough.
 *
 * @module
 */

import { type CachedFile, isKeptFile } from "./descriptor_cache.ts";
import { FsError } from "./fs_error.ts";
import type { DirHandle, Stats } from "./node_fs.ts";

/** Absolute path of `real` (root-relative, "" for the root) in `root`. */
export function absoluteIn(root: string, real: string): string {
  if (real === "") return root;
  return root === "/" ? `/${real}` : `${root}/${real}`;
}

/**
 * Whether `dir`'s path (in `root`) still leads to the directory held
 * open. (One lstat: if it names that inode, the path leads there now.)
 */
export function dirStill(root: string, dir: DirHandle): boolean {
  if (dir.real === "") return true;
  try {
    const info = Deno.lstatSync(absoluteIn(root, dir.real));
    return info.isDirectory && info.dev === dir.dev && info.ino === dir.ino;
  } catch {
    return false;
  }
}

/** Throws `ESTALE` unless {@linkcode dirStill}. */
export function checkDir(root: string, dir: DirHandle): void {
  if (!dirStill(root, dir)) {
    throw new FsError("ESTALE", "directory changed while in use");
  }
}

/**
 * Whether the file opened (`stats`) is what `path` (`name` in `dir`)
 * names, and the directory's path still leads to `dir`, each checked
 * twice in turn: a swap out and back would have to fall between every
 * check.
 */
export function stillAt(
  root: string,
  path: string,
  dir: DirHandle,
  stats: Stats,
): boolean {
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
  return named() && dirStill(root, dir) && named() && dirStill(root, dir);
}

/**
 * The metadata of what `path` (a name in `dir`) names, when that is still
 * the kept file, unchanged (see {@linkcode isKeptFile}), checked as
 * {@linkcode stillAt} checks an open: twice around checks of the
 * directory's path, except where `trusted` (in the root, or with
 * descriptor paths), where no swap can come between.
 */
export function stillKept(
  root: string,
  path: string,
  dir: DirHandle,
  kept: CachedFile,
  trusted: boolean,
): Deno.FileInfo | undefined {
  const named = () => {
    try {
      const info = Deno.lstatSync(path);
      return isKeptFile(info, kept) ? info : undefined;
    } catch {
      return undefined;
    }
  };
  if (trusted) return named();
  if (named() === undefined || !dirStill(root, dir)) return undefined;
  const info = named();
  return info !== undefined && dirStill(root, dir) ? info : undefined;
}
