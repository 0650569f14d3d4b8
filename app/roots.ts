/**
 * What a server serves from its roots, and the roots a client gives.
 *
 * {@linkcode openServed} turns directories into what tools and resources
 * use: one directory is a {@linkcode Workspace} with its
 * {@linkcode WorkspaceResources} (the one-root server, unchanged); several
 * are a {@linkcode Roots} tree, where each root is a top-level directory
 * named after it, with {@linkcode RootsResources}.
 *
 * {@linkcode ClientRoots} serves each session the roots its client gave
 * (when the server was given none): the tools it makes find their session's
 * roots through the call's context, and each session gets its own
 * resource provider. A session whose client gave no usable root is served
 * the server's own (fallback) roots.
 *
 * With {@linkcode ClientRootsOptions.confine}, a client's root is served
 * only when its real path (links resolved) is one of the allowed
 * directories or inside one, compared segment by segment: over HTTP the
 * client is a remote party, not the user who started the server. A
 * session whose every root is refused is served nothing: its tool calls
 * fail with a message that names the roots, why, and what to do.
 *
 * @module
 */

import type { Completion, CompletionContext } from "../mcp/completion.ts";
import { ErrorCode, type JsonObject, RpcError } from "../mcp/jsonrpc.ts";
import { notifyListChanged } from "../mcp/list_changed.ts";
import type { Logger } from "../mcp/log.ts";
import { sessionLogger } from "../mcp/logging.ts";
import type {
  ResourceChanges,
  ResourceContents,
  ResourcePage,
  ResourceProvider,
  ResourceTemplate,
  ResourceWatch,
} from "../mcp/resource.ts";
import type { McpServer } from "../mcp/server.ts";
import { watchResources } from "../mcp/watch.ts";
import type { Session } from "../mcp/session.ts";
import { type Tool, type ToolContext, ToolFailure } from "../mcp/tool.ts";
import {
  type PathResources,
  WorkspaceResources,
  type WorkspaceResourcesOptions,
} from "../resources/provider.ts";
import { RootsResources } from "../resources/roots.ts";
import { WorkspaceError } from "../workspace/errors.ts";
import { Roots, type WorkspaceView } from "../workspace/roots.ts";
import type { TextIndexOptions } from "../workspace/text_index.ts";
import { Workspace, type WorkspaceOptions } from "../workspace/workspace.ts";
import type { ToolCaps } from "../tools/common.ts";
import { workspaceTools } from "../tools/mod.ts";
import { rootsNote, type RootsSource, type Served } from "../tools/served.ts";

/** How {@linkcode openServed} opens and serves directories. */
export interface ServeOptions {
  /** How each workspace is opened. */
  workspace: WorkspaceOptions;
  /** How the resources are served. */
  resources: WorkspaceResourcesOptions;
  /** The tools' limits. */
  caps: ToolCaps;
  /**
   * Keep an index of a single directory, built in the background, for
   * `find_files` and `search_text` (its `maxReadBytes` is the caps').
   */
  index?: Omit<TextIndexOptions, "maxReadBytes">;
}

/**
 * Open `paths` (at least one) for serving: one directory as itself,
 * several as named roots. Throws a `WorkspaceError` for a directory that
 * cannot be served.
 */
export async function openServed(
  paths: readonly string[],
  options: ServeOptions,
): Promise<Served> {
  if (paths.length === 0) throw new TypeError("openServed needs a directory");
  if (paths.length === 1) {
    const workspace = await Workspace.open(paths[0], options.workspace);
    // Loaded only when asked for: the index's modules and its tables.
    const index = options.index === undefined
      ? undefined
      : (await import("../workspace/text_index.ts")).TextIndex.start(
        workspace,
        { ...options.index, maxReadBytes: options.caps.maxReadBytes },
      );
    return {
      paths: [workspace.root],
      view: workspace,
      resources: new WorkspaceResources(workspace, options.resources),
      tools: workspaceTools(workspace, options.caps, index),
      ...(index === undefined ? {} : { index }),
    };
  }
  const roots = await Roots.open(paths, options.workspace);
  const note = rootsNote(roots);
  return {
    paths: roots.roots.map((root) => root.workspace.root),
    view: roots,
    resources: new RootsResources(roots, options.resources),
    tools: workspaceTools(roots, options.caps).map((tool) => ({
      ...tool,
      description: `${tool.description} ${note}`,
    })),
  };
}

/**
 * The directory a client's root URI names, when it is a `file://` URI of
 * a directory the server can read (its real path); otherwise why not.
 */
export async function rootDirectory(
  uri: string,
): Promise<{ path: string } | { problem: string }> {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return { problem: "it is not a URI" };
  }
  if (url.protocol !== "file:") {
    return { problem: "only file:// roots can be served" };
  }
  if (url.host !== "" && url.host !== "localhost") {
    return { problem: `it names another host (${url.host})` };
  }
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    return { problem: "its path is not valid percent-encoded UTF-8" };
  }
  if (path.includes("\0")) return { problem: "its path holds a NUL byte" };
  try {
    const real = await Deno.realPath(path);
    if (!(await Deno.stat(real)).isDirectory) {
      return { problem: "it is not a directory" };
    }
    // Readable: its first entry can be listed.
    for await (const _ of Deno.readDir(real)) break;
    return { path: real };
  } catch (error) {
    return {
      problem: error instanceof Deno.errors.NotFound
        ? "it does not exist"
        : `it cannot be read (${(error as Error).message})`,
    };
  }
}

/**
 * Whether the directory `path` is `dir` or inside it, both absolute real
 * paths, compared segment by segment (`/allowed-evil` is not inside
 * `/allowed`).
 *
 * @example
 * ```ts
 * import { isWithin } from "./roots.ts";
 * console.log(isWithin("/srv/app/src", "/srv/app")); // true
 * console.log(isWithin("/srv/app-evil", "/srv/app")); // false
 * ```
 */
export function isWithin(path: string, dir: string): boolean {
  const segments = (p: string) => p.split("/").filter((s) => s !== "");
  const inner = segments(path);
  const outer = segments(dir);
  return outer.length <= inner.length &&
    outer.every((segment, i) => segment === inner[i]);
}

/** Which client roots {@linkcode ClientRoots} may serve. */
export interface RootsConfinement {
  /**
   * The directories (absolute real paths) a client's root must be, or lie
   * inside; none: every client root is refused.
   */
  readonly allowed: readonly string[];
  /**
   * What the operator can do about a refusal, ending the message the
   * client is given (for example, the flag that allows directories).
   */
  readonly advice: string;
}

/** Options of {@linkcode ClientRoots}. */
export interface ClientRootsOptions extends ServeOptions {
  /**
   * When given, a client's root is served only inside these directories
   * (its real path: links are resolved first); the others are refused,
   * and a session whose every root is refused is served nothing. Leave it
   * out to serve any root the server can read (the client is the user).
   */
  confine?: RootsConfinement;
  /** What a session is served until (or unless) its client gives roots. */
  fallback: Served;
  /** Asks the client of the given session for its roots. */
  list(ctx: { session: Session }): Promise<{ uri: string }[]>;
  /**
   * Where skipped roots and failures are logged (the server's own log);
   * each record also goes to the session whose roots it names, and to no
   * other (see `sessionLogger` in `mcp/logging.ts`).
   */
  logger: Logger;
  /**
   * The server: its capabilities say whether to send `list_changed`, and
   * with `resources.watch` each session with roots of its own is sent the
   * changes of those roots.
   */
  server: McpServer;
}

/** A session's roots: the latest listing asked for, and the last served. */
interface SessionRoots {
  current: Promise<Served>;
  last: Served;
  generation: number;
  resources: SessionResources;
  watch?: ResourceWatch;
}

/**
 * Serves each session the roots its client gives: call
 * {@linkcode ClientRoots.refresh} when they may have changed (after
 * `notifications/initialized` and on `notifications/roots/list_changed`),
 * register {@linkcode ClientRoots.tools} on the server. Sessions never
 * refreshed are served the fallback.
 */
export class ClientRoots implements RootsSource {
  readonly #options: ClientRootsOptions;
  readonly #sessions = new WeakMap<Session, SessionRoots>();

  /** Follow clients' roots with `options`. */
  constructor(options: ClientRootsOptions) {
    this.#options = options;
  }

  /**
   * Ask the client of `ctx.session` for its roots and serve them to that
   * session once they are open (until then, calls wait for them). The
   * newest listing wins; when what is served changes, the session is sent
   * `notifications/resources/list_changed` (where declared).
   */
  refresh(ctx: { session: Session }): void {
    const session = ctx.session;
    let entry = this.#sessions.get(session);
    if (entry === undefined) {
      const fallback = this.#options.fallback;
      const resources = new SessionResources(
        this,
        session,
        this.#options.resources.watch === true,
      );
      entry = {
        current: Promise.resolve(fallback),
        last: fallback,
        generation: 0,
        resources,
      };
      this.#sessions.set(session, entry);
      // A session that ends stops being followed (its watch stops), on
      // every transport: over HTTP, sessions come and go in one process.
      session.onClose(() => this.forget(session));
      session.resources = resources;
      // From now on the session is sent the changes of its own roots (a
      // watch of the server's stops delivering to it).
      entry.watch = watchResources(this.#options.server, session);
    }
    const state = entry;
    const generation = ++state.generation;
    state.current = this.#load(ctx).then((served) => {
      if (state.generation !== generation) return state.current;
      const before = state.last;
      state.last = served;
      state.resources.follow(served);
      if (
        before.paths.join("\0") !== served.paths.join("\0") ||
        before.refusal !== served.refusal
      ) {
        if (served.refusal === undefined) {
          this.#logger(session).log(
            "info",
            `serving the client's roots: ${served.paths.join(", ")}`,
          );
        }
        notifyListChanged(
          this.#options.server.capabilities,
          session,
          "resources",
        );
      }
      return served;
    });
  }

  /** What `session` is served, once a listing in progress is done. */
  servedFor(session: Session): Promise<Served> {
    return this.#sessions.get(session)?.current ??
      Promise.resolve(this.#options.fallback);
  }

  /** Stop following `session` (it ended): its watch, if any, stops. */
  forget(session: Session): void {
    this.#sessions.get(session)?.watch?.close();
    this.#sessions.delete(session);
  }

  /** What `session` was last served, without waiting. */
  lastServed(session: Session): Served {
    return this.#sessions.get(session)?.last ?? this.#options.fallback;
  }

  /**
   * The workspace tools, each running over the roots of the session its
   * call came on. Their definitions are the fallback's.
   */
  tools(): Tool[] {
    return this.#options.fallback.tools.map((tool) => ({
      ...tool,
      run: async (args: JsonObject, ctx: ToolContext) => {
        const served = await this.servedFor(ctx.session);
        const own = served.tools.find((t) => t.name === tool.name) ?? tool;
        return await own.run(args, ctx);
      },
    }));
  }

  // Records about a session's roots go to that session alone.
  #logger(session: Session): Logger {
    return sessionLogger(
      this.#options.logger,
      session,
      this.#options.server.info.name,
    );
  }

  /** The client's usable roots, opened; the fallback when there are none. */
  async #load(ctx: { session: Session }): Promise<Served> {
    const { fallback } = this.#options;
    const logger = this.#logger(ctx.session);
    let given;
    try {
      given = await this.#options.list(ctx);
    } catch (error) {
      logger.log(
        "warn",
        "roots/list failed; serving the server's own root:",
        error,
      );
      return fallback;
    }
    const paths: string[] = [];
    const refused: string[] = [];
    const confine = this.#options.confine;
    for (const root of given) {
      const found = await rootDirectory(root.uri);
      const named = JSON.stringify(root.uri.slice(0, 300));
      if ("problem" in found) {
        logger.log(
          "warn",
          `skipping the client's root ${named}: ${found.problem}`,
        );
      } else if (
        confine !== undefined &&
        !confine.allowed.some((dir) => isWithin(found.path, dir))
      ) {
        const why = `${named} (${
          JSON.stringify(found.path.slice(0, 300))
        }) is not inside a directory allowed for client roots (${
          confine.allowed.length === 0
            ? "none is"
            : confine.allowed.map((dir) => JSON.stringify(dir)).join(", ")
        })`;
        refused.push(why);
        logger.log(
          "warn",
          `refusing the client's root: ${why}. ${confine.advice}`,
        );
      } else if (!paths.includes(found.path)) paths.push(found.path);
    }
    if (paths.length === 0 && refused.length > 0) {
      return refusedServed(
        this.#options.fallback,
        `The client's roots are refused: ${refused.join("; ")}. ${
          confine?.advice ?? ""
        }`.trimEnd(),
      );
    }
    if (paths.length === 0) {
      if (given.length > 0) {
        logger.log(
          "warn",
          "the client gave no root that can be served; serving the server's own root",
        );
      }
      return fallback;
    }
    try {
      return await openServed(paths, this.#options);
    } catch (error) {
      logger.log(
        "warn",
        "the client's roots could not be opened; serving the server's own root:",
        error,
      );
      return fallback;
    }
  }
}

/**
 * What a session whose client's roots were all refused is served: no
 * directory; each tool (the fallback's definitions) fails with `refusal`,
 * the view refuses every path with it, and there is no resource to list
 * or read.
 */
export function refusedServed(fallback: Served, refusal: string): Served {
  const refuse = (path: string): never => {
    throw new WorkspaceError("outside", path, refusal);
  };
  const view: WorkspaceView = {
    resolve: (path) => Promise.resolve().then(() => refuse(path)),
    open: (target) =>
      Promise.resolve().then(() =>
        refuse(typeof target === "string" ? target : target.relative)
      ),
    readFile: (target) =>
      Promise.resolve().then(() =>
        refuse(typeof target === "string" ? target : target.relative)
      ),
    // deno-lint-ignore require-yield
    walk: async function* (options) {
      refuse(options?.path ?? "");
    },
  };
  const notServed = (uri: string) =>
    new RpcError(ErrorCode.ResourceNotFound, refusal, { uri });
  const resources: PathResources = {
    list: () => Promise.resolve({ resources: [] }),
    templates: () => [],
    read: (uri) => Promise.reject(notServed(uri)),
    canonicalUri: (uri) => Promise.reject(notServed(uri)),
    normalizeUri: () => undefined,
    uriOfPath: () => undefined,
  };
  return {
    paths: [],
    view,
    resources,
    tools: fallback.tools.map((tool) => ({
      ...tool,
      run: () => Promise.reject(new ToolFailure(refusal)),
    })),
    refusal,
  };
}

/**
 * The resources of one session's roots: every call goes to what the
 * session is served at the time (waiting for a listing in progress).
 */
class SessionResources implements ResourceProvider {
  readonly #roots: ClientRoots;
  readonly #session: Session;
  // Each watch of this provider, and the watch of the served roots it is
  // moved to when they change.
  readonly #watches = new Set<{
    listener: (changes: ResourceChanges) => void;
    inner: ResourceWatch | undefined;
  }>();
  readonly watch?: (
    listener: (changes: ResourceChanges) => void,
  ) => ResourceWatch;

  constructor(roots: ClientRoots, session: Session, watch: boolean) {
    this.#roots = roots;
    this.#session = session;
    if (watch) {
      this.watch = (listener) => {
        const served = this.#roots.lastServed(this.#session).resources;
        const entry = { listener, inner: served.watch?.(listener) };
        this.#watches.add(entry);
        return {
          close: () => {
            entry.inner?.close();
            this.#watches.delete(entry);
          },
        };
      };
    }
  }

  /** The session is now served `served`: watches move to its roots. */
  follow(served: Served): void {
    for (const entry of this.#watches) {
      entry.inner?.close();
      entry.inner = served.resources.watch?.(entry.listener);
    }
  }

  async #provider(): Promise<ResourceProvider> {
    return (await this.#roots.servedFor(this.#session)).resources;
  }

  async list(
    after: string | undefined,
    limit: number,
    signal: AbortSignal,
  ): Promise<ResourcePage> {
    return await (await this.#provider()).list(after, limit, signal);
  }

  async settled(): Promise<void> {
    await this.#roots.servedFor(this.#session);
  }

  templates(): readonly ResourceTemplate[] {
    return this.#roots.lastServed(this.#session).resources.templates();
  }

  async read(uri: string, signal: AbortSignal): Promise<ResourceContents[]> {
    return await (await this.#provider()).read(uri, signal);
  }

  async canonicalUri(uri: string): Promise<string> {
    return await (await this.#provider()).canonicalUri(uri);
  }

  normalizeUri(uri: string): string | undefined {
    return this.#roots.lastServed(this.#session).resources.normalizeUri(uri);
  }

  // The templates completed are the session's (those `templates` lists
  // once settled): each completes paths inside its own root.
  async complete(
    uriTemplate: string,
    variable: string,
    value: string,
    context: CompletionContext,
  ): Promise<Completion | undefined> {
    return await (await this.#provider()).complete?.(
      uriTemplate,
      variable,
      value,
      context,
    );
  }
}
