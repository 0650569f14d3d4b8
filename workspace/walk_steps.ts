/**
 * The steps of one walk (`walk.ts` drives them): the frame of its start,
 * the entry of a link, the metadata of a file, the descent into a
 * directory, with the state they share (ignore levels in force, the real
 * directories visited, the skips counted).
 *
 * Invariants (with `walk.ts`): a real directory is descended at most once
 * (`Walk.descend`), a link is reported as what it points to after a full
 * lookup and never descended (`Walk.linkEntry`), a listing and a run of
 * file metadata are read in a bracket (`listing.ts`), and an entry that
 * cannot be read is counted, never fatal.
 *
 * @module
 */

import { MAX_PATH_SEGMENTS, utf8Length } from "./client_path.ts";
import { WorkspaceError } from "./errors.ts";
import { errnoOf } from "./fs_error.ts";
import { excludedEntry, type Level } from "./ignore_stack.ts";
import {
  fileRun,
  gaveUp,
  type Listing,
  type RunWanted,
  type SizedRun,
} from "./listing.ts";
import { find, levelsOf } from "./resolve.ts";
import type { DirHandle, RootFs } from "./secure_fs.ts";
import {
  type Found,
  type FrameRef,
  type Tree,
  type WalkEntry,
  type WalkOptions,
  type WalkSkips,
  walkSkips,
} from "./tree.ts";

/** A directory the walk is in, and where it is in its listing. */
export interface Frame {
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
  // sizedEnd (one bracket for the run, see fileRun).
  sized?: (Deno.FileInfo | Error | undefined)[];
  sizedStart: number;
  sizedEnd: number;
  // Set once a run could not be read: each file on its own after.
  unsized?: boolean;
}

/** One entry of a frame, as the walk names it. */
export interface Step {
  frame: Frame;
  name: string;
  relative: string;
  relBytes: number;
  realName: string;
  depth: number;
}

/** The state of one walk, and its steps. */
export class Walk {
  readonly tree: Tree;
  readonly fs: RootFs;
  readonly options: WalkOptions;
  readonly skips: WalkSkips;
  readonly signal: AbortSignal | undefined;
  readonly check: boolean;
  // Files' identities are read for the opens to come (WalkOptions.opens).
  readonly identities: boolean;
  // Ignore levels for the path as reached: the directories above the
  // start, as the lookup met them, then those the walk is in.
  readonly asReached: Level[];
  // When the start was reached through a link, ignore levels for its
  // real path too.
  readonly viaLink: boolean;
  readonly real: Level[];
  // Re-checked paths need no descriptor of the parent: a later walk
  // can start at a directory this one met (WalkOptions.from).
  keep = false;
  readonly visited: Set<string>;
  // Directories at this depth are listed, not descended.
  readonly maxDepth: number;

  /** A walk of `tree` from `start`, with the levels above it. */
  constructor(
    tree: Tree,
    options: WalkOptions,
    start: Found & { dir: DirHandle },
    asReached: Level[],
  ) {
    this.tree = tree;
    this.fs = tree.fs;
    this.options = options;
    this.skips = options.skips ?? walkSkips();
    this.signal = options.signal;
    this.check = !tree.rules.includeIgnored;
    this.identities = options.opens === true && !this.fs.descriptorPaths;
    this.asReached = asReached;
    this.viaLink = start.relative !== start.real;
    this.real = this.check && this.viaLink ? levelsOf(tree, start.real) : [];
    this.visited = new Set([`${start.dir.dev}:${start.dir.ino}`]);
    this.maxDepth = Math.min(options.maxDepth ?? Infinity, MAX_PATH_SEGMENTS);
  }

  /**
   * The frame of the start directory, listed (its metadata was read as
   * it was reached, just now), from the name after `options.after`.
   */
  async startFrame(
    start: Found & { dir: DirHandle },
    path: string,
  ): Promise<Frame> {
    const { fs, tree, signal, asReached, real } = this;
    const startDir = start.dir;
    const after = this.options.after;
    let rootListing: Listing;
    let first: SizedRun | undefined;
    try {
      ({ listing: rootListing, first } = await tree.listings.settledListingOf(
        fs,
        startDir,
        signal,
        start.info,
        after === undefined ? this.runWanted(0) : undefined,
      ));
    } catch (error) {
      signal?.throwIfAborted();
      throw gaveUp(path, error);
    }
    this.skips.badNames += rootListing.badNames;
    let index = 0;
    if (after !== undefined) {
      // First name after `after`: binary search in the sorted names.
      let low = 0;
      let high = rootListing.names.length;
      while (low < high) {
        const mid = (low + high) >>> 1;
        if (rootListing.names[mid] <= after) low = mid + 1;
        else high = mid;
      }
      index = low;
    }
    if (this.check) {
      asReached.push({
        rules: tree.rules.rulesIn(fs, startDir, rootListing),
        offset: start.relative === "" ? 0 : start.relative.length + 1,
      });
      if (this.viaLink) {
        real.push({
          rules: asReached[asReached.length - 1].rules,
          offset: start.real === "" ? 0 : start.real.length + 1,
        });
      }
    }
    this.keep = this.check && !this.viaLink && !fs.descriptorPaths;
    return {
      ref: {
        dir: startDir,
        open: true,
        levels: this.keep ? asReached.slice() : undefined,
      },
      relative: start.relative,
      relBytes: utf8Length(start.relative),
      segments: start.relative === "" ? 0 : start.relative.split("/").length,
      depth: 0,
      listing: rootListing,
      index,
      levels: asReached.length,
      realLevels: real.length,
      sized: first?.sized,
      sizedStart: 0,
      sizedEnd: first?.end ?? 0,
    };
  }

  /** Whether the entry `step` names is excluded by the rules in force. */
  excluded(step: Step, isDir: boolean): boolean {
    return this.check && excludedEntry(
      this.asReached,
      step.frame.levels,
      step.relative,
      isDir,
      this.real,
      step.frame.realLevels,
      step.realName,
    );
  }

  /**
   * The entry of a link, as what it points to; undefined when it is left
   * out (ignored, out of the root, broken, unreadable: counted).
   */
  linkEntry(step: Step): WalkEntry | undefined {
    const { fs } = this;
    // git sees a link as a file: a rule for directories misses it.
    if (this.excluded(step, false)) return undefined;
    let found: Found;
    try {
      // A full lookup applies every rule: links out, ignores, broken.
      found = find(this.tree, step.realName, step.realName.split("/"));
    } catch (error) {
      if (error instanceof WorkspaceError) {
        if (error.code === "unreadable") this.skips.unreadable++;
        return undefined;
      }
      throw error;
    }
    fs.close(found.fd);
    const entry: WalkEntry = {
      relative: step.relative,
      absolute: fs.absolute(found.real),
      isFile: found.info.isFile,
      isDirectory: found.info.isDirectory,
      depth: step.depth,
    };
    if (this.options.sizes && found.info.isFile) entry.size = found.info.size;
    this.tree.origins.set(entry, {
      frame: step.frame.ref,
      name: step.name,
      link: true,
    });
    return entry;
  }

  /**
   * What to read with the listing of a directory at `depth`: its first run
   * of files' metadata, when the walk wants files' metadata at all (in one
   * bracket with the listing instead of one more; see `Listings`).
   */
  runWanted(depth: number): RunWanted | undefined {
    if (!this.options.sizes && !this.identities) return undefined;
    // Entries at depth + 1: directories there are listed, not descended.
    return { pastDirs: depth + 1 >= this.maxDepth };
  }

  /**
   * The metadata of the file `step` names, read in a run with the files
   * after it (see fileRun), else alone (checked); an Error for one that
   * could not be read.
   */
  async fileInfo(step: Step): Promise<Deno.FileInfo | Error | undefined> {
    const { frame } = step;
    const at = frame.index - 1;
    if (!frame.unsized && (at < frame.sizedStart || at >= frame.sizedEnd)) {
      try {
        const run = await fileRun(
          this.fs,
          frame.ref.dir,
          frame.listing,
          at,
          this.signal,
          // Directories here are not descended: the run may pass them.
          step.depth >= this.maxDepth,
        );
        frame.sized = run.sized;
        frame.sizedStart = at;
        frame.sizedEnd = run.end;
      } catch {
        // A directory above kept changing: each file alone, checked.
        this.signal?.throwIfAborted();
        frame.sized = undefined;
        frame.unsized = true;
      }
    }
    if (frame.sized !== undefined) return frame.sized[at - frame.sizedStart];
    try {
      return this.fs.lstatAt(frame.ref.dir, step.name);
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  }

  /**
   * The frame of the directory `step` names, opened and listed; undefined
   * when it cannot be (counted) or was walked already.
   */
  async descend(step: Step): Promise<Frame | undefined> {
    const { fs, skips } = this;
    const frame = step.frame;
    // Open the directory itself, then list what was opened (listed as no
    // link: a link there now is refused as changed). Re-checked paths
    // reach it by path, checked by identity, with no use for a
    // descriptor: a checked step (as a lookup takes through the
    // directories on its way) saves the open, fstat and close.
    const opened = fs.stepAt(frame.ref.dir, step.name, true);
    if (opened.kind !== "open") {
      if (opened.kind === "denied" && opened.code !== "ESTALE") {
        skips.unreadable++;
      } else skips.vanished++;
      return undefined;
    }
    if (!opened.info.isDirectory) {
      fs.close(opened.fd);
      skips.vanished++;
      return undefined;
    }
    const child = fs.dirHandle(opened.fd, step.realName, opened.info);
    const id = `${child.dev}:${child.ino}`;
    if (this.visited.has(id)) {
      fs.close(child.fd);
      return undefined;
    }
    this.visited.add(id);
    let listing: Listing;
    let first: SizedRun | undefined;
    try {
      ({ listing, first } = await this.tree.listings.settledListingOf(
        fs,
        child,
        this.signal,
        opened.info,
        this.runWanted(step.depth),
      ));
    } catch (error) {
      this.signal?.throwIfAborted();
      fs.close(child.fd);
      if (errnoOf(error) === "ESTALE") skips.vanished++;
      else skips.unreadable++;
      return undefined;
    }
    skips.badNames += listing.badNames;
    let levels = frame.levels;
    let realLevels = frame.realLevels;
    if (this.check) {
      const rules = this.tree.rules.rulesIn(fs, child, listing);
      this.asReached.length = levels;
      this.asReached.push({ rules, offset: step.relative.length + 1 });
      levels++;
      if (this.viaLink) {
        this.real.length = realLevels;
        this.real.push({ rules, offset: step.realName.length + 1 });
        realLevels++;
      }
    }
    return {
      ref: {
        dir: child,
        open: true,
        levels: this.keep ? this.asReached.slice(0, levels) : undefined,
      },
      relative: step.relative,
      relBytes: step.relBytes,
      segments: frame.segments + 1,
      depth: step.depth,
      listing,
      index: 0,
      levels,
      realLevels,
      sized: first?.sized,
      sizedStart: 0,
      sizedEnd: first?.end ?? 0,
    };
  }
}
