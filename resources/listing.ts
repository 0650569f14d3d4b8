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

// The entries directly in `dir`, or none when it is gone or excluded: a
// listing that meets a directory deleted since it was seen goes on.
async function* entriesOf(
  workspace: Workspace,
  dir: string,
  signal: AbortSignal | undefined,
): AsyncGenerator<WalkEntry> {
  try {
    yield* workspace.walk({ path: dir, maxDepth: 1, signal });
  } catch (error) {
    if (error instanceof WorkspaceError) return;
    throw error;
  }
}

/**
 * Every regular file of `workspace` in listing order (see the module
 * notes), lazily: a consumer that stops early stops the reading.
 */
export async function* rankedFiles(
  workspace: Workspace,
  signal?: AbortSignal,
): AsyncGenerator<WalkEntry> {
  const seen = new Set<string>([workspace.root]);
  // The root: all of it first, to put its key files in front.
  const rootFiles: WalkEntry[] = [];
  let level: string[] = [];
  for await (const entry of entriesOf(workspace, "", signal)) {
    if (entry.isFile) rootFiles.push(entry);
    else if (entry.isDirectory && !seen.has(entry.absolute)) {
      seen.add(entry.absolute);
      level.push(entry.relative);
    }
  }
  rootFiles.sort((a, b) =>
    rootFileRank(a.relative) - rootFileRank(b.relative) ||
    (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0)
  );
  yield* rootFiles;
  // Deeper levels, one at a time, each in path order.
  while (level.length > 0) {
    const next: string[] = [];
    for (const dir of level) {
      for await (const entry of entriesOf(workspace, dir, signal)) {
        if (entry.isFile) yield entry;
        else if (entry.isDirectory && !seen.has(entry.absolute)) {
          seen.add(entry.absolute);
          next.push(entry.relative);
        }
      }
    }
    level = next;
  }
}

/** Options of {@linkcode listFiles}. */
export interface ListFilesOptions {
  /** Resume after the file at this root-relative path (undefined: start). */
  after?: string;
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
 * One page of the listing: the accepted files after `after`, at most
 * `limit` of them and none past the first `cap` accepted files; `more`
 * when the listing goes on. Throws {@linkcode BadResumeKey} for an `after`
 * that is not a root-relative path.
 */
export async function listFiles(
  workspace: Workspace,
  options: ListFilesOptions,
): Promise<{ files: WalkEntry[]; more: boolean }> {
  const after = options.after === undefined
    ? undefined
    : rankOf(splitKey(options.after));
  const files: WalkEntry[] = [];
  let position = 0; // Accepted files so far, from the very first.
  for await (const entry of rankedFiles(workspace, options.signal)) {
    if (position === options.cap) return { files, more: false };
    if (!await options.accept(entry)) continue;
    position++;
    if (
      after !== undefined &&
      compareRanks(rankOf(entry.relative.split("/")), after) <= 0
    ) continue;
    if (files.length === options.limit) return { files, more: true };
    files.push(entry);
  }
  return { files, more: false };
}
