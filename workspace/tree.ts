/**
 * What path resolution (`resolve.ts`) and the walk (`walk.ts`) share: the
 * entries a walk yields and what it remembers of them, and the state of
 * one open workspace ({@linkcode Tree}).
 *
 * @module
 */

import type { IgnoreCache, Level } from "./ignore_stack.ts";
import type { Listings } from "./listing.ts";
import type { DirHandle, RootFs } from "./secure_fs.ts";

/** One open workspace: its root and caches, as its modules use them. */
export interface Tree {
  /** The confined file system of the root. */
  readonly fs: RootFs;
  /** Parsed `.gitignore` rules (none when ignored files are served). */
  readonly rules: IgnoreCache;
  /** Sorted listings kept for paging. */
  readonly listings: Listings;
  /** What walks remember of the entries they yielded. */
  readonly origins: WeakMap<WalkEntry, EntryOrigin>;
}

/** One entry met by `Workspace.walk`. */
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

/** Options of `Workspace.walk`. */
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

/** A directory a walk has open; `open` turns false when it is closed. */
export interface FrameRef {
  /** The directory. */
  dir: DirHandle;
  /** Whether the walk still holds it. */
  open: boolean;
  /**
   * The ignore levels in force for its entries, when a later walk may
   * start at one of them (see WalkOptions.from).
   */
  levels?: Level[];
}

/** What the walk remembers of an entry it yielded. */
export interface EntryOrigin {
  /** The directory the walk met it in. */
  frame: FrameRef;
  /** Its name there. */
  name: string;
  /** Whether it is a symbolic link. */
  link: boolean;
  /** The file as a bracketed lstat saw it (WalkOptions.opens). */
  listed?: Deno.FileInfo;
}

/** The end of a resolution: what the path named, opened (fd -1: not). */
export interface Found {
  /** The path as asked, root-relative. */
  relative: string;
  /** The real path reached, root-relative. */
  real: string;
  /** Its descriptor, or -1. */
  fd: number;
  /** Its metadata. */
  info: Deno.FileInfo;
  /** The open directory, when it is one. */
  dir?: DirHandle;
}
