/**
 * Several workspaces seen as one tree: each root is a top-level directory
 * named after its directory's base name (made unique), so a path is
 * `NAME/path/in/root`, and the top ("" or ".") lists the roots. An
 * absolute path is taken to the root that contains it.
 *
 * Every path is checked by the workspace of the root it lies in, with that
 * workspace's rules (links, `..`, ignores): the sandbox holds for each
 * root on its own, and a link from one root into another is a link that
 * leaves its root, refused like any other.
 *
 * With one root, use the {@linkcode Workspace} itself: this view exists
 * for two or more.
 *
 * @module
 */

import { invalid, WorkspaceError } from "./errors.ts";
import {
  type LookupOptions,
  type Lookups,
  MAX_PATH_BYTES,
  readOpened,
  type ReadOptions,
  type ReadResult,
  type ResolvedPath,
  type WalkEntry,
  type WalkOptions,
  Workspace,
  type WorkspaceHandle,
  type WorkspaceOptions,
} from "./workspace.ts";

/**
 * What the tools use of a workspace: a {@linkcode Workspace} is one, and
 * so is {@linkcode Roots}.
 */
export interface WorkspaceView {
  /** See {@linkcode Workspace.resolve}. */
  resolve(path: string): Promise<ResolvedPath>;
  /** See {@linkcode Workspace.open}. */
  open(target: string | WalkEntry, lookups?: Lookups): Promise<WorkspaceHandle>;
  /** See {@linkcode Workspace.readFile}. */
  readFile(
    target: string | WalkEntry,
    options: ReadOptions & LookupOptions,
  ): Promise<ReadResult & ResolvedPath>;
  /** See {@linkcode Workspace.walk}. */
  walk(options?: WalkOptions): AsyncIterableIterator<WalkEntry>;
}

/** One root of several: its name in paths, and its workspace. */
export interface NamedRoot {
  /** The first segment of paths inside it. */
  readonly name: string;
  /** The root's workspace. */
  readonly workspace: Workspace;
}

/** A client path taken to its root: the root, and the path inside it. */
export interface Located {
  /** The root the path lies in. */
  root: NamedRoot;
  /** The path inside that root ("" for the root itself, or absolute). */
  path: string;
}

/**
 * Names for directories served together: each one's base name, with
 * `-2`, `-3`, … added to later ones that would repeat an earlier name
 * (`/` is `root`). The order is kept.
 *
 * @example
 * ```ts
 * import { rootNames } from "./roots.ts";
 * console.log(rootNames(["/a/app", "/b/app", "/c/lib"])); // ["app", "app-2", "lib"]
 * ```
 */
export function rootNames(paths: readonly string[]): string[] {
  const used = new Set<string>();
  return paths.map((path) => {
    const base = path.replace(/\/+$/, "").split("/").pop() || "root";
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}-${n}`;
    used.add(name);
    return name;
  });
}

// What a top-level directory reads as: no file behind it.
function topInfo(): Deno.FileInfo {
  return {
    isFile: false,
    isDirectory: true,
    isSymlink: false,
    size: 0,
    mtime: null,
    atime: null,
    birthtime: null,
    ctime: null,
    dev: 0,
    ino: null,
    mode: null,
    nlink: null,
    uid: null,
    gid: null,
    rdev: null,
    blksize: null,
    blocks: null,
    isBlockDevice: null,
    isCharDevice: null,
    isFifo: null,
    isSocket: null,
  };
}

/** Several named roots, addressed as one tree of top-level directories. */
export class Roots implements WorkspaceView {
  /** The roots, in the order given. */
  readonly roots: readonly NamedRoot[];
  readonly #byName: ReadonlyMap<string, NamedRoot>;
  // Longest root path first: an absolute path goes to the deepest root
  // containing it (roots may nest).
  readonly #byDepth: readonly NamedRoot[];
  readonly #origins = new WeakMap<
    WalkEntry,
    { root: NamedRoot; entry: WalkEntry }
  >();

  /** View `roots` (names unique) as one tree. */
  constructor(roots: readonly NamedRoot[]) {
    this.roots = roots;
    this.#byName = new Map(roots.map((root) => [root.name, root]));
    if (this.#byName.size !== roots.length) {
      throw new TypeError("root names must be unique");
    }
    this.#byDepth = roots.toSorted((a, b) =>
      b.workspace.root.length - a.workspace.root.length
    );
  }

  /**
   * Open each directory of `paths` as a workspace, named by
   * {@linkcode rootNames}. Throws a `WorkspaceError` for one that cannot
   * be served.
   */
  static async open(
    paths: readonly string[],
    options: WorkspaceOptions = {},
  ): Promise<Roots> {
    const names = rootNames(paths);
    const workspaces = await Promise.all(
      paths.map((path) => Workspace.open(path, options)),
    );
    return new Roots(
      workspaces.map((workspace, i) => ({ name: names[i], workspace })),
    );
  }

  /** The root names, comma-separated, for messages. */
  #names(): string {
    return this.roots.map((root) => `"${root.name}"`).join(", ");
  }

  /**
   * Take a client path to the root it lies in: `NAME/rest` by name, an
   * absolute path to the root containing it. Undefined for the top (""
   * or "."), which lists the roots. Throws a `WorkspaceError` for a path
   * outside every root or naming no root.
   */
  locate(path: string): Located | undefined {
    if (typeof path !== "string") throw invalid(String(path), "not a string");
    if (path.length > MAX_PATH_BYTES * 4) {
      throw invalid(path, `it is longer than ${MAX_PATH_BYTES} bytes`);
    }
    if (path.startsWith("/")) {
      for (const root of this.#byDepth) {
        const prefix = root.workspace.root;
        if (
          path === prefix || prefix === "/" ||
          path.startsWith(`${prefix}/`)
        ) {
          return { root, path };
        }
      }
      throw this.#outside(path);
    }
    const segments = path.split("/");
    let first = 0;
    while (
      first < segments.length &&
      (segments[first] === "" || segments[first] === ".")
    ) first++;
    if (first === segments.length) return undefined;
    const name = segments[first];
    if (name === "..") throw this.#outside(path);
    const root = this.#byName.get(name);
    if (root === undefined) {
      throw new WorkspaceError(
        "not_found",
        path,
        `"${path}" is in no root: with several roots, a path starts with a root's name (${this.#names()}), for example "${
          this.roots[0].name
        }/src"; list_directory with no path lists the roots.`,
      );
    }
    return { root, path: segments.slice(first + 1).join("/") };
  }

  #outside(path: string, root?: NamedRoot): WorkspaceError {
    return new WorkspaceError(
      "outside",
      path,
      `"${path}" is outside ${
        root === undefined ? "every root" : `the root "${root.name}"`
      }; with several roots, a path starts with a root's name (${this.#names()}), for example "${
        this.roots[0].name
      }/src", and stays inside it (no "..", no link out of it).`,
    );
  }

  /** `relative` (inside `root`) as a path of this view. */
  #outer(root: NamedRoot, relative: string): string {
    return relative === "" ? root.name : `${root.name}/${relative}`;
  }

  #top(path: string): never {
    throw new WorkspaceError(
      "not_a_file",
      path,
      `"${path}" is the top, which lists the roots (${this.#names()}), not a file or directory; name a root, for example "${
        this.roots[0].name
      }", or a path inside one.`,
    );
  }

  /**
   * Run `work` inside the located root; a refusal names the path as the
   * client wrote it, not as the root saw it.
   */
  async #inside<T>(
    path: string,
    located: Located,
    work: () => Promise<T>,
  ): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof WorkspaceError && error.code === "outside") {
        throw this.#outside(path, located.root);
      }
      if (
        error instanceof WorkspaceError && error.path === located.path &&
        path !== located.path
      ) {
        throw new WorkspaceError(
          error.code,
          path,
          error.message.replace(`"${located.path}"`, `"${path}"`),
        );
      }
      throw error;
    }
  }

  /** See {@linkcode Workspace.resolve}; the top resolves to a directory. */
  async resolve(path: string): Promise<ResolvedPath> {
    const located = this.locate(path);
    if (located === undefined) {
      return { relative: "", absolute: "", info: topInfo() };
    }
    const resolved = await this.#inside(
      path,
      located,
      () => located.root.workspace.resolve(located.path),
    );
    return {
      ...resolved,
      relative: this.#outer(located.root, resolved.relative),
    };
  }

  /**
   * See {@linkcode Workspace.open}. The handle's `relative` is the path in
   * this view; everything else is the root's own handle.
   */
  async open(
    target: string | WalkEntry,
    lookups?: Lookups,
  ): Promise<WorkspaceHandle> {
    let root: NamedRoot;
    let handle: WorkspaceHandle;
    if (typeof target === "string") {
      const located = this.locate(target);
      if (located === undefined) this.#top(target);
      root = located.root;
      handle = await this.#inside(
        target,
        located,
        () => located.root.workspace.open(located.path, lookups),
      );
    } else {
      const origin = this.#origins.get(target);
      if (origin === undefined) return await this.open(target.relative);
      root = origin.root;
      handle = await root.workspace.open(origin.entry);
    }
    const relative = this.#outer(root, handle.relative);
    // The handle's fields are private to its class: its methods run on it,
    // and only `relative` reads differently.
    return new Proxy(handle, {
      get(target, key) {
        if (key === "relative") return relative;
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }

  /** See {@linkcode Workspace.readFile}. */
  async readFile(
    target: string | WalkEntry,
    options: ReadOptions & LookupOptions,
  ): Promise<ReadResult & ResolvedPath> {
    using handle = await this.open(target, options.lookups);
    return await readOpened(handle, options);
  }

  /**
   * See {@linkcode Workspace.walk}. From the top, each root is a
   * directory at depth 1 (in name order), followed by its own walk one
   * level deeper.
   */
  async *walk(options: WalkOptions = {}): AsyncIterableIterator<WalkEntry> {
    const located = this.locate(options.path ?? "");
    if (located !== undefined) {
      const walk = this.#walkRoot(
        located.root,
        { ...options, path: located.path },
        0,
      );
      // The first step opens the start: its refusal names the client's path.
      const first = await this.#inside(
        options.path ?? "",
        located,
        () => walk.next(),
      );
      if (first.done) return;
      yield first.value;
      yield* walk;
      return;
    }
    const maxDepth = options.maxDepth ?? Infinity;
    const roots = this.roots.toSorted((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0
    );
    for (const root of roots) {
      options.signal?.throwIfAborted();
      if (options.after !== undefined && root.name <= options.after) continue;
      yield {
        relative: root.name,
        absolute: root.workspace.root,
        isFile: false,
        isDirectory: true,
        depth: 1,
      };
      if (maxDepth > 1) {
        yield* this.#walkRoot(root, {
          ...options,
          path: "",
          after: undefined,
          maxDepth: maxDepth - 1,
        }, 1);
      }
    }
  }

  async *#walkRoot(
    root: NamedRoot,
    options: WalkOptions,
    deeper: number,
  ): AsyncIterableIterator<WalkEntry> {
    for await (const entry of root.workspace.walk(options)) {
      const outer = {
        ...entry,
        relative: this.#outer(root, entry.relative),
        depth: entry.depth + deeper,
      };
      this.#origins.set(outer, { root, entry });
      yield outer;
    }
  }
}
