/**
 * Directory listings: sorted, read in a bracket of settled directory
 * times (`RootFs.list`), retried while a directory on the path changes,
 * and kept for paging when large.
 *
 * Invariant: a listing handed to the walk was read while every directory
 * above it was unchanged (see `dir_times.ts`); a directory that keeps
 * changing is given up after {@linkcode SETTLE_ATTEMPTS} readings, never
 * read unbracketed. A listing is cached only while its directory's times
 * are old enough to move on the next change.
 *
 * @module
 */

import { changing, unreadable, type WorkspaceError } from "./errors.ts";
import { errnoOf, FsError } from "./fs_error.ts";
import { Lru } from "./lru.ts";
import { isRacy } from "./racy.ts";
import type { DirHandle, RootFs } from "./secure_fs.ts";

/** What an entry is: file, directory, link, other. */
export type Kind = 0 | 1 | 2 | 3;
/** A regular file. */
export const FILE = 0;
/** A directory. */
export const DIR = 1;
/** A symbolic link. */
export const LINK = 2;

/** Readings of a directory that keeps changing above (see RootFs.list)
 * before it is given up as changing. */
export const SETTLE_ATTEMPTS = 5;

// Most files whose metadata a walk reads in one bracket (see fileRun).
const SIZE_RUN = 256;

// Listings of at least this many entries are cached for paging.
const CACHE_LISTING_ENTRIES = 256;

/** The sorted names of a directory, as read at one moment. */
export interface Listing {
  /** Names, in code-unit order, without `.git` and unreadable names. */
  names: string[];
  /** Each name's {@linkcode Kind}. */
  kinds: Uint8Array;
  /** The directory's times and size when read. */
  stamp: string;
  /** Names left out as not valid UTF-8. */
  badNames: number;
}

/** Code-unit order. */
export function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The client's error for `path`, whose bracketed reading (see
 * {@linkcode settled}) failed with `error`: it kept changing, or it could
 * not be read.
 */
export function gaveUp(path: string, error: unknown): WorkspaceError {
  const code = errnoOf(error);
  if (code === "ESTALE" || code === "EAGAIN") return changing(path);
  return unreadable(path, code || String(error));
}

/**
 * What `read` (a bracketed reading: RootFs.list, RootFs.lstatAllAt, a
 * bracketed open) gives, waiting out a directory above that changed too
 * recently to be watched (the `FsError` says how long) and trying again
 * after one that changed while it was read, a few times: a directory kept
 * changing all the while is given up (a loop of swaps).
 */
export async function settled<T>(
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
        if (code === "EAGAIN") throw new FsError("ESTALE", "it keeps changing");
        throw error;
      }
      signal?.throwIfAborted();
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
}

/**
 * Files' metadata read in one bracket (see {@linkcode fileRun}), from the
 * entry the run started at: that entry's is `sized[0]` (undefined for
 * what is no file), up to entry `end`.
 */
export interface SizedRun {
  /** Each entry's metadata, or the Error of its reading. */
  sized: (Deno.FileInfo | Error | undefined)[];
  /** The entry after the run. */
  end: number;
}

/** What the walk wants of a listing's first run (see {@linkcode fileRun}). */
export interface RunWanted {
  /** The directories listed are not descended: the run may pass them. */
  pastDirs: boolean;
}

// The files of `listing` a run from entry `at` reads (see fileRun), the
// entry each is, and the entry after the run.
function runAt(
  listing: Listing,
  at: number,
  pastDirs: boolean,
): { picked: string[]; slots: number[]; end: number } {
  const { names, kinds } = listing;
  const picked: string[] = [];
  const slots: number[] = [];
  let end = at;
  while (
    end < names.length && (pastDirs || kinds[end] !== DIR) &&
    picked.length < SIZE_RUN
  ) {
    if (kinds[end] === FILE) {
      picked.push(names[end]);
      slots.push(end);
    }
    end++;
  }
  return { picked, slots, end };
}

function sizedRun(
  start: number,
  run: { slots: number[]; end: number },
  infos: (Deno.FileInfo | Error)[],
): SizedRun {
  const sized = new Array<Deno.FileInfo | Error | undefined>(run.end - start);
  for (let i = 0; i < run.slots.length; i++) {
    sized[run.slots[i] - start] = infos[i];
  }
  return { sized, end: run.end };
}

/**
 * The metadata of the files of `listing` (of `dir`) from entry `at` on, up
 * to the next directory (at most SIZE_RUN): one bracketed reading of
 * them all (retried as {@linkcode settled} says), instead of a checked
 * lstat each. Not past a directory the walk descends (`pastDirs` false):
 * it walks that subtree before the files after it are yielded, and sizes
 * read that much earlier would be stale.
 */
export async function fileRun(
  fs: RootFs,
  dir: DirHandle,
  listing: Listing,
  at: number,
  signal: AbortSignal | undefined,
  pastDirs = false,
): Promise<SizedRun> {
  const run = runAt(listing, at, pastDirs);
  const infos = await settled(() => fs.lstatAllAt(dir, run.picked), signal);
  return sizedRun(at, run, infos);
}

/** Sorted listings of large directories by device, inode and stamp. */
export class Listings {
  readonly #cache = new Lru<string, Listing>(64, 500_000);

  /**
   * The listing of `dir`, retried as {@linkcode settled} says; with
   * `run`, when it is read now (not kept), its first run of files too (as
   * {@linkcode fileRun} from entry 0), read in the listing's bracket.
   */
  settledListingOf(
    fs: RootFs,
    dir: DirHandle,
    signal: AbortSignal | undefined,
    opened?: Deno.FileInfo,
    run?: RunWanted,
  ): Promise<{ listing: Listing; first?: SizedRun }> {
    return settled(() => this.listingOf(fs, dir, opened, run), signal);
  }

  /**
   * The sorted listing of the open directory `dir`, cached when large,
   * and with `run` its first run of files when read now (see
   * {@linkcode Listings.settledListingOf}).
   */
  listingOf(
    fs: RootFs,
    dir: DirHandle,
    opened?: Deno.FileInfo,
    run?: RunWanted,
  ): { listing: Listing; first?: SizedRun } {
    // The metadata read when it was opened, just now, will do.
    const info = opened ?? fs.stat(dir.fd);
    const mtime = info.mtime?.getTime() ?? 0;
    const stamp =
      `${mtime}:${info.ctime?.getTime()}:${info.size}:${info.nlink}`;
    const key = `${dir.dev}:${dir.ino}`;
    const cached = this.#cache.get(key);
    if (cached !== undefined && cached.stamp === stamp) {
      return { listing: cached };
    }
    const read = fs.list(dir, (entries) => {
      const listing = listingFrom(fs, dir, entries, stamp);
      if (run === undefined) return { listing };
      const files = runAt(listing, 0, run.pastDirs);
      const infos = fs.peekEach(files.picked.map((name) => ({ dir, name })));
      return { listing, first: sizedRun(0, files, infos) };
    });
    // A directory changed within the clock's granularity of now may change
    // again without its times moving: its listing is not cached.
    if (
      read.listing.names.length >= CACHE_LISTING_ENTRIES &&
      !isRacy(Date.now(), mtime, info.ctime?.getTime() ?? NaN)
    ) {
      this.#cache.set(key, read.listing, read.listing.names.length);
    }
    return read;
  }
}

// The sorted listing of `dir` from its entries, as read at `stamp`.
function listingFrom(
  fs: RootFs,
  dir: DirHandle,
  entries: Deno.DirEntry[],
  stamp: string,
): Listing {
  entries.sort((a, b) => byName(a.name, b.name));
  const names: string[] = [];
  const kinds: Kind[] = [];
  let badNames = 0;
  for (const entry of entries) {
    if (entry.name === ".git") continue;
    if (entry.name.includes("\uFFFD")) {
      // Either a real U+FFFD, or a name that is not UTF-8 and was decoded
      // lossily: only the first can be opened by its text.
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
  return { names, kinds: Uint8Array.from(kinds), stamp, badNames };
}
