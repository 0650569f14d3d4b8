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
 *   limits is yielded.
 *
 * @module
 */

import {
  MAX_PATH_BYTES,
  MAX_PATH_SEGMENTS,
  utf8Length,
} from "./client_path.ts";
import { WorkspaceError } from "./errors.ts";
import { errnoOf } from "./fs_error.ts";
import { excludedEntry, type Level } from "./ignore_stack.ts";
import { DIR, FILE, fileRun, gaveUp, LINK, type Listing } from "./listing.ts";
import { find, levelsOf, walkStart } from "./resolve.ts";
import { type DirHandle, yieldToEventLoop } from "./secure_fs.ts";
import {
  type Found,
  type FrameRef,
  type Tree,
  type WalkEntry,
  type WalkOptions,
  walkSkips,
} from "./tree.ts";

// A walk gives the event loop a turn at least this often (milliseconds).
const YIELD_EVERY_MS = 8;

/**
 * Walk the directory `options.path` (or `options.from`) of `tree` depth-first in a deterministic order: entries sorted
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
export async function* walkTree(
  tree: Tree,
  options: WalkOptions = {},
): AsyncIterableIterator<WalkEntry> {
  const fs = tree.fs;
  const path = options.from?.relative ?? options.path ?? "";
  // Ignore levels for the path as reached: the directories above the
  // start, as the lookup met them.
  const asReached: Level[] = [];
  const start = walkStart(tree, path, options.from, asReached);
  const skips = options.skips ?? walkSkips();
  const maxDepth = Math.min(options.maxDepth ?? Infinity, MAX_PATH_SEGMENTS);
  const signal = options.signal;
  const check = !tree.rules.includeIgnored;
  // Files' identities are read for the opens to come (WalkOptions.opens).
  const identities = options.opens === true && !fs.descriptorPaths;
  const startDir = start.dir as DirHandle;
  // When the start was reached through a link, ignore levels for its
  // real path too.
  const viaLink = start.relative !== start.real;
  const real = check && viaLink ? levelsOf(tree, start.real) : [];
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
  // One bracketed reading of a run of files' metadata (see fileRun).
  const readSizes = async (frame: Frame, at: number): Promise<void> => {
    const run = await fileRun(fs, frame.ref.dir, frame.listing, at, signal);
    frame.sized = run.sized;
    frame.sizedStart = at;
    frame.sizedEnd = run.end;
  };
  const frames: Frame[] = [];
  // Once the start directory is a frame, its frame releases it.
  let startFramed = false;
  try {
    let rootListing: Listing;
    try {
      // The start's metadata was read as it was reached, just now.
      rootListing = await tree.listings.settledListingOf(
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
        rules: tree.rules.rulesIn(fs, startDir, rootListing),
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
          excludedEntry(
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
          found = find(tree, realName, realName.split("/"));
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
        tree.origins.set(entry, { frame: frame.ref, name, link: true });
        yield entry;
        continue;
      }
      const isDir = kind === DIR;
      if (
        check &&
        excludedEntry(
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
      tree.origins.set(entry, {
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
        listing = await tree.listings.settledListingOf(
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
        const rules = tree.rules.rulesIn(fs, child, listing);
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
