/**
 * Path resolution: a client path (or a walk's entry) followed from the
 * open root one name at a time, links read and followed here, never by
 * the system.
 *
 * Invariants:
 * - a link whose target leaves the root is refused ("outside") without
 *   touching anything outside it, whether the target exists or not;
 * - `.git` is never reached, and a path excluded by `.gitignore`, as given
 *   or at the real path it reached, is refused ("ignored");
 * - at most {@linkcode MAX_LINK_HOPS} links are followed in one path.
 *
 * @module
 */

import { clientSegments, MAX_PATH_BYTES } from "./client_path.ts";
import { ignored, invalid, notFound, outside, unreadable } from "./errors.ts";
import { checkReal, isExcluded, type Level } from "./ignore_stack.ts";
import type { IgnoreRules } from "./gitignore.ts";
import type { DirHandle, RootFs } from "./secure_fs.ts";
import type { Found, Tree, WalkEntry } from "./tree.ts";
import type { Lookups, Passed } from "./lookups.ts";

/** Symlink hops allowed while resolving one path, as POSIX's SYMLOOP_MAX. */
export const MAX_LINK_HOPS = 40;

/**
 * Open an entry a walk yielded: from the directory the walk still holds,
 * else by its path (see {@linkcode find}).
 */
export function findEntry(tree: Tree, entry: WalkEntry): Found {
  const fs = tree.fs;
  const origin = tree.origins.get(entry);
  const byPath = () =>
    find(
      tree,
      entry.relative,
      clientSegments(fs.root, entry.relative),
      undefined,
      true,
    );
  if (origin === undefined || !origin.frame.open || origin.link) {
    return byPath();
  }
  // The walk still holds the entry's directory: one open, no lookup.
  const opened = fs.openAt(origin.frame.dir, origin.name, {
    listedPlain: true,
    listed: origin.listed,
    bracketed: true,
  });
  if (opened.kind === "open") {
    const dir = origin.frame.dir;
    return {
      relative: entry.relative,
      real: dir.real === "" ? origin.name : `${dir.real}/${origin.name}`,
      fd: opened.fd,
      info: opened.info,
    };
  }
  if (opened.kind === "missing") throw notFound(entry.relative);
  if (opened.kind === "denied") {
    throw unreadable(entry.relative, opened.code);
  }
  // It became a link since it was listed: resolve it as a path.
  return byPath();
}

/**
 * Follow `segments` from the root, one name at a time, reading links
 * ourselves and refusing any whose target leaves the root, checking
 * ignore rules for the path as given and for the real path reached.
 * Returns what the path names, opened when it could be. `levels`, when
 * given, receives the ignore levels of the directories above the end of
 * a non-empty path, as the lookup met them. `bracketed`: what the path
 * names is opened as `RootFs.openAt`'s option says (for a caller that
 * hands out what it reads, and tries again when that throws).
 */
export function find(
  tree: Tree,
  path: string,
  segments: string[],
  levels?: Level[],
  bracketed = false,
  lookups?: Lookups,
): Found {
  const fs = tree.fs;
  const passed = bracketed && !fs.descriptorPaths
    ? lookups?.passed(tree)
    : undefined;
  const asked = segments.join("/");
  // The deepest directory on the path an earlier lookup passed, if any.
  let from: Passed | undefined;
  let done = 0; // Requested segments fully resolved.
  let askedEnd = 0; // Length of the requested prefix resolved so far.
  if (passed !== undefined && passed.size > 0) {
    for (let at = asked.lastIndexOf("/"); at > 0;) {
      from = passed.get(asked.slice(0, at));
      if (from !== undefined) {
        askedEnd = at;
        for (let i = 0; i < at; i++) if (asked[i] === "/") done++;
        done++;
        break;
      }
      at = asked.lastIndexOf("/", at - 1);
    }
  }
  const stack: DirHandle[] = from === undefined
    ? [fs.rootDir]
    : [...from.stack];
  // Pending names, last first: the requested ones, then link targets.
  const pending = segments.slice(done).reverse();
  let hops = 0;
  let final: { name: string; fd: number; info: Deno.FileInfo } | undefined;
  const check = !tree.rules.includeIgnored;
  // The path as given: its bytes and, per resolved directory, its rules.
  const askedLevels: Level[] = from !== undefined
    ? [...from.levels]
    : check
    ? [{ rules: tree.rules.rulesOf(fs, fs.rootDir), offset: 0 }]
    : [];
  const closeStack = () => {
    for (const dir of stack) fs.close(dir.fd);
    stack.length = 1;
  };
  try {
    while (pending.length > 0) {
      const name = pending.pop() as string;
      if (final !== undefined) {
        // A name after a file: the path cannot exist.
        throw notFound(path);
      }
      if (name === "" || name === ".") {
        // Only from link targets ("a//b", "./b").
      } else if (name === "..") {
        // Only from link targets: the real parent is the held one.
        if (stack.length === 1) throw outside(path);
        fs.close((stack.pop() as DirHandle).fd);
      } else if (name === ".git") {
        throw ignored(path);
      } else {
        const dir = stack[stack.length - 1];
        // A name with more to follow must be a directory: a step will do.
        // A file the run read ahead needs no bracket of its own.
        const listed = passed !== undefined && pending.length === 0 &&
            hops === 0 && dir.real !== ""
          ? lookups?.listedFor(tree, asked, dir)
          : undefined;
        const opened = pending.length > 0
          ? fs.stepAt(dir, name, false, bracketed)
          : fs.openAt(dir, name, { bracketed, listed, listedPlain: !!listed });
        if (opened.kind === "missing") throw notFound(path);
        if (opened.kind === "link") {
          if (++hops > MAX_LINK_HOPS) {
            throw invalid(path, "too many levels of symbolic links");
          }
          const { parts, fromRoot } = linkTarget(fs, dir, name, path);
          if (fromRoot) closeStack();
          if (pending.length + parts.length > MAX_PATH_BYTES) {
            throw invalid(path, "its links expand to too long a path");
          }
          for (let i = parts.length - 1; i >= 0; i--) pending.push(parts[i]);
        } else if (opened.kind === "denied") {
          if (pending.length > 0 || opened.code === "ESTALE") {
            throw unreadable(path, opened.code);
          }
          // The last name, unreadable: its metadata still answers.
          final = {
            name,
            fd: -1,
            info: deniedInfo(fs, dir, name, path, opened.code),
          };
        } else if (opened.info.isDirectory) {
          const real = dir.real === "" ? name : `${dir.real}/${name}`;
          stack.push(fs.dirHandle(opened.fd, real, opened.info));
        } else {
          final = { name, fd: opened.fd, info: opened.info };
        }
      }
      // A requested segment is done once its link targets are consumed.
      if (pending.length === segments.length - done - 1) {
        const isDir = final === undefined;
        askedEnd += (done === 0 ? 0 : 1) + segments[done].length;
        done++;
        if (
          check &&
          isExcluded(
            askedLevels,
            askedLevels.length,
            asked.slice(0, askedEnd),
            isDir,
          )
        ) throw ignored(path);
        if (check && isDir && done < segments.length) {
          askedLevels.push({
            rules: tree.rules.rulesOf(fs, stack[stack.length - 1]),
            offset: askedEnd + 1,
          });
        }
        if (
          passed !== undefined && isDir && done < segments.length &&
          hops === 0 && stack[stack.length - 1].fd === -1
        ) {
          passed.set(asked.slice(0, askedEnd), {
            stack: [...stack],
            levels: [...askedLevels],
          });
        }
      }
    }
    if (final === undefined && stack[stack.length - 1].fd === -1) {
      // Stepped into (a link's target ended in "/" or "/."): open it.
      openStepped(fs, stack, path, bracketed);
    }
    const top = stack[stack.length - 1];
    const real = final === undefined
      ? top.real
      : top.real === ""
      ? final.name
      : `${top.real}/${final.name}`;
    const relative = segments.join("/");
    if (check && real !== relative) {
      checkReal(fs, tree.rules, path, stack, final);
    }
    // The levels above the end, for a caller that goes on below it.
    if (levels !== undefined && segments.length > 0) {
      levels.push(...askedLevels);
    }
    if (final !== undefined) {
      return { relative, real, fd: final.fd, info: final.info };
    }
    // The directory's descriptor goes to the caller.
    stack.pop();
    return { relative, real, fd: top.fd, info: fs.stat(top.fd), dir: top };
  } catch (error) {
    if (final !== undefined) fs.close(final.fd);
    throw error;
  } finally {
    closeStack();
  }
}

// The names the link `name` in `dir` points to, and whether they start
// at the root (an absolute target inside it); refuses one that leaves the
// root, without looking at anything outside it.
function linkTarget(
  fs: RootFs,
  dir: DirHandle,
  name: string,
  path: string,
): { parts: string[]; fromRoot: boolean } {
  let target: string;
  try {
    target = fs.readLinkAt(dir, name);
  } catch {
    throw notFound(path); // Gone, or no longer a link.
  }
  if (target === "") throw notFound(path);
  let fromRoot = false;
  if (target.startsWith("/")) {
    const root = fs.root === "/" ? "" : fs.root;
    if (target !== root && !target.startsWith(`${root}/`)) {
      throw outside(path);
    }
    fromRoot = true;
    target = target.slice(root.length);
  }
  return { parts: target.split("/"), fromRoot };
}

// The metadata of the last name of `path`, which could not be opened
// (`code`): it still answers, unless it is a link or cannot be read.
function deniedInfo(
  fs: RootFs,
  dir: DirHandle,
  name: string,
  path: string,
  code: string,
): Deno.FileInfo {
  let info: Deno.FileInfo;
  try {
    info = fs.lstatAt(dir, name);
  } catch {
    throw unreadable(path, code);
  }
  if (info.isSymlink) throw unreadable(path, code);
  return info;
}

// Open the directory on top of `stack`, stepped into without a descriptor
// (a link's target ended in "/" or "/."), in its place; it must be the
// very directory stepped into.
function openStepped(
  fs: RootFs,
  stack: DirHandle[],
  path: string,
  bracketed: boolean,
): void {
  const stepped = stack.pop() as DirHandle;
  const parent = stack[stack.length - 1];
  const name = stepped.real.slice(stepped.real.lastIndexOf("/") + 1);
  const opened = fs.openAt(parent, name, { bracketed });
  if (opened.kind !== "open") throw notFound(path);
  stack.push(fs.dirHandle(opened.fd, stepped.real, opened.info));
  if (
    !opened.info.isDirectory || opened.info.ino !== stepped.ino ||
    opened.info.dev !== stepped.dev
  ) throw unreadable(path, "it changed while being opened");
}

/**
 * The start of a walk from `entry` (see WalkOptions.from), opened from
 * the directory its walk met it in, with the ignore levels in force
 * there put in `levels`; undefined when only a lookup will do.
 */
export function reopen(
  tree: Tree,
  entry: WalkEntry,
  levels: Level[],
): Found | undefined {
  const fs = tree.fs;
  const origin = tree.origins.get(entry);
  const chain = origin?.frame.levels;
  if (
    origin === undefined || chain === undefined || origin.link ||
    !entry.isDirectory
  ) return undefined;
  const parent = origin.frame.dir;
  const real = parent.real === ""
    ? origin.name
    : `${parent.real}/${origin.name}`;
  if (real !== entry.relative) return undefined;
  // The parent is checked by its identity, read through its path; an
  // ancestor moved out of the root and replaced by a link to where it
  // went keeps that identity. The path must still be its own, with no
  // link on the way; otherwise the lookup from the root decides.
  const absolute = fs.absolute(real);
  try {
    if (Deno.realPathSync(absolute) !== absolute) return undefined;
  } catch {
    return undefined;
  }
  // A step to be listed, as the walk descends (the chain is kept only for
  // re-checked paths, where a directory is listed by its path): one
  // reading, since the listing's bracket checks that the path leads to
  // this very directory; no descriptor to open, fstat and close.
  const opened = fs.stepAt(parent, origin.name, true);
  if (opened.kind !== "open") return undefined;
  if (!opened.info.isDirectory) {
    fs.close(opened.fd);
    return undefined;
  }
  levels.push(...chain);
  return {
    relative: real,
    real,
    fd: opened.fd,
    info: opened.info,
    dir: fs.dirHandle(opened.fd, real, opened.info),
  };
}

/**
 * Ignore levels of the directories above `relative` (a real directory
 * path whose own level the caller adds), read through fresh lookups.
 */
export function levelsOf(tree: Tree, relative: string): Level[] {
  const fs = tree.fs;
  const levels: Level[] = [{
    rules: tree.rules.rulesOf(fs, fs.rootDir),
    offset: 0,
  }];
  if (relative === "") return [];
  const parts = relative.split("/");
  let offset = 0;
  for (let i = 0; i < parts.length - 1; i++) {
    offset += (i === 0 ? 0 : 1) + parts[i].length;
    let rules: IgnoreRules | null = null;
    try {
      const found = find(tree, relative, parts.slice(0, i + 1));
      try {
        if (found.info.isDirectory) {
          rules = tree.rules.rulesOf(fs, found.dir as DirHandle);
        }
      } finally {
        fs.close(found.fd);
      }
    } catch {
      rules = null;
    }
    levels.push({ rules, offset: offset + 1 });
  }
  return levels;
}
