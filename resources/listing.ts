/**
 * Which files `resources/list` shows, and in what order: the most useful
 * first, breadth-first, so that a listing cut at any length is a good one.
 *
 * Real clients page through a listing only so far (the official SDK and
 * the Inspector stop after 64 pages, some clients read one page), so the
 * list is capped (`--max-resources`) and every other file stays reachable
 * through the resource template and the tools. The order:
 * 1. files directly in the root: README first, then manifests
 *    (`package.json`, `Cargo.toml`, ...), then the other key documents
 *    (LICENSE, CHANGELOG, ...), then the rest by name;
 * 2. then each deeper level in turn (all files at depth 2, then depth 3,
 *    ...), by path (segment by segment, code-unit order).
 *
 * The rank of a file follows from its path alone, so a cursor holding the
 * last path served resumes exactly, even if that file is gone meanwhile.
 * Each real directory is read at most once per listing (links to a
 * directory already seen are not followed again), and a listing stops
 * reading as soon as it has what it needs.
 *
 * @module
 */

import {
  type WalkEntry,
  type Workspace,
  WorkspaceError,
} from "../workspace/workspace.ts";

/** A resume key that this module cannot have produced. */
export class BadResumeKey extends Error {
  /** Make the error for `key`. */
  constructor(key: string) {
    super(`not a workspace path: ${JSON.stringify(key)}`);
    this.name = "BadResumeKey";
  }
}

// Names of key files in the root, by kind; compared case-insensitively.
const MANIFESTS = new Set([
  "package.json",
  "deno.json",
  "deno.jsonc",
  "jsr.json",
  "tsconfig.json",
  "cargo.toml",
  "go.mod",
  "pyproject.toml",
  "setup.py",
  "setup.cfg",
  "requirements.txt",
  "pipfile",
  "gemfile",
  "pom.xml",
  "build.gradle",
  "build.gradle.kts",
  "settings.gradle",
  "settings.gradle.kts",
  "cmakelists.txt",
  "makefile",
  "meson.build",
  "composer.json",
  "mix.exs",
  "package.swift",
  "pubspec.yaml",
  "stack.yaml",
  "build.sbt",
  "project.clj",
  "deps.edn",
  "dune-project",
  "flake.nix",
  "dockerfile",
  "compose.yaml",
  "docker-compose.yml",
]);
const MANIFEST_SUFFIXES = [".cabal", ".csproj", ".fsproj", ".sln", ".gemspec"];
const DOCUMENTS = [
  "license",
  "licence",
  "copying",
  "changelog",
  "changes",
  "contributing",
  "security",
  "agents",
  "claude",
  "notice",
  "authors",
];

/**
 * How useful a file directly in the root is: 0 for a README, 1 for a
 * manifest, 2 for another key document, 3 for anything else.
 */
export function rootFileRank(name: string): number {
  const lower = name.toLowerCase();
  const stem = lower.replace(/\.[^.]*$/, "");
  if (stem === "readme") return 0;
  if (
    MANIFESTS.has(lower) ||
    MANIFEST_SUFFIXES.some((suffix) => lower.endsWith(suffix))
  ) {
    return 1;
  }
  if (DOCUMENTS.includes(stem)) return 2;
  return 3;
}

// A path's rank as a sort key: depth, then (in the root) how useful, then
// the segments themselves.
function rankOf(segments: readonly string[]): (number | string)[] {
  const depth = segments.length;
  return [depth, depth === 1 ? rootFileRank(segments[0]) : 3, ...segments];
}

function compareRanks(
  a: readonly (number | string)[],
  b: readonly (number | string)[],
): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] < b[i]) return -1;
    if (a[i] > b[i]) return 1;
  }
  return a.length - b.length;
}

/** Order two root-relative paths as the listing does (negative: `a` first). */
export function compareListed(a: string, b: string): number {
  return compareRanks(rankOf(a.split("/")), rankOf(b.split("/")));
}

// Keys are root-relative POSIX paths as the walk reports them.
function splitKey(key: string): string[] {
  const parts = key.split("/");
  if (
    key.length === 0 ||
    parts.some((part) =>
      part === "" || part === "." || part === ".." || part.includes("\0")
    )
  ) {
    throw new BadResumeKey(key);
  }
  return parts;
}

// The entries directly in `dir` (after the entry named `after`, if given),
// or none when it is gone or excluded: a listing that meets a directory
// deleted since it was seen goes on.
async function* entriesOf(
  workspace: Workspace,
  dir: string,
  after: string | undefined,
  signal: AbortSignal | undefined,
  met?: Map<string, WalkEntry>,
): AsyncGenerator<WalkEntry> {
  // The directory's entry, when a walk of its parent yielded it: the walk
  // starts from there instead of looking the path up from the root.
  const from = met?.get(dir);
  met?.delete(dir);
  try {
    yield* workspace.walk({
      path: dir,
      maxDepth: 1,
      after,
      signal,
      sizes: true,
      from,
    });
  } catch (error) {
    if (error instanceof WorkspaceError) return;
    throw error;
  }
}

function join(segments: readonly string[]): string {
  return segments.join("/");
}

/**
 * Whether `entry`, met in a real directory, is a real directory itself (not
 * a link to one). The listing reaches every file through real directories
 * only, so links can make it neither loop, nor fan out, nor repeat a file;
 * the watch watches real directories only.
 */
export function isRealDirectory(
  workspace: Workspace,
  entry: { relative: string; absolute: string; isDirectory: boolean },
): boolean {
  if (!entry.isDirectory) return false;
  const root = workspace.root === "/" ? "" : workspace.root;
  return entry.absolute === `${root}/${entry.relative}`;
}

function compareSegments(
  a: readonly string[],
  b: readonly string[],
): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] < b[i]) return -1;
    if (a[i] > b[i]) return 1;
  }
  return a.length - b.length;
}

function nameOf(entry: WalkEntry): string {
  return entry.relative.slice(entry.relative.lastIndexOf("/") + 1);
}

/**
 * The real directories exactly `depth` levels below the root, in path
 * order, found level by level (each directory above them read once).
 */
async function directoriesAt(
  workspace: Workspace,
  depth: number,
  signal: AbortSignal | undefined,
): Promise<string[][]> {
  let level: string[][] = [[]];
  for (let d = 0; d < depth && level.length > 0; d++) {
    const next: string[][] = [];
    for (const dir of level) {
      for await (
        const entry of entriesOf(workspace, join(dir), undefined, signal)
      ) {
        if (isRealDirectory(workspace, entry)) {
          next.push([...dir, nameOf(entry)]);
        }
      }
    }
    level = next;
  }
  return level;
}

/**
 * The regular files of `workspace` in listing order (see the module
 * notes), after the file at the root-relative path `after` when given,
 * lazily: a consumer that stops early stops the reading. Levels are read
 * breadth-first: the directories of one level, in path order, are the
 * next level's to read, so each directory is read once. Resuming reads the
 * directories above the level `after` lies in, then that level from the
 * directory of `after` on; the directories before it are read again only
 * when the listing goes on to the next level, for their subdirectories.
 * Throws
 * {@linkcode BadResumeKey} for an `after` that is not a root-relative path.
 */
export async function* rankedFiles(
  workspace: Workspace,
  after?: string,
  signal?: AbortSignal,
): AsyncGenerator<WalkEntry> {
  const resume = after === undefined ? undefined : splitKey(after);
  // The entries of the directories met, by path, until they are read.
  const met = new Map<string, WalkEntry>();
  // Real directories one level above the files being listed, in path order.
  let frontier: string[][] = [];
  let depth = 2;
  if (resume === undefined || resume.length === 1) {
    // The root: all of it, to put its key files in front.
    const files: WalkEntry[] = [];
    for await (const entry of entriesOf(workspace, "", undefined, signal)) {
      if (entry.isFile) files.push(entry);
      else if (isRealDirectory(workspace, entry)) {
        frontier.push([nameOf(entry)]);
        met.set(entry.relative, entry);
      }
    }
    const from = resume === undefined ? undefined : rankOf(resume);
    for (
      const file of files.sort((a, b) => compareListed(a.relative, b.relative))
    ) {
      if (
        from === undefined || compareRanks(rankOf([file.relative]), from) > 0
      ) {
        yield file;
      }
    }
  } else {
    depth = resume.length;
    frontier = await directoriesAt(workspace, depth - 1, signal);
  }
  // On the level `after` lies in: its directory and name.
  const resumeAt = resume !== undefined && resume.length === depth
    ? { depth, dir: resume.slice(0, -1), name: resume[resume.length - 1] }
    : undefined;
  for (; frontier.length > 0; depth++) {
    const next: string[][] = [];
    // On the resume level, the directories before the resume point were
    // served by earlier pages: they are read again only for the next
    // level's directories, and only if this page gets that far (most pages
    // end on the level they start on).
    let before: string[][] = [];
    let current = frontier;
    if (resumeAt !== undefined && depth === resumeAt.depth) {
      const at = frontier.findIndex((dir) =>
        compareSegments(dir, resumeAt.dir) >= 0
      );
      before = at < 0 ? frontier : frontier.slice(0, at);
      current = at < 0 ? [] : frontier.slice(at);
    }
    for (const dir of current) {
      // In the resume point's directory: the files after it.
      const resumeName = resumeAt !== undefined && depth === resumeAt.depth &&
          compareSegments(dir, resumeAt.dir) === 0
        ? resumeAt.name
        : undefined;
      for await (
        const entry of entriesOf(workspace, join(dir), undefined, signal, met)
      ) {
        if (entry.isFile) {
          if (resumeName === undefined || nameOf(entry) > resumeName) {
            yield entry;
          }
        } else if (isRealDirectory(workspace, entry)) {
          next.push([...dir, nameOf(entry)]);
          met.set(entry.relative, entry);
        }
      }
    }
    const earlier: string[][] = [];
    if (before.length > 0) {
      for (const dir of before) {
        for await (
          const entry of entriesOf(workspace, join(dir), undefined, signal)
        ) {
          if (!entry.isFile && isRealDirectory(workspace, entry)) {
            earlier.push([...dir, nameOf(entry)]);
          }
        }
      }
    }
    frontier = earlier.length > 0 ? [...earlier, ...next] : next;
  }
}

/** Where a page of the listing resumes. */
export interface ListPosition {
  /** Root-relative path of the last file served. */
  after: string;
  /** How many files the listing has served up to and including it. */
  served: number;
}

/** Options of {@linkcode listFiles}. */
export interface ListFilesOptions {
  /** Resume after this position (undefined: from the start). */
  from?: ListPosition;
  /** Most files in this page. */
  limit: number;
  /** Most files in the whole listing, over all pages. */
  cap: number;
  /** Which files may be listed (those that can be read back, say). */
  accept: (entry: WalkEntry) => boolean | Promise<boolean>;
  /** Stops the listing. */
  signal?: AbortSignal;
}

/**
 * One page of the listing: accepted files after `from`, at most `limit`
 * of them and none past the first `cap` served over all pages; `next` is
 * where the following page starts, absent on the last page. Throws
 * {@linkcode BadResumeKey} for a position this module did not make.
 */
export async function listFiles(
  workspace: Workspace,
  options: ListFilesOptions,
): Promise<{ files: WalkEntry[]; next?: ListPosition }> {
  const served = options.from?.served ?? 0;
  if (!Number.isSafeInteger(served) || served < 0) {
    throw new BadResumeKey(String(served));
  }
  const room = Math.min(options.limit, options.cap - served);
  const files: WalkEntry[] = [];
  if (room <= 0) return { files };
  for await (
    const entry of rankedFiles(workspace, options.from?.after, options.signal)
  ) {
    if (!await options.accept(entry)) continue;
    if (files.length === room) {
      // One more accepted file exists; another page is due if the cap allows.
      const last = files[files.length - 1];
      return served + files.length < options.cap
        ? {
          files,
          next: { after: last.relative, served: served + files.length },
        }
        : { files };
    }
    files.push(entry);
  }
  return { files };
}

/** The resume key of a position, as the provider's cursor carries it. */
export function positionKey(position: ListPosition): string {
  return `${position.served}:${position.after}`;
}

/** The position a key from {@linkcode positionKey} names. */
export function keyPosition(key: string): ListPosition {
  const match = /^(0|[1-9][0-9]{0,14}):(.+)$/s.exec(key);
  if (match === null) throw new BadResumeKey(key);
  splitKey(match[2]);
  return { served: Number(match[1]), after: match[2] };
}
