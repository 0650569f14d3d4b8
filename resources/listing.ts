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
 * Where a listing stands between two pages: what was read and not yet
 * served, so that the next page goes on from there without reading again
 * anything read before (see {@linkcode ListingStates}). Made by
 * {@linkcode listFiles}; opaque to everything else. Holds no descriptor.
 */
export interface ListingState {
  /**
   * The level being listed: 1 before the root is read, then the depth of
   * the files being served (2 = files in the root's directories).
   */
  depth: number;
  /**
   * Files read and not served yet: the lookahead file that ended a page,
   * then the root's files in their order; handed out from `held`.
   */
  pending: WalkEntry[];
  held: number;
  /**
   * Real directories one level above the files being listed, in path
   * order; `index` is the one being read.
   */
  frontier: string[][];
  index: number;
  /**
   * In `frontier[index]`: the last name read (everything up to it is
   * done), and the files up to `skipFiles` served by earlier pages (a
   * resume without a state: its subdirectories are still collected).
   */
  after?: string;
  skipFiles?: string;
  /**
   * Directories of this level before the resume point whose
   * subdirectories are still to be collected (a resume without a state),
   * read when the listing gets to the next level.
   */
  earlier: string[][];
  /** Real directories of the next level found so far, in path order. */
  next: string[][];
  /** The entries of the directories met, by path, until they are read. */
  met: Map<string, WalkEntry>;
}

function freshState(): ListingState {
  return {
    depth: 1,
    pending: [],
    held: 0,
    frontier: [],
    index: 0,
    earlier: [],
    next: [],
    met: new Map(),
  };
}

// Read the root: its files, sorted, into `pending` (those after `resume`
// when given), its real directories as the frontier of level 2.
async function readRoot(
  workspace: Workspace,
  state: ListingState,
  resume: string[] | undefined,
  signal: AbortSignal | undefined,
): Promise<void> {
  const files: WalkEntry[] = [];
  for await (const entry of entriesOf(workspace, "", undefined, signal)) {
    if (entry.isFile) files.push(entry);
    else if (isRealDirectory(workspace, entry)) {
      state.frontier.push([nameOf(entry)]);
      state.met.set(entry.relative, entry);
    }
  }
  files.sort((a, b) => compareListed(a.relative, b.relative));
  const from = resume === undefined ? undefined : rankOf(resume);
  state.pending = from === undefined
    ? files
    : files.filter((file) => compareRanks(rankOf([file.relative]), from) > 0);
  state.held = 0;
  state.depth = 2;
  state.index = 0;
}

// The state of a listing resumed after `after` with nothing kept from the
// page that ended there: the directories above its level are read again
// (each once); on its level, the directories before it are read again
// only if the listing gets to the next level, for their subdirectories.
async function resumedState(
  workspace: Workspace,
  after: string,
  signal: AbortSignal | undefined,
): Promise<ListingState> {
  const resume = splitKey(after);
  const state = freshState();
  if (resume.length === 1) {
    await readRoot(workspace, state, resume, signal);
    return state;
  }
  state.depth = resume.length;
  const frontier = await directoriesAt(workspace, state.depth - 1, signal);
  const dir = resume.slice(0, -1);
  const at = frontier.findIndex((d) => compareSegments(d, dir) >= 0);
  state.frontier = frontier;
  state.index = at < 0 ? frontier.length : at;
  state.earlier = frontier.slice(0, state.index);
  if (at >= 0 && compareSegments(frontier[at], dir) === 0) {
    state.skipFiles = resume[resume.length - 1];
  }
  return state;
}

/**
 * The regular files of `workspace` in listing order (see the module
 * notes) from where `state` stands, lazily: a consumer that stops early
 * stops the reading, and `state` then says where it stopped (everything
 * up to the last file yielded is done). Levels are read breadth-first:
 * the directories of one level, in path order, are the next level's to
 * read, so each directory is read once over the whole listing, however it
 * is cut into pages.
 */
async function* filesFrom(
  workspace: Workspace,
  state: ListingState,
  signal: AbortSignal | undefined,
): AsyncGenerator<WalkEntry> {
  if (state.depth === 1) await readRoot(workspace, state, undefined, signal);
  for (;;) {
    while (state.held < state.pending.length) {
      yield state.pending[state.held++];
    }
    if (state.index >= state.frontier.length) {
      // The level is done: its directories' subdirectories, those before
      // a stateless resume point first, are the next level.
      const earlier: string[][] = [];
      for (const dir of state.earlier) {
        for await (
          const entry of entriesOf(workspace, join(dir), undefined, signal)
        ) {
          if (!entry.isFile && isRealDirectory(workspace, entry)) {
            earlier.push([...dir, nameOf(entry)]);
          }
        }
      }
      const next = earlier.length > 0
        ? [...earlier, ...state.next]
        : state.next;
      if (next.length === 0) return;
      state.frontier = next;
      state.next = [];
      state.earlier = [];
      state.index = 0;
      state.depth++;
      continue;
    }
    const dir = state.frontier[state.index];
    for await (
      const entry of entriesOf(
        workspace,
        join(dir),
        state.after,
        signal,
        state.met,
      )
    ) {
      const name = nameOf(entry);
      state.after = name;
      if (entry.isFile) {
        if (state.skipFiles === undefined || name > state.skipFiles) {
          yield entry;
        }
      } else if (isRealDirectory(workspace, entry)) {
        state.next.push([...dir, name]);
        state.met.set(entry.relative, entry);
      }
    }
    state.index++;
    state.after = undefined;
    state.skipFiles = undefined;
  }
}

/**
 * The regular files of `workspace` in listing order (see the module
 * notes), after the file at the root-relative path `after` when given,
 * lazily: a consumer that stops early stops the reading. Resuming reads
 * the directories above the level `after` lies in, then that level from
 * the directory of `after` on; the directories before it are read again
 * only when the listing goes on to the next level, for their
 * subdirectories. ({@linkcode listFiles} keeps where a page ended, so
 * that the next one reads none of that again.) Throws
 * {@linkcode BadResumeKey} for an `after` that is not a root-relative path.
 */
export async function* rankedFiles(
  workspace: Workspace,
  after?: string,
  signal?: AbortSignal,
): AsyncGenerator<WalkEntry> {
  const state = after === undefined
    ? freshState()
    : await resumedState(workspace, after, signal);
  yield* filesFrom(workspace, state, signal);
}

/** Where a page of the listing resumes. */
export interface ListPosition {
  /** Root-relative path of the last file served. */
  after: string;
  /** How many files the listing has served up to and including it. */
  served: number;
}

/**
 * Where recent pages ended, by their resume key: a page that resumes one
 * of them goes on from there instead of reading the tree again, so that
 * paging through the whole listing costs one pass. At most `max` kept, the
 * oldest dropped first; a state is taken by the page that resumes it (a
 * second request with the same cursor reads afresh). Keys are positions,
 * so a cursor means the same with or without its state: a state only
 * saves reading.
 */
export class ListingStates {
  readonly #max: number;
  readonly #states = new Map<string, ListingState>();

  /** Keep at most `max` states (default 8). */
  constructor(max = 8) {
    this.#max = max;
  }

  /** The state kept for `key`, removed; undefined when none is. */
  take(key: string): ListingState | undefined {
    const state = this.#states.get(key);
    this.#states.delete(key);
    return state;
  }

  /** Keep `state` for the page that resumes at `key`. */
  put(key: string, state: ListingState): void {
    this.#states.delete(key);
    this.#states.set(key, state);
    while (this.#states.size > this.#max) {
      this.#states.delete(this.#states.keys().next().value!);
    }
  }

  /** How many states are kept. */
  get size(): number {
    return this.#states.size;
  }
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
  /**
   * Where earlier pages ended: this page goes on from its position's
   * state when one is kept, and keeps its own end there.
   */
  states?: ListingStates;
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
  const from = options.from;
  const states = options.states;
  let state = from === undefined ? undefined : states?.take(positionKey(from));
  if (state === undefined) {
    state = from === undefined
      ? freshState()
      : await resumedState(workspace, from.after, options.signal);
  }
  for await (const entry of filesFrom(workspace, state, options.signal)) {
    if (!await options.accept(entry)) continue;
    if (files.length === room) {
      // One more accepted file exists; another page is due if the cap allows.
      const last = files[files.length - 1];
      if (served + files.length >= options.cap) return { files };
      const next = { after: last.relative, served: served + files.length };
      if (states !== undefined) {
        // The file read ahead comes first on the next page.
        if (state.held > 0 && state.pending[state.held - 1] === entry) {
          state.held--;
        } else {
          state.pending = [entry, ...state.pending.slice(state.held)];
          state.held = 0;
        }
        states.put(positionKey(next), state);
      }
      return { files, next };
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
