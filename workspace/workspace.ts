/**
 * Sandboxed, read-only access to one root directory: the only way tools and
 * resources reach the file system.
 *
 * A client path is resolved one component at a time, reading symlinks
 * ourselves instead of asking the OS for a real path, so a link that points
 * outside the root is refused without ever touching (or revealing the
 * existence of) anything outside it. `.git/` is always excluded and
 * `.gitignore` rules (root and nested files) are honoured unless the
 * workspace is opened with `includeIgnored`.
 *
 * File metadata (lstat, readlink, stat, directory listings) is read with
 * the synchronous calls: each asynchronous one costs a round trip to a
 * worker thread, about 40 µs, several times the call itself, and resolving
 * one path takes several of them.
 *
 * @module
 */

import type { Ignore } from "ignore";
import { ToolFailure } from "../mcp/tool.ts";

/** Why a path was refused. */
export type WorkspaceErrorCode =
  | "invalid"
  | "outside"
  | "not_found"
  | "ignored"
  | "not_a_file"
  | "not_a_directory"
  | "too_large";

/** A path the workspace refuses; `message` says what to do instead. */
export class WorkspaceError extends ToolFailure {
  /** Why it was refused. */
  readonly code: WorkspaceErrorCode;
  /** The path as the client gave it. */
  readonly path: string;

  /** Make an error for `path`; `message` is shown to the client. */
  constructor(code: WorkspaceErrorCode, path: string, message: string) {
    super(message);
    this.name = "WorkspaceError";
    this.code = code;
    this.path = path;
  }
}

/** How a workspace is opened. */
export interface WorkspaceOptions {
  /** Serve files that `.gitignore` rules exclude. Default false. */
  includeIgnored?: boolean;
}

/** A client path resolved inside the root. */
export interface ResolvedPath {
  /** POSIX path relative to the root; "" for the root itself. */
  relative: string;
  /** Real absolute path (symlinks resolved), inside the root. */
  absolute: string;
  /** Stat of the real target. */
  info: Deno.FileInfo;
}

/** One entry met by {@linkcode Workspace.walk}. */
export interface WalkEntry {
  /** POSIX path relative to the root, as reached (through links, if any). */
  relative: string;
  /** Real absolute path of what it points to. */
  absolute: string;
  /** A regular file (or a link to one). */
  isFile: boolean;
  /** A directory (or a link to one). */
  isDirectory: boolean;
  /** 1 for entries directly in the walked directory, 2 below that, … */
  depth: number;
}

/** Options of {@linkcode Workspace.walk}. */
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
}

// Symlink hops allowed while resolving one path, as POSIX's SYMLOOP_MAX.
const MAX_LINK_HOPS = 40;

// A parsed .gitignore file, or null when the directory has none.
type IgnoreRules = Ignore | null;

let ignoreFactory: Promise<() => Ignore> | undefined;

// The `ignore` library is loaded on first need, off the startup path.
function loadIgnore(): Promise<() => Ignore> {
  return ignoreFactory ??= import("ignore").then((module) =>
    module.default as unknown as () => Ignore
  );
}

function outside(path: string): WorkspaceError {
  return new WorkspaceError(
    "outside",
    path,
    `"${path}" is outside the workspace root; use a path relative to the root (for example "src/main.ts"), without "..".`,
  );
}

function invalid(path: string, why: string): WorkspaceError {
  return new WorkspaceError(
    "invalid",
    path,
    `"${path}" is not a valid workspace path: ${why}. Use a POSIX path relative to the root, for example "src/main.ts".`,
  );
}

function ignored(path: string): WorkspaceError {
  return new WorkspaceError(
    "ignored",
    path,
    `"${path}" is excluded from the workspace (.git/ or a .gitignore rule); pick a file that list_directory or find_files shows.`,
  );
}

function notFound(path: string): WorkspaceError {
  return new WorkspaceError(
    "not_found",
    path,
    `"${path}" does not exist in the workspace; use list_directory or find_files to see what does.`,
  );
}

function hasErrorName(error: unknown, name: string): boolean {
  return error instanceof Error && error.name === name;
}

/** A read-only view of one directory tree. */
export class Workspace {
  /** Real absolute path of the root. */
  readonly root: string;
  /** Whether `.gitignore` rules are ignored (files they exclude are served). */
  readonly includeIgnored: boolean;

  // Parsed .gitignore per directory (root-relative, "" for the root).
  readonly #rules = new Map<string, IgnoreRules | Promise<IgnoreRules>>();

  private constructor(root: string, includeIgnored: boolean) {
    this.root = root;
    this.includeIgnored = includeIgnored;
  }

  /**
   * Open the directory `root` (made real: symlinks resolved). Throws a
   * {@linkcode WorkspaceError} when it is missing or not a directory.
   */
  static async open(
    root: string,
    options: WorkspaceOptions = {},
  ): Promise<Workspace> {
    let real: string;
    try {
      real = await Deno.realPath(root);
    } catch {
      throw new WorkspaceError(
        "not_found",
        root,
        `The workspace root "${root}" does not exist; pass an existing directory with --root.`,
      );
    }
    const info = await Deno.stat(real);
    if (!info.isDirectory) {
      throw new WorkspaceError(
        "not_a_directory",
        root,
        `The workspace root "${root}" is not a directory; pass a directory with --root.`,
      );
    }
    // "/" as root: keep it without a trailing separator problem.
    const normal = real.length > 1 && real.endsWith("/")
      ? real.slice(0, -1)
      : real;
    return new Workspace(normal, options.includeIgnored ?? false);
  }

  /** Absolute path of a root-relative POSIX path (no checks). */
  #absolute(relative: string): string {
    if (relative === "") return this.root;
    return this.root === "/" ? `/${relative}` : `${this.root}/${relative}`;
  }

  /** Root-relative path of an absolute path known to be inside the root. */
  #relativeOf(absolute: string): string {
    if (absolute === this.root) return "";
    return absolute.slice(this.root === "/" ? 1 : this.root.length + 1);
  }

  /**
   * Check a client path's text and split it into root-relative segments,
   * without touching the file system.
   */
  #segments(path: string): string[] {
    if (path.includes("\0")) throw invalid(path, "it contains a NUL byte");
    if (path.includes("\\")) {
      throw invalid(path, "backslashes are not path separators here");
    }
    if (/^[A-Za-z]:/.test(path) || path.includes(":")) {
      // Drive letters, NTFS alternate streams and URLs all carry a colon.
      throw invalid(path, 'it contains ":"');
    }
    let rest = path;
    if (rest.startsWith("/")) {
      if (rest.startsWith("//")) throw outside(path); // UNC-like.
      const root = this.root === "/" ? "" : this.root;
      if (rest === root) rest = "";
      else if (rest.startsWith(`${root}/`)) rest = rest.slice(root.length + 1);
      else throw outside(path);
    }
    const segments: string[] = [];
    for (const segment of rest.split("/")) {
      if (segment === "" || segment === ".") continue;
      if (segment === "..") throw outside(path);
      segments.push(segment);
    }
    return segments;
  }

  /**
   * Resolve a client path: relative to the root ("" or "." is the root),
   * or absolute inside the root. Refuses NUL bytes, "..", escapes, links
   * pointing outside the root, Windows-style paths, `.git/` and ignored
   * paths with a {@linkcode WorkspaceError}; missing paths are "not_found".
   */
  async resolve(path: string): Promise<ResolvedPath> {
    if (typeof path !== "string") throw invalid(String(path), "not a string");
    const segments = this.#segments(path);
    // The requested path itself must not be excluded, whatever it points to.
    // Intermediate components are directories; the last one is checked as a
    // file first and, once it is known to be a directory, as one too, since
    // rules such as "build/" match only directories.
    for (let i = 0; i < segments.length; i++) {
      const prefix = segments.slice(0, i + 1).join("/");
      if (await this.isIgnored(prefix, i < segments.length - 1)) {
        throw ignored(path);
      }
    }
    const real = this.#follow(path, segments);
    const info = Deno.statSync(this.#absolute(real));
    if (
      info.isDirectory && segments.length > 0 &&
      await this.isIgnored(segments.join("/"), true)
    ) {
      throw ignored(path);
    }
    if (real !== segments.join("/")) {
      // Reached through a link: the target must not be excluded either.
      const parts = real === "" ? [] : real.split("/");
      for (let i = 0; i < parts.length; i++) {
        const prefix = parts.slice(0, i + 1).join("/");
        const isDir = i < parts.length - 1 || info.isDirectory;
        if (await this.isIgnored(prefix, isDir)) throw ignored(path);
      }
    }
    return {
      relative: segments.join("/"),
      absolute: this.#absolute(real),
      info,
    };
  }

  /**
   * Follow `segments` from the root, reading each symlink and refusing any
   * whose target leaves the root. Returns the real root-relative path.
   */
  #follow(path: string, segments: string[]): string {
    const done: string[] = [];
    const queue = [...segments];
    let hops = 0;
    while (queue.length > 0) {
      const segment = queue.shift() as string;
      if (segment === "." || segment === "") continue;
      if (segment === "..") {
        // Only reachable from a link target; the real parent is lexical
        // because `done` holds no links.
        if (done.length === 0) throw outside(path);
        done.pop();
        continue;
      }
      if (segment === ".git") throw ignored(path);
      const candidate = [...done, segment].join("/");
      let info: Deno.FileInfo;
      try {
        info = Deno.lstatSync(this.#absolute(candidate));
      } catch (error) {
        if (
          hasErrorName(error, "NotFound") ||
          hasErrorName(error, "NotADirectory")
        ) {
          throw notFound(path);
        }
        throw error;
      }
      if (!info.isSymlink) {
        if (queue.length > 0 && !info.isDirectory) throw notFound(path);
        done.push(segment);
        continue;
      }
      if (++hops > MAX_LINK_HOPS) {
        throw invalid(path, "too many levels of symbolic links");
      }
      const target = Deno.readLinkSync(this.#absolute(candidate));
      if (target.startsWith("/")) {
        const root = this.root === "/" ? "" : this.root;
        if (target !== root && !target.startsWith(`${root}/`)) {
          throw outside(path);
        }
        done.length = 0;
        queue.unshift(...target.slice(root.length).split("/"));
      } else {
        queue.unshift(...target.split("/"));
      }
    }
    return done.join("/");
  }

  /**
   * Whether a root-relative POSIX path is excluded: anything in `.git/`
   * always, and `.gitignore` matches (root and nested files, with a parent
   * directory's exclusion covering everything below it) unless the
   * workspace includes ignored files. Synchronous once the relevant
   * `.gitignore` files have been read.
   */
  isIgnored(
    relative: string,
    isDirectory: boolean,
  ): boolean | Promise<boolean> {
    const parts = relative === "" ? [] : relative.split("/");
    if (parts.includes(".git")) return true;
    if (this.includeIgnored || parts.length === 0) return false;
    // Every ancestor directory's rules, nearest last.
    const dirs: string[] = [""];
    for (let i = 1; i < parts.length; i++) {
      dirs.push(parts.slice(0, i).join("/"));
    }
    const loaded: IgnoreRules[] = [];
    let pending = false;
    for (const dir of dirs) {
      const rules = this.#rulesOf(dir);
      if (rules instanceof Promise) pending = true;
      loaded.push(rules as IgnoreRules);
    }
    if (!pending) return this.#matches(parts, isDirectory, loaded);
    return Promise.all(dirs.map((dir) => this.#rulesOf(dir))).then((all) =>
      this.#matches(parts, isDirectory, all)
    );
  }

  // Git semantics: a path is excluded when any ancestor directory is, or
  // when the deepest rule that speaks about it (nested files win) ignores it.
  #matches(
    parts: string[],
    isDirectory: boolean,
    rules: IgnoreRules[],
  ): boolean {
    for (let end = 1; end <= parts.length; end++) {
      const asDir = end < parts.length || isDirectory;
      let excluded = false;
      for (let level = 0; level < end && level < rules.length; level++) {
        const ig = rules[level];
        if (ig === null) continue;
        const sub = parts.slice(level, end).join("/") + (asDir ? "/" : "");
        const verdict = ig.test(sub);
        if (verdict.ignored) excluded = true;
        else if (verdict.unignored) excluded = false;
      }
      if (excluded) return true;
    }
    return false;
  }

  /**
   * Forget the cached `.gitignore` rules of the directory `dir` (root-relative,
   * "" for the root), so the next check reads the file again: call it when
   * that file changes.
   */
  forgetRules(dir: string): void {
    this.#rules.delete(dir);
  }

  #rulesOf(dir: string): IgnoreRules | Promise<IgnoreRules> {
    const cached = this.#rules.get(dir);
    if (cached !== undefined) return cached;
    const loading = this.#loadRules(dir).then((rules) => {
      // Unless forgotten meanwhile (the file changed while it was read).
      if (this.#rules.get(dir) === loading) this.#rules.set(dir, rules);
      return rules;
    });
    this.#rules.set(dir, loading);
    return loading;
  }

  async #loadRules(dir: string): Promise<IgnoreRules> {
    let text: string;
    try {
      // lstat first: a .gitignore that is a link is not followed out.
      const file = `${this.#absolute(dir)}/.gitignore`;
      const info = await Deno.lstat(file);
      if (!info.isFile) return null;
      text = await Deno.readTextFile(file);
    } catch {
      return null;
    }
    const create = await loadIgnore();
    return create().add(text);
  }

  /**
   * Walk a directory depth-first in a deterministic order: entries sorted
   * by name (code-unit order) at each level, a directory's contents right
   * after it. Skips `.git`, ignored entries, and links that leave the root
   * or are broken; links inside the root are reported as what they point
   * to, and a link back to a directory being walked is not descended
   * (no loops). Lazy: reads a directory only when the consumer gets there.
   */
  async *walk(options: WalkOptions = {}): AsyncIterableIterator<WalkEntry> {
    const start = await this.resolve(options.path ?? "");
    if (!start.info.isDirectory) {
      throw new WorkspaceError(
        "not_a_directory",
        options.path ?? "",
        `"${options.path}" is a file, not a directory; use read_file or file_info for files.`,
      );
    }
    const maxDepth = options.maxDepth ?? Infinity;
    yield* this.#walkDir(
      start.relative,
      this.#relativeOf(start.absolute),
      1,
      maxDepth,
      [start.absolute],
      options.signal,
      options.after,
    );
  }

  async *#walkDir(
    relative: string,
    realRelative: string,
    depth: number,
    maxDepth: number,
    ancestors: string[],
    signal: AbortSignal | undefined,
    after?: string,
  ): AsyncGenerator<WalkEntry> {
    signal?.throwIfAborted();
    const entries: Deno.DirEntry[] = [];
    for (const entry of Deno.readDirSync(this.#absolute(realRelative))) {
      if (entry.name !== ".git") entries.push(entry);
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const dirEntry of entries) {
      signal?.throwIfAborted();
      const name = dirEntry.name;
      if (after !== undefined && name <= after) continue;
      const childRelative = relative === "" ? name : `${relative}/${name}`;
      const childReal = realRelative === "" ? name : `${realRelative}/${name}`;
      let entry: WalkEntry;
      if (dirEntry.isSymlink) {
        let target: ResolvedPath;
        try {
          // resolve() applies every rule: links out, ignores, broken links.
          target = await this.resolve(childRelative);
        } catch (error) {
          if (error instanceof WorkspaceError) continue;
          throw error;
        }
        entry = {
          relative: childRelative,
          absolute: target.absolute,
          isFile: target.info.isFile,
          isDirectory: target.info.isDirectory,
          depth,
        };
      } else {
        // The parent is real and inside the root, so a plain entry needs
        // only the ignore rules, for the path as reached and as it really is.
        const isDir = dirEntry.isDirectory;
        if (
          await this.isIgnored(childRelative, isDir) ||
          (childReal !== childRelative &&
            await this.isIgnored(childReal, isDir))
        ) continue;
        entry = {
          relative: childRelative,
          absolute: this.#absolute(childReal),
          isFile: dirEntry.isFile,
          isDirectory: isDir,
          depth,
        };
      }
      yield entry;
      if (
        entry.isDirectory && depth < maxDepth &&
        !ancestors.includes(entry.absolute)
      ) {
        yield* this.#walkDir(
          childRelative,
          this.#relativeOf(entry.absolute),
          depth + 1,
          maxDepth,
          [...ancestors, entry.absolute],
          signal,
        );
      }
    }
  }
}
