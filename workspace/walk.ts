/**
 * The walk (as ripgrep's `crates/ignore/src/walk.rs`): a directory tree
 * depth-first in path order, lazily, one real directory at a time.
 *
 * Invariants:
 * - each real directory is read at most once, and a linked directory is
 *   listed but never descended (its contents appear under its real path),
 *   so a fan-out of links stays linear;
 * - every listing and every run of file metadata is read in a bracket of
 *   settled directory times (`listing.ts`, `RootFs.lstatAllAt`);
 * - one bad entry (unreadable, vanished, not UTF-8, too deep) is skipped
 *   and counted, never fatal, and nothing deeper or longer than the path
 *   limits is yielded;
 * - every directory the walk opened is released when it ends, however it
 *   ends.
 *
 * The steps themselves (a link, a file's metadata, a descent) are in
 * `walk_steps.ts`.
 *
 * @module
 */

import {
  clientSegments,
  MAX_PATH_BYTES,
  MAX_PATH_SEGMENTS,
  utf8Length,
} from "./client_path.ts";
import { unreadable, WorkspaceError } from "./errors.ts";
import type { Level } from "./ignore_stack.ts";
import { DIR, FILE, LINK } from "./listing.ts";
import { find, reopen } from "./resolve.ts";
import { type DirHandle, yieldToEventLoop } from "./secure_fs.ts";
import type { Found, Tree, WalkEntry, WalkOptions } from "./tree.ts";
import { type Frame, type Step, Walk } from "./walk_steps.ts";

// A walk gives the event loop a turn at least this often (milliseconds).
const YIELD_EVERY_MS = 8;

/**
 * Walk the directory `options.path` (or `options.from`) of `tree`
 * depth-first in a deterministic order: entries sorted by name (code-unit
 * order) at each level, a directory's contents right after it. Skips
 * `.git`, ignored entries, and links that leave the root or are broken.
 * Links inside the root are reported as what they point to, but a linked
 * directory is not descended: its contents are listed under its real
 * path. Each real directory is read at most once. One bad entry (no
 * permission, vanished, a name that is not UTF-8, too deep) is skipped
 * and counted in `options.skips`, never fatal.
 *
 * Lazy: reads a directory only when the consumer gets there. Gives the
 * event loop a turn every few milliseconds, and stops (throwing the
 * reason) soon after `options.signal` aborts.
 */
export async function* walkTree(
  tree: Tree,
  options: WalkOptions = {},
): AsyncIterableIterator<WalkEntry> {
  const fs = tree.fs;
  const path = options.from?.relative ?? options.path ?? "";
  const asReached: Level[] = [];
  const start = walkStart(tree, path, options.from, asReached);
  const signal = options.signal;
  const walk = new Walk(tree, options, start, asReached);
  const maxDepth = walk.maxDepth;
  const skips = walk.skips;
  const frames: Frame[] = [];
  // Once the start directory is a frame, its frame releases it.
  let startFramed = false;
  try {
    const first = await walk.startFrame(start, path);
    startFramed = true;
    frames.push(first);
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
      const nameBytes = utf8Length(name);
      const step: Step = {
        frame,
        name,
        relative: frame.relative === "" ? name : `${frame.relative}/${name}`,
        relBytes: frame.relative === ""
          ? nameBytes
          : frame.relBytes + 1 + nameBytes,
        realName: frame.ref.dir.real === ""
          ? name
          : `${frame.ref.dir.real}/${name}`,
        depth: frame.depth + 1,
      };
      if (
        step.relBytes > MAX_PATH_BYTES ||
        frame.segments + 1 > MAX_PATH_SEGMENTS
      ) {
        skips.tooDeep++;
        continue;
      }
      if (kind === LINK) {
        const entry = walk.linkEntry(step);
        if (entry !== undefined) yield entry;
        continue;
      }
      const isDir = kind === DIR;
      if (walk.excluded(step, isDir)) continue;
      const entry: WalkEntry = {
        relative: step.relative,
        absolute: fs.absolute(step.realName),
        isFile: kind === FILE,
        isDirectory: isDir,
        depth: step.depth,
      };
      let listed: Deno.FileInfo | undefined;
      if ((options.sizes || walk.identities) && kind === FILE) {
        const info = await walk.fileInfo(step);
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
      tree.origins.set(entry, { frame: frame.ref, name, link: false, listed });
      yield entry;
      if (!isDir || step.depth >= maxDepth) continue;
      const child = await walk.descend(step);
      if (child !== undefined) frames.push(child);
    }
  } finally {
    for (const frame of frames) {
      frame.ref.open = false;
      fs.close(frame.ref.dir.fd);
    }
    if (!startFramed) fs.close(start.dir.fd);
  }
}

// The start of a walk of `path` (from the entry `from`, when an earlier
// walk met it), opened as a directory, with the ignore levels of the
// directories above it put in `levels`. Throws "not_a_directory" for
// anything else, "unreadable" for a directory that cannot be opened.
function walkStart(
  tree: Tree,
  path: string,
  from: WalkEntry | undefined,
  levels: Level[],
): Found & { dir: DirHandle } {
  const fs = tree.fs;
  const start = (from && reopen(tree, from, levels)) ||
    find(tree, path, clientSegments(fs.root, path), levels);
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
  return start as Found & { dir: DirHandle };
}
