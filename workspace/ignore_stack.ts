/**
 * The ignore-rule stack (as ripgrep's `crates/ignore/src/dir.rs`): the
 * `.gitignore` rules of each directory on a path, parsed once and cached
 * while the file is unchanged, and the verdict for a path from the rules
 * of the directories above it, the nearest first. The matcher itself is
 * `gitignore.ts`.
 *
 * Invariant: a path is served only when neither the path as the client
 * gave it nor the real path it reached (through links) is excluded by
 * `.git` or a `.gitignore` rule of any directory above it (unless the
 * workspace includes ignored files).
 *
 * @module
 */

import { ignored } from "./errors.ts";
import { WorkspaceHandle } from "./file.ts";
import { IgnoreRules } from "./gitignore.ts";
import { DIR, LINK, type Listing } from "./listing.ts";
import { Lru } from "./lru.ts";
import { isRacy } from "./racy.ts";
import type { DirHandle, RootFs } from "./secure_fs.ts";

/** Largest `.gitignore` read; rules past this many bytes are not used. */
export const MAX_RULES_BYTES = 1024 * 1024;

/** The rules of one directory on a path and where paths below it start. */
export interface Level {
  /** Its `.gitignore` rules, or null. */
  rules: IgnoreRules | null;
  /** Where, in the path's text, what is relative to it starts. */
  offset: number;
}

/** A directory's `.gitignore`, or null, and what it was read from. */
interface RulesEntry {
  stamp: string;
  rules: IgnoreRules | null;
}

/**
 * Whether `path` (a directory when `isDirectory`) is excluded by the
 * first `count` of `levels` (the nearest last).
 */
export function isExcluded(
  levels: readonly Level[],
  count: number,
  path: string,
  isDirectory: boolean,
): boolean {
  let base: string | undefined;
  for (let i = count - 1; i >= 0; i--) {
    const level = levels[i];
    if (level.rules === null) continue;
    base ??= path.slice(path.lastIndexOf("/") + 1);
    const verdict = level.rules.verdictIn(
      path,
      level.offset,
      base,
      isDirectory,
    );
    if (verdict !== undefined) return verdict;
  }
  return false;
}

/**
 * Whether an entry a walk met is excluded: as reached (`relative`, under
 * the first `levels` of `asReached`) or, when the walk started through a
 * link, at its real path (`realName`, under the first `realLevels` of
 * `real`).
 */
export function excludedEntry(
  asReached: Level[],
  levels: number,
  relative: string,
  isDir: boolean,
  real: Level[],
  realLevels: number,
  realName: string,
): boolean {
  if (isExcluded(asReached, levels, relative, isDir)) return true;
  return realLevels > 0 && isExcluded(real, realLevels, realName, isDir);
}

/** Parsed `.gitignore` rules per real directory path, bounded. */
export class IgnoreCache {
  /** Whether rules are not used at all (every rule set is null). */
  readonly includeIgnored: boolean;
  readonly #cache = new Lru<string, RulesEntry>(4096, 32 * 1024 * 1024);

  /** A cache; with `includeIgnored`, no rules are ever read. */
  constructor(includeIgnored: boolean) {
    this.includeIgnored = includeIgnored;
  }

  /** Forget the rules of the directory `dir` (root-relative). */
  forget(dir: string): void {
    this.#cache.delete(dir);
  }

  /**
   * The rules of the open directory `dir`, from the cache while its
   * .gitignore is unchanged.
   */
  rulesOf(fs: RootFs, dir: DirHandle): IgnoreRules | null {
    if (this.includeIgnored) return null;
    let stamp = "-";
    // Its modification and change times (ms; NaN when the system does not
    // say).
    let changed: number[] = [];
    // Most directories have no .gitignore: say so without the lstat that
    // would throw (a thrown NotFound costs several times a lookup).
    if (fs.mayExistAt(dir, ".gitignore")) {
      try {
        // A hint: the content is read through a checked open.
        const info = fs.peekAt(dir, ".gitignore");
        // A .gitignore that is a link is not followed (as git does).
        if (info.isFile) {
          const mtime = info.mtime?.getTime() ?? NaN;
          const ctime = info.ctime?.getTime() ?? NaN;
          stamp =
            `${dir.dev}:${dir.ino}:${info.ino}:${info.size}:${mtime}:${ctime}`;
          changed = [mtime, ctime];
        }
      } catch {
        // None (or unreadable): no rules.
      }
    }
    const key = dir.real;
    const cached = this.#cache.get(key);
    if (cached !== undefined && cached.stamp === stamp) return cached.rules;
    let rules: IgnoreRules | null = null;
    let weight = 1;
    if (stamp !== "-") {
      const opened = fs.openAt(dir, ".gitignore");
      if (opened.kind === "open") {
        const handle = new WorkspaceHandle(fs, opened.fd, "", "", opened.info);
        try {
          if (opened.info.isFile) {
            const bytes = handle.head(MAX_RULES_BYTES);
            rules = IgnoreRules.parse(bytes);
            weight += bytes.length;
          }
        } catch {
          rules = null;
        } finally {
          handle.close();
        }
      }
    }
    // A file changed within the file system clock's granularity of now
    // may change again without its times moving: trust the stamp only
    // once the file is older than that (until then it is read each time).
    const racy = stamp !== "-" && isRacy(Date.now(), ...changed);
    this.#cache.set(key, { stamp: racy ? "" : stamp, rules }, weight);
    return rules;
  }

  /**
   * The rules of the open directory `dir` whose listing is `listing`: a
   * listing without a .gitignore that may be a file says there are none,
   * without the lstat (and its error) that would tell.
   */
  rulesIn(fs: RootFs, dir: DirHandle, listing: Listing): IgnoreRules | null {
    if (this.includeIgnored) return null;
    const names = listing.names;
    let low = 0;
    let high = names.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (names[mid] < ".gitignore") low = mid + 1;
      else high = mid;
    }
    if (names[low] !== ".gitignore") return null;
    const kind = listing.kinds[low];
    if (kind === DIR || kind === LINK) return null;
    return this.rulesOf(fs, dir);
  }
}

/**
 * Reached through links (`stack`, the directories held, and `final`): the
 * real path must not be excluded either. Throws "ignored" for `path`.
 */
export function checkReal(
  fs: RootFs,
  cache: IgnoreCache,
  path: string,
  stack: DirHandle[],
  final: { name: string } | undefined,
): void {
  const real = final === undefined
    ? stack[stack.length - 1].real
    : [stack[stack.length - 1].real, final.name].filter((s) => s).join("/");
  if (real === "") return;
  const levels: Level[] = [];
  for (let i = 0; i < stack.length; i++) {
    const dir = stack[i];
    if (i > 0) {
      const end = dir.real.length;
      if (isExcluded(levels, levels.length, real.slice(0, end), true)) {
        throw ignored(path);
      }
    }
    levels.push({
      rules: cache.rulesOf(fs, dir),
      offset: dir.real === "" ? 0 : dir.real.length + 1,
    });
  }
  if (
    final !== undefined && isExcluded(levels, levels.length, real, false)
  ) throw ignored(path);
}

/**
 * Whether the root-relative `parts` are excluded, reading the rules of
 * each directory on the way (see `Workspace.isIgnored`).
 */
export function ignoredNow(
  fs: RootFs,
  cache: IgnoreCache,
  parts: string[],
  isDirectory: boolean,
): boolean {
  const joined = parts.join("/");
  const levels: Level[] = [{
    rules: cache.rulesOf(fs, fs.rootDir),
    offset: 0,
  }];
  const opened: number[] = [];
  let dir: DirHandle | undefined = fs.rootDir;
  let end = 0;
  try {
    for (let i = 0; i < parts.length; i++) {
      end += (i === 0 ? 0 : 1) + parts[i].length;
      const last = i === parts.length - 1;
      if (
        isExcluded(
          levels,
          levels.length,
          joined.slice(0, end),
          !last || isDirectory,
        )
      ) return true;
      if (last) break;
      // The next directory's rules, if it (still) exists as one.
      let rules: IgnoreRules | null = null;
      if (dir !== undefined) {
        const parent: DirHandle = dir;
        const result = fs.stepAt(parent, parts[i]);
        dir = undefined;
        if (result.kind === "open") {
          opened.push(result.fd);
          if (result.info.isDirectory) {
            dir = fs.dirHandle(
              result.fd,
              parts.slice(0, i + 1).join("/"),
              result.info,
            );
            rules = cache.rulesOf(fs, dir);
          }
        }
      }
      levels.push({ rules, offset: end + 1 });
    }
    return false;
  } finally {
    for (const fd of opened) fs.close(fd);
  }
}
