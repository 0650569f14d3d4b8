/**
 * The transport-free MCP server: configuration, registries and the method
 * map. A connection (`connection.ts`) feeds it decoded messages together
 * with the session they arrived on, and sends back whatever it returns.
 *
 * @module
 */

import {
  type Answer,
  classify,
  decode,
  describeError,
  encodeError,
  encodeResult,
  ErrorCode,
  idKey,
  type IncomingMessage,
  type JsonObject,
  type RequestId,
  type RequestMessage,
  RpcError,
} from "./jsonrpc.ts";
import type { ListKind } from "./list_changed.ts";
import type {
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  Root,
} from "./client_requests.ts";
import { trackLoading } from "./loading.ts";
import { type Logger, stderrLogger } from "./log.ts";
import { type LoggingLevel, sessionLogger } from "./logging.ts";
import type { ResourceProvider } from "./resource.ts";
import type { Icon } from "./icon.ts";
import { PromptRegistry } from "./prompt.ts";
import type { ClientRequestOptions, Session } from "./session.ts";
import { type ToolContext, ToolRegistry } from "./tool.ts";
import { isModernVersion } from "./protocol_versions.ts";
import { capabilitiesOf, type MethodFacts } from "./methods.ts";
import { DEFAULT_GATE_PLACES, FairGate } from "./fair_gate.ts";

export { capabilitiesOf, type CapabilityOptions } from "./methods.ts";

/** What a handler gets beside its params. */
export interface HandlerContext extends ToolContext {
  /** The server handling the message. */
  readonly server: McpServer;
  /** The request's id; undefined for notifications. */
  readonly requestId: RequestId | undefined;
}

/**
 * Handles one method. For a request it returns the result object (or a
 * promise of it) or throws an {@linkcode RpcError}; returning anything that
 * is not a JSON object is a bug, answered with -32603 and logged. For a
 * notification the return is ignored.
 */
export type Handler = (
  params: JsonObject,
  ctx: HandlerContext,
) => unknown;

/**
 * A handler whose module loads on its first call, keeping that module (and
 * what it imports) off the start-up path. Like any handler not declared
 * `atOnce`, it runs once the server is ready (see
 * {@linkcode McpServer.ready}), so it may use the tool and resource
 * registries that the server's `setup` fills.
 *
 * @example
 * ```ts
 * import { lazyHandler } from "./server.ts";
 * const toolsCall = lazyHandler(() =>
 *   import("../handlers/tools_call.ts").then((m) => m.toolsCall)
 * );
 * ```
 */
export function lazyHandler(load: () => Promise<Handler>): Handler {
  let loading: Promise<Handler> | undefined;
  const start = (): Promise<Handler> => {
    if (loading === undefined) {
      loading = trackLoading(load());
      // A failed load is tried again on the next call.
      loading.catch(() => loading = undefined);
    }
    return loading;
  };
  const handler: Handler = async (params, ctx) =>
    await (await start())(params, ctx);
  PRELOADS.set(handler, start);
  return handler;
}

// How the server starts a lazy handler's module loading while its setup
// runs, so that a first call waits for the longer of the two, not both.
const PRELOADS = new WeakMap<Handler, () => void>();

/**
 * One row of a method registry: the method's handler and what else holds
 * for it (see {@linkcode MethodFacts}: whether it is answered at once, its
 * capability, its versions, its 2026-07-28 caching hint, `Mcp-Name` field
 * and whether it may ask the client for input).
 */
export interface MethodSpec extends MethodFacts {
  /** What answers the method. */
  readonly handler: Handler;
}

/**
 * The method registry a server dispatches through: method name → its row
 * ({@linkcode MethodSpec}), or a bare handler, which is a row that says
 * nothing else (not answered at once, no capability, every version). A
 * method named `notifications/…` is a notification: its handler runs only
 * for messages without an `id`, and a request for it is -32601. Every
 * other method is a request: its handler runs only for messages with an
 * `id`, and a notification of it is ignored.
 */
export type HandlerMap = Readonly<Record<string, Handler | MethodSpec>>;

/** The row of a {@linkcode HandlerMap} entry (a bare handler's has no facts). */
export function specOf(entry: Handler | MethodSpec): MethodSpec {
  return typeof entry === "function" ? { handler: entry } : entry;
}

/** Whether `method` names a notification (MCP names them `notifications/…`). */
export function isNotificationMethod(method: string): boolean {
  return method.startsWith("notifications/");
}

/** The server's identity, as sent in `serverInfo`. */
export interface ServerInfo {
  /** Program name, e.g. `example-mcp`. */
  name: string;
  /** Program version. */
  version: string;
  /** Human-readable name, for display. */
  title?: string;
  /** What the server does (2025-11-25). */
  description?: string;
  /** Icons for clients to show the server with (2025-11-25). */
  icons?: Icon[];
  /** The server's web site (2025-11-25). */
  websiteUrl?: string;
}

/** Configuration of an {@linkcode McpServer}. */
export interface McpServerOptions {
  /** The method map; see `handlers/mod.ts` for the default one. */
  handlers: HandlerMap;
  /** `serverInfo`: who the server is. */
  info: ServerInfo;
  /**
   * Protocol versions this server speaks, most preferred first; the first is
   * offered when a client asks for one not in the list. Default: 2025-06-18.
   */
  protocolVersions?: readonly string[];
  /**
   * The `capabilities` object of the initialize result, sent as given.
   * Default: what the method map implies (see
   * {@linkcode capabilitiesOf}).
   */
  capabilities?: JsonObject;
  /** Optional `instructions` for the client's model. */
  instructions?: string;
  /**
   * Require `protocolVersion`, `capabilities` and `clientInfo` in
   * `initialize`, as the specification does. Default true.
   */
  strictInitialize?: boolean;
  /** Items per page of list results; default {@linkcode DEFAULT_PAGE_SIZE}. */
  pageSize?: number;
  /**
   * How many requests whose row declares `largeAnswer` run at once across
   * all sessions; default {@linkcode DEFAULT_GATE_PLACES}.
   */
  largeAnswerPlaces?: number;
  /**
   * Where the server logs; default stderr at level `error`. Records that
   * concern a session also go to that session (see
   * {@linkcode McpServer.loggerFor}).
   */
  logger?: Logger;
  /** Where `resources/*` methods find resources; none when undefined. */
  resources?: ResourceProvider;
  /**
   * One-time preparation run on first need (see {@linkcode McpServer.ready}):
   * typically loads tools and resources, so that starting the server and
   * answering `initialize` and `ping` never wait for them.
   */
  setup?: (server: McpServer) => Promise<void>;
}

/** The latest protocol version this library implements. */
export const LATEST_PROTOCOL_VERSION = "2025-06-18";

/**
 * Items per page of list results unless configured. Large on purpose: one
 * page then holds a whole capped list, and clients that read only the
 * first page (or stop after a few) still see all of it.
 */
export const DEFAULT_PAGE_SIZE = 1000;

// One is made per message, so everything a handler may not need (the id
// key, _meta, the AbortController) is worked out on first use.
class RequestContext implements HandlerContext {
  readonly server: McpServer;
  readonly session: Session;
  readonly requestId: RequestId | undefined;
  readonly #params: JsonObject;
  #controller: AbortController | undefined;
  /** The handler has returned: no more progress for this request. */
  finished = false;
  #progress = -Infinity;

  constructor(
    server: McpServer,
    session: Session,
    requestId: RequestId | undefined,
    params: JsonObject,
  ) {
    this.server = server;
    this.session = session;
    this.requestId = requestId;
    this.#params = params;
  }

  get key(): string | undefined {
    return this.requestId === undefined ? undefined : idKey(this.requestId);
  }

  get meta(): JsonObject | undefined {
    const meta = this.#params._meta;
    return typeof meta === "object" && meta !== null && !Array.isArray(meta)
      ? meta as JsonObject
      : undefined;
  }

  // Created on first use: most handlers never look at it, and an
  // AbortController per ping is measurable.
  get signal(): AbortSignal {
    return (this.#controller ??= new AbortController()).signal;
  }

  get aborted(): boolean {
    return this.#controller?.signal.aborted ?? false;
  }

  abort(reason: unknown): void {
    (this.#controller ??= new AbortController()).abort(reason);
  }

  notify(method: string, params?: JsonObject): void {
    this.session.notify(method, params, this.requestId);
  }

  request(
    method: string,
    params?: JsonObject,
    options?: ClientRequestOptions,
  ): Promise<unknown> {
    return this.session.request(method, params, this.#options(options));
  }

  reportProgress(progress: number, total?: number, message?: string): void {
    // Nothing once answered or cancelled, whoever calls: a progress
    // notification never follows its response.
    if (this.finished || this.aborted || !(progress > this.#progress)) return;
    const token = this.meta?.progressToken;
    if (typeof token !== "string" && typeof token !== "number") return;
    if (!Number.isFinite(progress)) return;
    this.#progress = progress;
    const params: JsonObject = { progressToken: token, progress };
    if (total !== undefined && Number.isFinite(total)) params.total = total;
    // `message` came with 2025-03-26.
    const version = this.session.protocolVersion;
    if (
      message !== undefined && version !== undefined && version >= "2025-03-26"
    ) {
      params.message = message;
    }
    this.session.notify("notifications/progress", params, this.requestId);
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    this.session.log(level, data, logger, this.requestId);
  }

  sample(
    params: CreateMessageParams,
    options?: ClientRequestOptions,
  ): Promise<CreateMessageResult> {
    return this.session.sample(params, this.#options(options));
  }

  elicit(
    params: ElicitParams,
    options?: ClientRequestOptions,
  ): Promise<ElicitResult> {
    return this.session.elicit(params, this.#options(options));
  }

  listRoots(options?: ClientRequestOptions): Promise<Root[]> {
    return this.session.listRoots(this.#options(options));
  }

  closeStream(): boolean {
    const id = this.requestId;
    return id !== undefined && (this.session.closeStream?.(id) ?? false);
  }

  // A request to the client made while handling this one: cancelled with
  // it, and it tells the connection that this request waits on the client.
  #options(
    options: ClientRequestOptions = {},
  ): ClientRequestOptions & { waiter?: string; related?: RequestId } {
    return {
      ...options,
      signal: options.signal === undefined
        ? this.signal
        : AbortSignal.any([this.signal, options.signal]),
      waiter: this.key,
      related: this.requestId,
    };
  }
}

const EMPTY_PARAMS: JsonObject = Object.freeze({}) as JsonObject;

// A row as dispatch reads it: one shape for every method (rows differ in
// which fields they set), so the lookups on the hot path stay monomorphic.
class Entry {
  readonly handler: Handler;
  readonly atOnce: boolean;
  readonly gated: boolean;
  readonly spec: MethodSpec;
  constructor(spec: MethodSpec) {
    this.handler = spec.handler;
    this.atOnce = spec.atOnce === true;
    this.gated = spec.largeAnswer === true;
    this.spec = spec;
  }
}

function keepAnswer(answer: Answer): Answer {
  return answer;
}

// The -32603 error for `method` when the server failed on it (the
// details go to the log, not to the client).
function internalError(method: string): RpcError {
  return new RpcError(
    ErrorCode.InternalError,
    describeError(
      ErrorCode.InternalError,
      `the server failed while handling "${method}"; its log (stderr) has the details.`,
    ),
  );
}

/**
 * The encoded -32603 answer to request `id` for `method` when the server
 * failed on it (the details go to the log, not to the client).
 */
export function encodeInternalError(id: RequestId, method: string): string {
  const { code, message } = internalError(method);
  return encodeError(id, code, message);
}

/** What {@linkcode McpServer.dispatch} returns: an encoded response, or nothing. */
export type DispatchResult = string | undefined | Promise<string | undefined>;

/**
 * An MCP server: configuration plus registries, free of any transport.
 *
 * @example Answer a message in-process
 * ```ts
 * import { McpServer } from "./server.ts";
 * import { Session } from "./session.ts";
 * import { handlers } from "../handlers/mod.ts";
 *
 * const server = new McpServer({
 *   handlers,
 *   info: { name: "example-mcp", version: "1.0.0" },
 * });
 * const session = new Session(() => {});
 * const answer = await server.handle(
 *   { jsonrpc: "2.0", id: 1, method: "ping" },
 *   session,
 * );
 * console.log(answer); // { jsonrpc: "2.0", id: 1, result: {} }
 * ```
 */
export class McpServer {
  /** The method map. */
  readonly handlers: HandlerMap;
  /** `serverInfo`. */
  readonly info: ServerInfo;
  /**
   * Protocol versions `initialize` negotiates, most preferred first: those
   * of the configured ones that have the handshake (before 2026-07-28).
   */
  readonly protocolVersions: readonly string[];
  /**
   * Stateless protocol versions (2026-07-28) among the configured ones, most
   * preferred first; empty unless configured. A request that carries one in
   * its `_meta` (or any `server/discover`) is served by `era_2026.ts`.
   */
  readonly modernVersions: readonly string[];
  /** The initialize `capabilities`. */
  readonly capabilities: JsonObject;
  /** Optional initialize `instructions`. */
  readonly instructions: string | undefined;
  /** Whether initialize params are checked as the specification requires. */
  readonly strictInitialize: boolean;
  /** Items per page of list results. */
  readonly pageSize: number;
  /** The registered tools. */
  readonly tools: ToolRegistry = new ToolRegistry();
  /** The registered prompts (served when the method map has `prompts/*`). */
  readonly prompts: PromptRegistry = new PromptRegistry();
  /**
   * The server's own log, for records that concern no one session
   * (start-up, the index, a watch of the server's root): they reach no
   * session. What concerns a session goes through
   * {@linkcode McpServer.loggerFor}.
   */
  readonly logger: Logger;
  /** The resource provider, if the server has resources (set by `setup`). */
  resources: ResourceProvider | undefined;
  readonly #setup: ((server: McpServer) => Promise<void>) | undefined;
  // Maps look methods up faster than the handler object, whose keys (with
  // slashes) put it in dictionary mode. Requests and notifications live in
  // separate maps, so a request can never reach a notification's handler
  // (whose return value is not an answer).
  readonly #requests = new Map<string, Entry>();
  readonly #notifications = new Map<string, Entry>();
  // Each session's logger (see loggerFor), made on its first record.
  readonly #sessionLoggers = new WeakMap<Session, Logger>();
  #ready: Promise<void> | undefined;
  // Serves stateless (2026-07-28) requests; loaded on the first one, and
  // undefined when no such version is configured, so the handshake era pays
  // one test per request for it.
  readonly #modern: ModernDispatch | undefined;
  /**
   * Until setup has run: handlers not answered at once wait for it, and
   * list changes are the server's starting lists, not news.
   */
  #setupPending: boolean;
  readonly #listeners = new Set<(kind: ListKind) => void>();
  // Where requests whose row declares largeAnswer wait their turn.
  readonly #gate: FairGate;

  /** Make a server from its configuration. */
  constructor(options: McpServerOptions) {
    this.handlers = options.handlers;
    for (const [method, entry] of Object.entries(options.handlers)) {
      if (isNotificationMethod(method)) {
        this.#notifications.set(method, new Entry(specOf(entry)));
      } else this.#requests.set(method, new Entry(specOf(entry)));
    }
    this.info = options.info;
    const versions = options.protocolVersions ?? [LATEST_PROTOCOL_VERSION];
    if (versions.length === 0) {
      throw new TypeError("protocolVersions must name at least one version");
    }
    this.protocolVersions = versions.filter((v) => !isModernVersion(v));
    this.modernVersions = versions.filter(isModernVersion);
    this.#modern = this.modernVersions.length > 0
      ? modernDispatch()
      : undefined;
    this.capabilities = options.capabilities ??
      capabilitiesOf(options.handlers);
    this.instructions = options.instructions;
    this.strictInitialize = options.strictInitialize ?? true;
    this.pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    this.#gate = new FairGate({
      places: options.largeAnswerPlaces ?? DEFAULT_GATE_PLACES,
    });
    this.logger = options.logger ?? stderrLogger();
    this.resources = options.resources;
    this.#setup = options.setup;
    this.#setupPending = options.setup !== undefined;
    this.tools.onChange = () => this.listChanged("tools");
    this.prompts.onChange = () => this.listChanged("prompts");
  }

  /**
   * The resources `session` sees: its own (`session.resources`, set for
   * example from the roots its client gave), else the server's.
   */
  resourcesFor(session: Session): ResourceProvider | undefined {
    return session.resources ?? this.resources;
  }

  /**
   * Announce that the server's `kind` list changed: every listener (each
   * connection has one, see {@linkcode McpServer.onListChanged}) tells its
   * session, where the capabilities declare `listChanged`. The tool and
   * prompt registries call it on every change; whoever changes the
   * resources calls it for them. Changes made before the server's setup has finished
   * are its starting state and are not announced.
   */
  listChanged(kind: ListKind): void {
    if (this.#setupPending) return;
    for (const listener of this.#listeners) listener(kind);
  }

  /**
   * Call `listener` on each {@linkcode McpServer.listChanged}; returns the
   * function that stops it. A connection listens for its session.
   */
  onListChanged(listener: (kind: ListKind) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Resolves once the server's `setup` has run (it runs on the first call
   * that needs it). The server awaits it before it runs any handler whose
   * row is not `atOnce`, so handlers never call it themselves; those
   * declared `atOnce`, such as `ping` and `initialize`, run at once and
   * must not need what setup provides. A failed setup is retried on the
   * next call rather than cached.
   */
  ready(): Promise<void> {
    if (this.#ready === undefined) {
      const setup = this.#setup;
      this.#ready = setup === undefined
        ? Promise.resolve()
        : trackLoading(setup(this));
      this.#ready.then(
        () => this.#setupPending = false,
        () => this.#ready = undefined,
      );
    }
    return this.#ready;
  }

  /**
   * The logger for records that concern `session` (a message it sent, a
   * handler that failed on its request, its roots): each goes to the
   * server's {@linkcode McpServer.logger} and, as `notifications/message`
   * at the level the session set with `logging/setLevel`, to that session
   * and no other, its text escaped and cut (see `sessionLogger` in
   * `logging.ts`).
   */
  loggerFor(session: Session): Logger {
    let logger = this.#sessionLoggers.get(session);
    if (logger === undefined) {
      logger = sessionLogger(this.logger, session, this.info.name);
      this.#sessionLoggers.set(session, logger);
    }
    return logger;
  }

  /**
   * The registry row of `method` (a request's or a notification's), or
   * undefined when the server has no such method.
   */
  method(method: string): MethodSpec | undefined {
    return (this.#requests.get(method) ?? this.#notifications.get(method))
      ?.spec;
  }

  /**
   * Whether a request for `method` is answered without waiting: its row
   * declares `atOnce` (as `ping`'s does), or there is none (-32601). A
   * connection that limits how many requests run at once may let these
   * through at any time, so they never queue behind slow ones.
   */
  answersAtOnce(method: string): boolean {
    const entry = this.#requests.get(method);
    return entry === undefined || entry.atOnce;
  }

  /**
   * Handle one line of the wire. Returns the encoded response, nothing for
   * notifications and responses, or a promise of either.
   */
  handleLine(line: string, session: Session): DispatchResult {
    return this.dispatch(decode(line), session);
  }

  /**
   * Handle one parsed message (a JSON-RPC object) and return the response
   * object, or undefined when none is due.
   */
  async handle(
    message: unknown,
    session: Session,
  ): Promise<JsonObject | undefined> {
    const line = await this.dispatch(classify(message), session);
    return line === undefined ? undefined : JSON.parse(line);
  }

  /**
   * Handle one decoded message; see {@linkcode McpServer.handleLine}. A
   * request always gets an answer: the encoded response, or a promise of it
   * that settles to nothing only when the request was cancelled.
   */
  dispatch(
    message: RequestMessage,
    session: Session,
  ): string | Promise<string | undefined>;
  /** Handle one decoded message of any kind. */
  dispatch(message: IncomingMessage, session: Session): DispatchResult;
  dispatch(message: IncomingMessage, session: Session): DispatchResult {
    switch (message.kind) {
      case "request":
        if (this.#modern !== undefined && isModernRequest(message)) {
          return this.#modern(this, message, session);
        }
        return this.#request(
          message.id,
          message.method,
          message.params,
          session,
        );
      case "notification":
        this.#notification(message.method, message.params, session);
        return undefined;
      case "response":
        if (!session.resolveResponse(message)) {
          this.loggerFor(session).log(
            "debug",
            "dropped a response nobody waits for",
          );
        }
        return undefined;
      case "invalid":
        this.loggerFor(session).log("info", message.error.message);
        return encodeError(
          message.id,
          message.error.code,
          message.error.message,
          message.error.data,
        );
      case "dropped":
        this.loggerFor(session).log("info", `dropped ${message.reason}`);
        return undefined;
    }
  }

  /**
   * Handle request `id` with `session` as it is, whatever era its `_meta`
   * names, and answer what it came to, not yet encoded: what the stateless
   * era's dispatch (`era_2026.ts`) calls with the session it made for the
   * one request, to shape the answer for its revision before
   * {@linkcode McpServer.encodeAnswer} writes it once. Nothing when the
   * request was cancelled.
   */
  handleRequest(
    id: RequestId,
    method: string,
    params: JsonObject | undefined,
    session: Session,
  ): Answer | Promise<Answer | undefined> {
    return this.#run(id, method, params, session, keepAnswer);
  }

  /**
   * The line that answers request `id` for `method` with `answer`: the
   * one place a handler's outcome is serialised. A result that cannot be
   * one (not a JSON object, a cycle, a BigInt) becomes -32603, and error
   * data that cannot be JSON is left out, each logged on `session`: no
   * line that is not a valid JSON-RPC response ever leaves.
   */
  encodeAnswer(
    id: RequestId,
    method: string,
    answer: Answer,
    session: Session,
  ): string {
    if ("error" in answer) {
      const { code, message, data } = answer.error;
      try {
        return encodeError(id, code, message, data);
      } catch (encoding) {
        // `data` that cannot be JSON: the message says what was wrong on
        // its own.
        this.loggerFor(session).log(
          "error",
          `error data of ${method} failed:`,
          encoding,
        );
        return encodeError(id, code, String(message));
      }
    }
    try {
      return encodeResult(id, answer.result);
    } catch (error) {
      this.loggerFor(session).log(
        "error",
        `handler for ${method} returned no valid result (a bug in the server):`,
        error,
      );
      return encodeError(
        id,
        ErrorCode.InternalError,
        describeError(
          ErrorCode.InternalError,
          `the server's handler for "${method}" produced no valid result (a bug in the server); its log (stderr) has the details.`,
        ),
      );
    }
  }

  #request(
    id: RequestId,
    method: string,
    params: JsonObject | undefined,
    session: Session,
  ): string | Promise<string | undefined> {
    return this.#run(
      id,
      method,
      params,
      session,
      (answer) => this.encodeAnswer(id, method, answer, session),
    );
  }

  // Run the handler of request `id` and hand what it came to to `finish`
  // (at once, or when its promise settles: one step, so that an answer
  // costs no more turns of the event loop than its handler takes).
  #run<T>(
    id: RequestId,
    method: string,
    params: JsonObject | undefined,
    session: Session,
    finish: (answer: Answer) => T,
  ): T | Promise<T | undefined> {
    const entry = this.#requests.get(method);
    if (entry === undefined) {
      return finish({
        error: new RpcError(
          ErrorCode.MethodNotFound,
          isNotificationMethod(method)
            ? describeError(
              ErrorCode.MethodNotFound,
              `"${method}" is a notification, not a request; send it without an "id" (a notification gets no response).`,
            )
            : describeError(
              ErrorCode.MethodNotFound,
              `this server has no method "${method}" (names are case-sensitive).`,
            ),
        ),
      });
    }
    const ctx = new RequestContext(this, session, id, params ?? EMPTY_PARAMS);
    if (entry.gated) return this.#gated(entry, ctx, params, method, finish);
    return this.#start(entry, ctx, params, method, finish);
  }

  // Start the handler of `entry` and hand what it came to to `finish`: at
  // once when it answers synchronously, else when its promise settles.
  #start<T>(
    entry: Entry,
    ctx: RequestContext,
    params: JsonObject | undefined,
    method: string,
    finish: (answer: Answer) => T,
  ): T | Promise<T | undefined> {
    let result: unknown;
    try {
      result = this.#invoke(entry, ctx, params);
    } catch (error) {
      ctx.finished = true;
      return finish(this.#failure(method, error, ctx.session));
    }
    if (!(result instanceof Promise)) {
      ctx.finished = true;
      return finish({ result });
    }
    return this.#settle(result, ctx, method, finish);
  }

  // Call the handler of `entry` for `ctx`, once the server is ready
  // unless the row says it is answered at once.
  #invoke(
    entry: Entry,
    ctx: RequestContext,
    given: JsonObject | undefined,
  ): unknown {
    const handler = entry.handler;
    const params = given ?? EMPTY_PARAMS;
    if (this.#setupPending && !entry.atOnce) {
      PRELOADS.get(handler)?.();
      return this.ready().then(() => handler(params, ctx));
    }
    return handler(params, ctx);
  }

  // Hand what a handler's promise came to to `finish`, the request listed
  // as in flight (so that it can be cancelled) until it settles.
  #settle<T>(
    result: Promise<unknown>,
    ctx: RequestContext,
    method: string,
    finish: (answer: Answer) => T,
  ): Promise<T | undefined> {
    const session = ctx.session;
    const key = ctx.key as string;
    session.inFlight.set(key, ctx);
    return result.then(
      (value) => {
        ctx.finished = true;
        return ctx.aborted ? undefined : finish({ result: value });
      },
      (error) => {
        ctx.finished = true;
        return ctx.aborted
          ? undefined
          : finish(this.#failure(method, error, session));
      },
    ).finally(() => {
      if (session.inFlight.get(key) === ctx) session.inFlight.delete(key);
    });
  }

  // Run a request whose answer can be large with a place in the gate,
  // from before its handler starts until its answer is encoded (so that
  // the place bounds the answers held and encoded at once). While it
  // waits it is in flight: a cancel drops it before it runs.
  async #gated<T>(
    entry: Entry,
    ctx: RequestContext,
    params: JsonObject | undefined,
    method: string,
    finish: (answer: Answer) => T,
  ): Promise<T | undefined> {
    const session = ctx.session;
    const key = ctx.key as string;
    let place = this.#gate.enter(session);
    if (place instanceof Promise) {
      session.inFlight.set(key, ctx);
      try {
        place = await place;
      } finally {
        if (session.inFlight.get(key) === ctx) session.inFlight.delete(key);
      }
    }
    try {
      if (ctx.aborted) return undefined;
      return await this.#start(entry, ctx, params, method, finish);
    } finally {
      this.#gate.leave(place);
    }
  }

  #notification(
    method: string,
    params: JsonObject | undefined,
    session: Session,
  ): void {
    const entry = this.#notifications.get(method);
    if (entry === undefined) {
      this.loggerFor(session).log("debug", `ignored notification ${method}`);
      return;
    }
    const handler = entry.handler;
    const ctx = new RequestContext(
      this,
      session,
      undefined,
      params ?? EMPTY_PARAMS,
    );
    const report = (error: unknown) =>
      this.loggerFor(session).log(
        "warn",
        `notification ${method} failed:`,
        error,
      );
    try {
      const result = this.#setupPending && !entry.atOnce
        ? this.ready().then(() => handler(params ?? EMPTY_PARAMS, ctx))
        : handler(params ?? EMPTY_PARAMS, ctx);
      if (result instanceof Promise) result.catch(report);
    } catch (error) {
      report(error);
    }
  }

  // What a handler's throw answers: an RpcError as it is; anything else
  // is a bug, logged, and answered -32603 without its details.
  #failure(method: string, error: unknown, session: Session): Answer {
    if (error instanceof RpcError) return { error };
    this.loggerFor(session).log("error", `handler for ${method} threw:`, error);
    return { error: internalError(method) };
  }
}

/** The `_meta` key that carries a stateless request's protocol version. */
export const PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion";

/**
 * Whether `message` asks to be served statelessly (2026-07-28 and later):
 * it is `server/discover`, or its `_meta` names a protocol version. A
 * request of the handshake era has neither.
 */
export function isModernRequest(message: RequestMessage): boolean {
  if (message.method === "server/discover") return true;
  const meta = message.params?._meta;
  return typeof meta === "object" && meta !== null &&
    Object.hasOwn(meta, PROTOCOL_VERSION_META);
}

/** How the stateless era's dispatch is called (see `era_2026.ts`). */
type ModernDispatch = (
  server: McpServer,
  message: RequestMessage,
  session: Session,
) => Promise<string | undefined>;

// The stateless era's module loads on its first request: neither start-up
// nor a server without 2026-07-28 ever loads it.
function modernDispatch(): ModernDispatch {
  let loading: Promise<ModernDispatch> | undefined;
  return async (server, message, session) => {
    if (loading === undefined) {
      loading = trackLoading(
        import("./era_2026.ts").then((m) => m.dispatchModern),
      );
      loading.catch(() => loading = undefined);
    }
    // A cancellation that arrives before the request reaches its handler
    // (read in the same chunk, or while the module loads) finds it here.
    const key = idKey(message.id);
    const waiting = { cancelled: false, abort: () => waiting.cancelled = true };
    session.inFlight.set(key, waiting);
    let dispatch: ModernDispatch;
    try {
      dispatch = await loading;
    } finally {
      if (session.inFlight.get(key) === waiting) session.inFlight.delete(key);
    }
    if (waiting.cancelled) return undefined;
    return await dispatch(server, message, session);
  };
}
