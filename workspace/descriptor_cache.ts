/**
 * The process-wide (per thread) cache of descriptors of small files, kept
 * open after a read for the next open of the same name: fewer system
 * calls and permission checks.
 *
 * Invariant: a kept descriptor is handed out again only when the name,
 * looked up again and checked as an open is (see `RootFs.openAt`), still
 * names that very file with the same mode, owner and change time. It was
 * inside the root when opened, so a swap can at worst make it the old
 * content, never an outside one. Only small regular files on a local disk,
 * unchanged for a while, are kept, and at most {@linkcode CACHED_FILES}.
 *
 * @module
 */

import { closeFile } from "./node_fs.ts";
import { isRacy } from "./racy.ts";

/**
 * Regular files up to this size keep their descriptor open after a read,
 * for the next open of the same name (see `RootFs.openAt`).
 */
export const CACHED_FILE_BYTES = 256 * 1024;

/**
 * Descriptors kept open that way, at most, per thread (module instance):
 * the main thread's and each scan worker's.
 */
export const CACHED_FILES = 32;

/**
 * Whether `dev` (a file's device) is a block device on Linux: a local
 * disk. Network file systems, FUSE, tmpfs and overlays get anonymous
 * devices (major 0; btrfs too, which only loses the kept descriptors).
 * Elsewhere device numbers mean other things, and none is trusted.
 */
export function onBlockDevice(dev: number | null | undefined): boolean {
  if (Deno.build.os !== "linux" || !dev) return false;
  const major = ((dev >>> 8) & 0xfff) | (Math.floor(dev / 2 ** 32) & ~0xfff);
  return major !== 0;
}

/** A descriptor kept open for the next open of the same name. */
export interface CachedFile {
  /** Directory (device:inode) and name. */
  key: string;
  /** The descriptor. */
  fd: number;
  // The file as opened: any change of these and the name is opened anew.
  /** Device, as opened. */
  dev: number;
  /** Inode, as opened. */
  ino: number;
  /** Mode, as opened. */
  mode: number;
  /** Owner, as opened. */
  uid: number;
  /** Group, as opened. */
  gid: number;
  /** Change time (ms), as opened. */
  ctime: number;
  /** Handles using the descriptor now; closed when evicted and unused. */
  users: number;
  /** Dropped from the cache (closed once unused). */
  evicted: boolean;
}

// By directory (device:inode) and name, least recently used first.
const cachedFiles = new Map<string, CachedFile>();
// The same entries by descriptor, while their descriptor is open.
const sharedFds = new Map<number, CachedFile>();

/** How many descriptors are kept open now (in use or not). */
export function keptDescriptors(): number {
  return sharedFds.size;
}

function evict(entry: CachedFile): void {
  entry.evicted = true;
  if (cachedFiles.get(entry.key) === entry) cachedFiles.delete(entry.key);
  if (entry.users === 0) closeShared(entry);
}

function closeShared(entry: CachedFile): void {
  sharedFds.delete(entry.fd);
  closeFile(entry.fd);
}

/** The key of `name` in the directory `dir` (device and inode). */
export function cacheKey(
  dir: { dev: number; ino: number },
  name: string,
): string {
  return `${dir.dev}:${dir.ino}/${name}`;
}

/**
 * The kept descriptor of `key`, taken for one more user, when `still`
 * (the caller's check that the name still names that very file) gives
 * its metadata; otherwise it is evicted and undefined returned.
 */
export function takeKept(
  key: string,
  still: (kept: CachedFile) => Deno.FileInfo | undefined,
): { fd: number; info: Deno.FileInfo } | undefined {
  const cached = cachedFiles.get(key);
  if (cached === undefined) return undefined;
  const info = still(cached);
  if (info !== undefined) {
    cached.users++;
    cachedFiles.delete(key);
    cachedFiles.set(key, cached);
    return { fd: cached.fd, info };
  }
  evict(cached);
  return undefined;
}

/**
 * Whether `info` (an lstat of the name) shows the kept file unchanged: no
 * link, same inode, mode, owner and ctime (any change of the file's
 * metadata moves its ctime).
 */
export function isKeptFile(info: Deno.FileInfo, kept: CachedFile): boolean {
  return !info.isSymlink && info.dev === kept.dev &&
    info.ino === kept.ino && info.mode === kept.mode &&
    info.uid === kept.uid && info.gid === kept.gid &&
    info.ctime?.getTime() === kept.ctime;
}

/**
 * Keep the descriptor of a small regular file whose metadata has not
 * changed lately, for the next open of the same name.
 */
export function keep(key: string, fd: number, info: Deno.FileInfo): void {
  const ctime = info.ctime?.getTime() ?? NaN;
  if (
    !info.isFile || info.size > CACHED_FILE_BYTES ||
    // Changed within the clock's granularity of now: not kept. (Deno
    // gives change times in whole seconds; modification times tell the
    // clock's real granularity.)
    isRacy(Date.now(), info.mtime?.getTime() ?? NaN, ctime) ||
    // Only on a local disk: a network or FUSE mount answers lstat from an
    // attribute cache, which would keep an old descriptor looking current
    // while the file changed on the other side.
    !onBlockDevice(info.dev)
  ) return;
  if (cachedFiles.size >= CACHED_FILES) {
    evict(cachedFiles.values().next().value as CachedFile);
  }
  const entry: CachedFile = {
    key,
    fd,
    dev: info.dev ?? 0,
    ino: info.ino ?? 0,
    mode: info.mode ?? 0,
    uid: info.uid ?? 0,
    gid: info.gid ?? 0,
    ctime,
    users: 1,
    evicted: false,
  };
  cachedFiles.set(key, entry);
  sharedFds.set(fd, entry);
}

/**
 * Release `fd` when it is a kept descriptor (closed once evicted and
 * unused) and say so; false for any other descriptor, which the caller
 * closes.
 */
export function releaseKept(fd: number): boolean {
  const shared = sharedFds.get(fd);
  if (shared === undefined) return false;
  shared.users--;
  if (shared.evicted && shared.users === 0) closeShared(shared);
  return true;
}
