/**
 * The bracket of settled directory times: how the re-checked mode (no
 * descriptor paths, so no `openat`) reads a path below the root that no
 * loop of swaps can lead outside.
 *
 * The times of every directory on the path, from the root down, are read
 * before the read (a settled reading: still long enough that any later
 * change must move them) and again after, deepest first. A directory
 * whose entries do not change keeps every name naming the same thing; an
 * entry renamed, added or removed moves its directory's modification time
 * past any settled reading. So unchanged times mean the path named the
 * same thing all along.
 *
 * Invariant: a read bracketed here returns only when every directory on
 * its path had the same identity and times before and after it; else it
 * throws an {@linkcode FsError}, `EAGAIN` (with `waitMs`) when a directory
 * changed too recently to tell, `ESTALE` when one changed in between.
 *
 * @module
 */

import { errnoOf, FsError } from "./fs_error.ts";
import type { DirHandle, Stats } from "./node_fs.ts";
import { COARSE_RACY_MS } from "./racy.ts";
import { absoluteIn, checkDir } from "./recheck.ts";

/** A directory's identity and times, as one reading saw them. */
export interface DirStamp {
  /** Device. */
  dev: number;
  /** Inode. */
  ino: number;
  /** Milliseconds since the epoch; NaN when the system does not say. */
  mtime: number;
  /** See `mtime`. */
  ctime: number;
}

// Settled readings kept, at most (a map by path; cleared when full).
const MAX_STAMPS = 65_536;

function stampOf(info: Deno.FileInfo): DirStamp {
  return {
    dev: info.dev ?? 0,
    ino: info.ino ?? 0,
    mtime: info.mtime?.getTime() ?? NaN,
    ctime: info.ctime?.getTime() ?? NaN,
  };
}

/** Settled readings of the directories below one root, by real path. */
export class DirTimes {
  readonly #root: string;
  // The user running the server, when Deno lets it be known (see
  // settled).
  readonly #ownUid: number | undefined;
  readonly #stamps = new Map<string, DirStamp>();

  /** Readings below the real absolute directory `root`. */
  constructor(root: string, ownUid: number | undefined) {
    this.#root = root;
    this.#ownUid = ownUid;
  }

  /**
   * `read` (by path, inside `dir`) bracketed by settled readings of the
   * directories above `dir`, and of `dir` itself with `within` (for a
   * read of a name in it). Without `within`, `dir` itself must be found at
   * its path in between (see `recheck.ts`). Throws as the module says.
   */
  bracket<T>(dir: DirHandle, read: () => T, within: boolean): T {
    return this.bracketAll([dir], read, within);
  }

  /**
   * {@linkcode DirTimes.bracket} for reads inside several directories at
   * once: each directory on any of their paths is read once before and
   * once after (deepest first), however many of the paths it is on.
   */
  bracketAll<T>(dirs: readonly DirHandle[], read: () => T, within: boolean): T {
    const above: string[] = [];
    const depths: number[] = [];
    const indexOf = new Map<string, number>();
    const add = (real: string, depth: number) => {
      if (indexOf.has(real)) return;
      indexOf.set(real, above.length);
      above.push(real);
      depths.push(depth);
    };
    for (const dir of dirs) {
      add("", 0);
      let depth = 1;
      for (let at = dir.real.indexOf("/"); at !== -1; depth++) {
        add(dir.real.slice(0, at), depth);
        at = dir.real.indexOf("/", at + 1);
      }
      if (within) add(dir.real, depth);
    }
    const before = above.map((real) => this.settled(real));
    for (const dir of dirs) {
      if (!within) {
        checkDir(this.#root, dir);
        continue;
      }
      const own = before[indexOf.get(dir.real) as number];
      if (own.dev !== dir.dev || own.ino !== dir.ino) {
        // Its path names another directory than the one reached.
        this.#stamps.delete(dir.real);
        throw new FsError("ESTALE", "a directory changed");
      }
    }
    const result = read();
    // Deepest first: each reading of a directory falls while the one
    // above it is known unchanged, so it names what it named before.
    const order = above.map((_, i) => i).sort((a, b) =>
      depths[b] - depths[a] || b - a
    );
    for (const i of order) {
      if (!this.holds(above[i], before[i])) {
        // Read afresh next time, every one: those above this one were not
        // checked, and may have changed with it (a swap moves both).
        for (const real of above) this.#stamps.delete(real);
        throw new FsError("ESTALE", "a directory above changed");
      }
    }
    return result;
  }

  /**
   * A settled reading of the directory at `real`: kept from earlier when
   * there is one, else read now, refused (`EAGAIN`) when its last change
   * is too recent for its times to be sure to move again.
   */
  settled(real: string): DirStamp {
    const kept = this.#stamps.get(real);
    if (kept !== undefined) return kept;
    const now = Date.now();
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(absoluteIn(this.#root, real));
    } catch (error) {
      throw new FsError(
        errnoOf(error) || "ESTALE",
        "a directory above is gone",
      );
    }
    if (!info.isDirectory) {
      throw new FsError("ESTALE", "a directory above changed");
    }
    const stamp = stampOf(info);
    // A directory's owner can set its modification time back after a
    // change (utimes); its change time follows the clock, but Deno gives
    // it in whole seconds, so settling it takes up to a second. That is
    // waited for in directories of any owner but the user running the
    // server and root: they may be an adversary's. Ours and root's are
    // trusted not to be (waiting a second after every change would stall
    // every read below a directory that changes often); whoever runs as
    // either could read the files directly.
    const trusted = info.uid === 0 ||
      (info.uid !== null && info.uid === this.#ownUid);
    const waitMs = Math.max(
      settleWait(now, stamp.mtime),
      trusted ? 0 : changeSettleWait(now, stamp.ctime),
    );
    if (waitMs > 0) {
      throw new FsError("EAGAIN", "a directory above changed just now", waitMs);
    }
    if (this.#stamps.size >= MAX_STAMPS) this.#stamps.clear();
    this.#stamps.set(real, stamp);
    return stamp;
  }

  /** Whether the directory at `real` still reads as `stamp`. */
  holds(real: string, stamp: DirStamp): boolean {
    try {
      const now = stampOf(Deno.lstatSync(absoluteIn(this.#root, real)));
      return now.dev === stamp.dev && now.ino === stamp.ino &&
        now.mtime === stamp.mtime && now.ctime === stamp.ctime;
    } catch {
      return false;
    }
  }
}

/**
 * The user running this process, when Deno may tell (`--allow-sys=uid`,
 * which the server is run with); undefined when it may not.
 */
export function ownUid(): number | undefined {
  try {
    if (
      Deno.permissions.querySync({ name: "sys", kind: "uid" }).state !==
        "granted"
    ) {
      return undefined;
    }
    return Deno.uid() ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * A change after a reading gets a time no earlier than one clock tick
 * before it (at most 10 ms: the kernel's coarse clock at 100 Hz; with
 * multigrain times, at least the reading's own). A reading whose last
 * change is older than this is settled: any later change moves its time.
 */
export const SETTLE_MS = 20;

/**
 * How long to wait, at `now`, until a directory whose metadata last
 * changed at `ctime` (ms since the epoch) is settled, as
 * {@linkcode settleWait} says for its modification time; 0 when the
 * system gives no change time. Deno gives change times in whole seconds
 * (whatever the file system keeps), so a change made in the same second
 * would leave one unmoved: settled from SETTLE_MS past the next second.
 */
export function changeSettleWait(now: number, ctime: number): number {
  if (!Number.isFinite(ctime)) return 0;
  return waitPast(
    now,
    ctime,
    ctime % 1000 === 0 ? 1000 + SETTLE_MS : SETTLE_MS,
  );
}

/**
 * How long to wait, at `now`, until a directory last changed at `mtime`
 * (ms since the epoch) is settled; 0 when it is, Infinity when the system
 * gives no time. Whole-second times come from a coarse file system clock
 * and need seconds. A time far enough in the future (an archive's, a
 * clock set back) is settled too: a change now would move it back.
 */
export function settleWait(now: number, mtime: number): number {
  if (!Number.isFinite(mtime)) return Infinity;
  return waitPast(now, mtime, mtime % 1000 === 0 ? COARSE_RACY_MS : SETTLE_MS);
}

// How long, at `now`, until `window` ms have passed since `time`; 0 for a
// time more than `window` ahead (a change now would move it back).
function waitPast(now: number, time: number, window: number): number {
  if (time > now + window) return 0;
  return Math.max(0, time + window - now + 1);
}

/**
 * Whether `opened` (an fstat) is the regular file `listed` (an lstat read
 * in a bracket) described, unchanged since: the same inode, type, owner
 * and times. An inode freed and used again since would have new times.
 */
export function sameFile(listed: Deno.FileInfo, opened: Stats): boolean {
  return listed.isFile && opened.isFile() && listed.dev === opened.dev &&
    listed.ino === opened.ino && listed.mode === opened.mode &&
    listed.uid === opened.uid && listed.gid === opened.gid &&
    listed.mtime !== null && listed.ctime !== null &&
    listed.mtime.getTime() === opened.mtime.getTime() &&
    listed.ctime.getTime() === opened.ctime.getTime();
}
