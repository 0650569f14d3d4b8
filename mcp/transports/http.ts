/**
 * The Streamable HTTP transport (MCP 2025-03-26 and later): one endpoint,
 * `/mcp` by default, served by our own HTTP/1.1 front end
 * ({@linkcode serveHttp1}: deadlines for slow headers and idle connections,
 * a cap on connections, strict parsing). A POST carries client
 * messages and is answered with JSON or an SSE stream, as the client's
 * `Accept` allows; a GET opens the stream for what the server sends on its
 * own (or resumes one with `Last-Event-ID`); a DELETE ends a session.
 *
 * One process serves many sessions: each is one connection (`serve` from
 * `../connection.ts`) over its own {@linkcode HttpSessionTransport}, with
 * the same {@linkcode McpServer} as every other. Safe by default: it
 * listens on 127.0.0.1, checks `Host` and `Origin` against allow-lists,
 * optionally a bearer token, and bounds bodies, their reading time, idle
 * sessions and their number.
 *
 * @module
 */

import { inSlices } from "../turns.ts";
import { type ConnectionOptions, serve } from "../connection.ts";
import {
  classify,
  decode,
  describeError,
  encodeError,
  ErrorCode,
  idKey,
  type IncomingMessage,
} from "../jsonrpc.ts";
import type { Logger } from "../log.ts";
import { allowsBatches, isModernVersion } from "../protocol_versions.ts";
import { isModernRequest, type McpServer } from "../server.ts";
import type { Session } from "../session.ts";
import {
  accepts,
  bearerMatches,
  defaultAllowedHosts,
  defaultAllowedOrigins,
  hostAllowed,
  hostForUrl,
  originAllowed,
  readBody,
} from "./http_guard.ts";
import { HttpSessionTransport, type ReplyMode } from "./http_session.ts";
import {
  type Http1Info,
  type Http1Server,
  serveHttp1,
  timerMs,
} from "./http1.ts";
import { DEFAULT_MAX_KEPT_BYTES, KeptBudget } from "./kept_budget.ts";
import { parseEventId } from "./sse.ts";
import type {
  StatelessReplyMode,
  StatelessTransport,
} from "./http_stateless.ts";

/** Default of {@linkcode HttpOptions.healthPath}. */
export const DEFAULT_HEALTH_PATH = "/health";

/** Default of {@linkcode HttpOptions.maxBodyBytes}: 4 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Default of {@linkcode HttpOptions.sessionIdleTimeoutMs}: 30 minutes. */
export const DEFAULT_SESSION_IDLE_TIMEOUT_MS = 30 * 60 * 1000;

/**
 * Default of {@linkcode HttpOptions.unusedSessionTimeoutMs}: 1 minute.
 */
export const DEFAULT_UNUSED_SESSION_TIMEOUT_MS = 60_000;

/** Default of {@linkcode HttpOptions.maxSessions}. */
export const DEFAULT_MAX_SESSIONS = 10_000;

/** Default of {@linkcode HttpOptions.bodyTimeoutMs}: 30 seconds. */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/** Default of {@linkcode HttpOptions.retryMs}: 1 second. */
export const DEFAULT_RETRY_MS = 1_000;

// Sessions given their keep-alive tick in one turn of the event loop.
const KEEP_ALIVE_SLICE = 256;

/** Default of {@linkcode HttpOptions.keepAliveMs}: 15 seconds. */
export const DEFAULT_KEEP_ALIVE_MS = 15_000;

/** Default of {@linkcode HttpOptions.stopGraceMs}: 5 seconds. */
export const DEFAULT_HTTP_STOP_GRACE_MS = 5_000;

/** The protocol version assumed when a request names none (as specified). */
export const DEFAULT_HTTP_PROTOCOL_VERSION = "2025-03-26";

/** Options for {@linkcode serveHttp}. */
export interface HttpOptions {
  /** Where to listen; default "127.0.0.1". */
  hostname?: string;
  /** The port; 0 takes any free one (see {@linkcode HttpServer.url}). */
  port: number;
  /** The endpoint's path; default "/mcp". */
  path?: string;
  /**
   * Where a load balancer checks the server is up; default "/health", ""
   * for none. A GET (or HEAD) there is answered 200 `ok` while the server
   * serves and 503 once it shuts down, whatever its `Host`, `Origin` and
   * token: it reveals nothing else.
   */
  healthPath?: string;
  /**
   * `Origin` values accepted besides the defaults (http:// and the
   * loopback names and listening name, with the port); requests without
   * `Origin` (not from a browser) are accepted.
   */
  allowedOrigins?: readonly string[];
  /**
   * `Host` values accepted besides the defaults (the loopback names and
   * the listening name, with the port); an entry without a port accepts
   * any port.
   */
  allowedHosts?: readonly string[];
  /**
   * What a 403 for a `Host` not allowed tells its reader to do if the
   * server should answer to `host` (the header's value, or `NAME` when it
   * has none or an odd one), e.g. the application's flag that allows it;
   * default: the {@linkcode HttpOptions.allowedHosts} option.
   */
  allowHostAdvice?: (host: string) => string;
  /**
   * What a 403 for an `Origin` not allowed tells its reader to do if the
   * server should accept `origin` (the header's value, or `ORIGIN` when it
   * is an odd one); default: the {@linkcode HttpOptions.allowedOrigins}
   * option.
   */
  allowOriginAdvice?: (origin: string) => string;
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  bearerToken?: string;
  /** Largest request body in bytes; default 4 MiB. */
  maxBodyBytes?: number;
  /** How long a body may take to arrive (ms); default 30 s. */
  bodyTimeoutMs?: number;
  /**
   * How long a request's headers may take to arrive (ms), from their
   * first byte; default 10 s. A slower client's connection is closed.
   */
  headerTimeoutMs?: number;
  /**
   * How long a connection may wait for its next request (ms); default
   * 75 s.
   */
  keepAliveTimeoutMs?: number;
  /**
   * How long a write may wait for the client to take any of it (ms);
   * default 30 s. A client that stops reading is closed after it.
   */
  writeTimeoutMs?: number;
  /**
   * Most connections open at once; one more closes the least recently
   * active not serving a request (503 when all are); default 4,096.
   */
  maxConnections?: number;
  /**
   * How long a session may go unused before it ends (ms); default 30 min.
   * A request uses it; so does an open stream while its client takes what
   * it is sent (checked at each keep-alive tick, {@linkcode keepAliveMs}).
   */
  sessionIdleTimeoutMs?: number;
  /**
   * How long a session that no request used after its `initialize` lasts
   * (ms); default 1 minute. Sessions made and left (a flood of
   * `initialize`) go long before the idle timeout.
   */
  unusedSessionTimeoutMs?: number;
  /**
   * Most sessions open at once; default 10,000. At the cap, a new session
   * ends the one least recently used that has no request running (one
   * never used after its `initialize` first); only when every session has
   * a request running is `initialize` answered 503.
   */
  maxSessions?: number;
  /**
   * Most bytes kept for clients, across all sessions: events kept for a
   * resume (`Last-Event-ID`), streams kept after their client went away,
   * events queued for clients that have not taken them; default 64 MiB.
   * Past it the least recently used are dropped, those no client came
   * back for first (a dropped queue fails its client's stream).
   */
  maxKeptBytes?: number;
  /**
   * How long a client told to reconnect (SSE polling, 2025-11-25) waits
   * first (ms); default 1,000.
   */
  retryMs?: number;
  /**
   * How often an open SSE stream (a session's GET stream, a POST's stream,
   * a stateless `subscriptions/listen`) carries an SSE comment
   * (`: keep-alive`) while nothing else comes, so that proxies and
   * clients do not take it for dead, and a client gone is noticed (ms);
   * default 15,000.
   */
  keepAliveMs?: number;
  /** On shutdown, how long requests in flight may take (ms); default 5 s. */
  stopGraceMs?: number;
  /** Abort: graceful shutdown (see {@linkcode HttpServer.shutdown}). */
  signal?: AbortSignal;
  /** Called with each new session (to attach watchers and such). */
  onSession?: (session: Session) => void;
  /** Where the transport logs; default the server's logger. */
  logger?: Logger;
  /** Options for each session's connection. */
  connection?: Omit<ConnectionOptions, "signal" | "onSession" | "stopGraceMs">;
}

/** A running Streamable HTTP server; see {@linkcode serveHttp}. */
export interface HttpServer {
  /** The endpoint's URL, e.g. "http://127.0.0.1:43127/mcp". */
  readonly url: string;
  /** Sessions open now. */
  readonly sessions: number;
  /** Bytes kept for clients now (see {@linkcode HttpOptions.maxKeptBytes}). */
  readonly keptBytes: number;
  /** Resolves once the server has shut down. */
  readonly finished: Promise<void>;
  /**
   * Stop accepting requests, finish those in flight (within the grace
   * period), end every stream and session; resolves when done.
   */
  shutdown(): Promise<void>;
}

/**
 * Serve `server` over Streamable HTTP at `options.path` of
 * `options.hostname`:`options.port`. Returns once listening.
 *
 * @example Serve on a free port until aborted
 * ```ts ignore
 * import { handlers } from "../../handlers/mod.ts";
 * import { McpServer } from "../server.ts";
 * import { serveHttp } from "./http.ts";
 *
 * const server = new McpServer({
 *   handlers,
 *   info: { name: "example-mcp", version: "1.0.0" },
 * });
 * const http = serveHttp(server, { port: 0 });
 * console.error(`serving MCP at ${http.url}`);
 * await http.finished;
 * ```
 */
export function serveHttp(server: McpServer, options: HttpOptions): HttpServer {
  return new StreamableHttpServer(server, options);
}

/** The answer to a body that is not JSON. */
function parseError(): Response {
  return errorResponse(
    400,
    describeError(
      ErrorCode.ParseError,
      "the body is not valid JSON; send one JSON-RPC message (or, where the protocol version allows, an array of them).",
    ),
    {},
    ErrorCode.ParseError,
  );
}

/** A JSON-RPC error body with id null, as HTTP-level errors are answered. */
function errorResponse(
  status: number,
  message: string,
  headers: Record<string, string> = {},
  // HTTP-level errors carry -32000, as the official SDK sends them.
  code: number = ErrorCode.ServerError,
): Response {
  return new Response(encodeError(null, code, message), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/**
 * The answer of the health path: 200 `ok` to GET and HEAD (a server that
 * shuts down answers 503 before it gets here), never cached.
 */
function healthResponse(method: string): Response {
  if (method !== "GET" && method !== "HEAD") {
    return errorResponse(
      405,
      `Method Not Allowed: the health check answers GET and HEAD, not ${method}.`,
      { allow: "GET, HEAD" },
    );
  }
  return new Response("ok\n", {
    headers: {
      "content-type": "text/plain; charset=utf-8",
      "cache-control": "no-store",
    },
  });
}

class StreamableHttpServer implements HttpServer {
  readonly url: string;
  readonly finished: Promise<void>;
  readonly #server: McpServer;
  readonly #options: HttpOptions;
  readonly #logger: Logger;
  readonly #path: string;
  readonly #healthPath: string;
  readonly #hosts: string[];
  readonly #allowHostAdvice: (host: string) => string;
  readonly #allowOriginAdvice: (origin: string) => string;
  readonly #origins: string[];
  readonly #http: Http1Server;
  readonly #sessions = new Map<string, HttpSessionTransport>();
  readonly #served = new Set<Promise<void>>();
  readonly #stop = new AbortController();
  readonly #maxBodyBytes: number;
  readonly #bodyTimeoutMs: number;
  readonly #idleMs: number;
  readonly #unusedMs: number;
  readonly #maxSessions: number;
  readonly #budget: KeptBudget;
  #statelessOpen = 0;
  readonly #sweeper: ReturnType<typeof setInterval>;
  readonly #keepAlive: ReturnType<typeof setInterval>;
  #ticking = false;
  #shutdown: Promise<void> | undefined;
  readonly #done = Promise.withResolvers<void>();

  constructor(server: McpServer, options: HttpOptions) {
    this.#server = server;
    this.#options = options;
    this.#logger = options.logger ?? server.logger;
    this.#path = options.path ?? "/mcp";
    this.#healthPath = options.healthPath ?? DEFAULT_HEALTH_PATH;
    this.#maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.#bodyTimeoutMs = timerMs(
      "bodyTimeoutMs",
      options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
    );
    this.#idleMs = timerMs(
      "sessionIdleTimeoutMs",
      options.sessionIdleTimeoutMs ?? DEFAULT_SESSION_IDLE_TIMEOUT_MS,
    );
    this.#unusedMs = timerMs(
      "unusedSessionTimeoutMs",
      options.unusedSessionTimeoutMs ?? DEFAULT_UNUSED_SESSION_TIMEOUT_MS,
    );
    this.#maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
    this.#budget = new KeptBudget(
      options.maxKeptBytes ?? DEFAULT_MAX_KEPT_BYTES,
    );
    const keepAliveMs = timerMs(
      "keepAliveMs",
      options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS,
    );
    const hostname = options.hostname ?? "127.0.0.1";
    this.#http = serveHttp1({
      hostname,
      port: options.port,
      // Left out, each takes serveHttp1's default.
      headerTimeoutMs: options.headerTimeoutMs,
      keepAliveTimeoutMs: options.keepAliveTimeoutMs,
      writeTimeoutMs: options.writeTimeoutMs,
      maxConnections: options.maxConnections,
      onError: (error) => {
        this.#logger.log("error", "serving an HTTP request failed:", error);
        return errorResponse(
          500,
          "Internal error: the server failed on this request; its log has the details.",
        );
      },
    }, (request, info) => this.#handle(request, info));
    const port = this.#http.addr.port;
    this.#hosts = [
      ...defaultAllowedHosts(hostname, port),
      ...(options.allowedHosts ?? []),
    ];
    this.#allowHostAdvice = options.allowHostAdvice ??
      ((host) => `start it with ${host} in its allowedHosts option`);
    this.#allowOriginAdvice = options.allowOriginAdvice ??
      ((origin) => `start it with ${origin} in its allowedOrigins option`);
    this.#origins = [
      ...defaultAllowedOrigins(hostname, port),
      ...(options.allowedOrigins ?? []),
    ];
    const shown = hostname === "0.0.0.0" || hostname === "::"
      ? "127.0.0.1"
      : hostForUrl(hostname);
    this.url = `http://${shown}:${port}${this.#path}`;
    // Idle sessions are looked for a few times per timeout (at least
    // once a minute), so one ends at most a fraction late.
    const every = Math.max(
      10,
      Math.min(60_000, this.#idleMs / 4, this.#unusedMs / 4),
    );
    this.#sweeper = setInterval(() => this.#sweep(), every);
    Deno.unrefTimer(this.#sweeper as unknown as number);
    this.#keepAlive = setInterval(() => this.#keepAliveTick(), keepAliveMs);
    Deno.unrefTimer(this.#keepAlive as unknown as number);
    this.finished = this.#done.promise;
    const signal = options.signal;
    if (signal !== undefined) {
      if (signal.aborted) this.shutdown();
      else {
        signal.addEventListener("abort", () => this.shutdown(), {
          once: true,
        });
      }
    }
  }

  get sessions(): number {
    return this.#sessions.size;
  }

  // A keep-alive tick over every session, KEEP_ALIVE_SLICE sessions at a
  // time with a turn of the event loop between slices, so that writing to
  // thousands of idle streams does not hold the loop in one piece: under
  // 4,100 idle streams a new client's first try took 138-145 ms at p99
  // with the tick in one piece, 48-111 ms with it sliced.
  async #keepAliveTick(): Promise<void> {
    if (this.#ticking) return;
    this.#ticking = true;
    try {
      await inSlices(this.#sessions, KEEP_ALIVE_SLICE, ([id, transport]) => {
        // Ended meanwhile: nothing to keep alive.
        if (this.#sessions.get(id) === transport) transport.keepAlive();
      });
    } finally {
      this.#ticking = false;
    }
  }

  get keptBytes(): number {
    return this.#budget.used;
  }

  shutdown(): Promise<void> {
    return this.#shutdown ??= this.#shutdownNow();
  }

  async #shutdownNow(): Promise<void> {
    clearInterval(this.#sweeper);
    clearInterval(this.#keepAlive);
    // Requests in flight finish within the grace period (each
    // connection's stopGraceMs); the streams end with their sessions.
    this.#stop.abort();
    for (const transport of this.#sessions.values()) transport.stop();
    const grace = this.#options.stopGraceMs ?? DEFAULT_HTTP_STOP_GRACE_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, grace + 1_000);
    });
    await Promise.race([Promise.all(this.#served), late]);
    for (const transport of this.#sessions.values()) transport.close();
    this.#sessions.clear();
    await Promise.race([this.#http.shutdown(), late]);
    clearTimeout(timer);
    this.#done.resolve();
  }

  async #handle(
    request: Request,
    _info: Http1Info,
  ): Promise<Response> {
    if (this.#shutdown !== undefined) {
      return errorResponse(
        503,
        "Service Unavailable: the server is shutting down; try again once it is back.",
      );
    }
    // Before the Host, Origin and token checks: the answer tells nothing
    // but that the process serves, so a probe needs no configuration.
    if (this.#healthPath !== "" && request.url.includes(this.#healthPath)) {
      const path = new URL(request.url).pathname;
      if (path === this.#healthPath) return healthResponse(request.method);
    }
    const headers = request.headers;
    if (!hostAllowed(headers.get("host"), this.#hosts)) {
      const host = headers.get("host") ?? "";
      const named = /^[A-Za-z0-9._:[\]-]{1,255}$/.test(host) ? host : "NAME";
      return errorResponse(
        403,
        `Forbidden: the Host header ${
          JSON.stringify(host)
        } is not one this server answers to (DNS-rebinding protection); connect to ${this.url}, or, if this server should answer to that name, ${
          this.#allowHostAdvice(named)
        }.`,
      );
    }
    if (!originAllowed(headers.get("origin"), this.#origins)) {
      const origin = headers.get("origin") ?? "";
      const named = /^[A-Za-z0-9+.-]{1,32}:\/\/[A-Za-z0-9._:[\]-]{1,255}$/.test(
          origin,
        )
        ? origin
        : "ORIGIN";
      return errorResponse(
        403,
        `Forbidden: the Origin ${
          JSON.stringify(origin)
        } is not allowed (DNS-rebinding protection); if requests from that page should reach this server, ${
          this.#allowOriginAdvice(named)
        }.`,
      );
    }
    const url = new URL(request.url);
    if (url.pathname !== this.#path) {
      return errorResponse(
        404,
        `Not Found: this server serves MCP at ${this.#path} only; send your requests to ${this.url}.`,
      );
    }
    const token = this.#options.bearerToken;
    if (
      token !== undefined && !bearerMatches(headers.get("authorization"), token)
    ) {
      const given = headers.get("authorization") !== null;
      return errorResponse(
        401,
        given
          ? "Unauthorized: the bearer token is wrong; send the token the server was started with as Authorization: Bearer <token>."
          : "Unauthorized: this server needs a bearer token; send it as Authorization: Bearer <token>.",
        {
          "www-authenticate": given
            ? 'Bearer realm="mcp", error="invalid_token"'
            : 'Bearer realm="mcp"',
        },
      );
    }
    switch (request.method) {
      case "POST":
        return await this.#post(request);
      case "GET":
      case "DELETE":
        if (
          headers.get("mcp-session-id") === null &&
          this.#server.modernVersions.length > 0 &&
          isModernVersion(headers.get("mcp-protocol-version") ?? "")
        ) {
          return errorResponse(
            405,
            `Method Not Allowed: MCP ${
              headers.get("mcp-protocol-version")
            } has no ${request.method} on the endpoint; POST each request (subscriptions/listen for a stream of change notifications).`,
            { allow: "POST" },
          );
        }
        return request.method === "GET"
          ? this.#get(request)
          : this.#delete(request);
      default:
        return errorResponse(
          405,
          `Method Not Allowed: ${request.method} is not served here; use POST to send messages, GET to open the server's stream, DELETE to end a session.`,
          { allow: "GET, POST, DELETE" },
        );
    }
  }

  // The session a request names: its transport, or the error response.
  #sessionOf(request: Request): HttpSessionTransport | Response {
    const id = request.headers.get("mcp-session-id");
    if (id === null) {
      return errorResponse(
        400,
        "Bad Request: the Mcp-Session-Id header is missing; send the session id the initialize response gave, or initialize a new session (a POST of initialize without the header).",
      );
    }
    const transport = this.#sessions.get(id);
    if (transport !== undefined) transport.used = true;
    if (transport === undefined) {
      return errorResponse(
        404,
        "Session not found: the Mcp-Session-Id names no open session (it ended, expired, or never existed); initialize a new session.",
        {},
        ErrorCode.RequestTimeout, // an unknown session, as the SDK says it
      );
    }
    const version = request.headers.get("mcp-protocol-version");
    if (
      version !== null && !this.#server.protocolVersions.includes(version)
    ) {
      return errorResponse(
        400,
        `Bad Request: MCP-Protocol-Version ${
          JSON.stringify(version)
        } is not supported; send one of ${
          this.#server.protocolVersions.join(", ")
        }: the version initialize agreed on.`,
      );
    }
    return transport;
  }

  async #post(request: Request): Promise<Response> {
    const type = request.headers.get("content-type") ?? "";
    if (!/^application\/json\s*(;|$)/i.test(type.trim())) {
      return errorResponse(
        415,
        `Unsupported Media Type: a POST must carry Content-Type: application/json, not ${
          JSON.stringify(type)
        }.`,
      );
    }
    const accept = request.headers.get("accept");
    const json = accepts(accept, "application/json");
    const sse = accepts(accept, "text/event-stream");
    if (!json && !sse) {
      return errorResponse(
        406,
        "Not Acceptable: the Accept header must list application/json and text/event-stream (answers come as either).",
      );
    }
    const sessionId = request.headers.get("mcp-session-id");
    // A stateless version in the header: the session id of an older
    // revision, if any, is ignored (as 2026-07-28 says).
    const version = request.headers.get("mcp-protocol-version");
    const modernHeader = this.#server.modernVersions.length > 0 &&
      version !== null && isModernVersion(version);
    let transport: HttpSessionTransport | undefined;
    if (sessionId !== null && !modernHeader) {
      const found = this.#sessionOf(request);
      if (found instanceof Response) return found;
      transport = found;
      transport.lastActive = performance.now();
    }
    const body = await readBody(
      request,
      this.#maxBodyBytes,
      this.#bodyTimeoutMs,
    );
    switch (body) {
      // The rest of the body is not read: the connection closes after
      // the answer, so that the client cannot keep it busy.
      case "too large":
        return errorResponse(
          413,
          `Content Too Large: the body is over the limit of ${this.#maxBodyBytes} bytes; send smaller messages (or start the server with a larger limit).`,
          { connection: "close" },
        );
      case "too slow":
        return errorResponse(
          408,
          `Request Timeout: the body did not arrive within ${this.#bodyTimeoutMs} ms; send it at once.`,
          { connection: "close" },
        );
      case "failed":
        return errorResponse(
          400,
          "Bad Request: reading the body failed; send it again.",
        );
      case "not UTF-8":
        return errorResponse(
          400,
          describeError(
            ErrorCode.ParseError,
            "the body is not valid UTF-8; send JSON encoded as UTF-8.",
          ),
          {},
          ErrorCode.ParseError,
        );
    }
    // The body is decoded once, here: the connection is handed the
    // messages (a batch's members each).
    const batch = body.trimStart().startsWith("[");
    let messages: IncomingMessage[];
    if (batch) {
      let items: unknown;
      try {
        items = JSON.parse(body);
      } catch {
        return parseError();
      }
      messages = (items as unknown[]).map((item) => classify(item));
    } else messages = [decode(body)];
    const keys: string[] = [];
    for (const message of messages) {
      const id = message.kind === "request" || message.kind === "invalid"
        ? message.id
        : null;
      if (message.kind === "invalid" && id === null) {
        if (message.error.code === ErrorCode.ParseError) return parseError();
        return errorResponse(
          400,
          message.error.message,
          transport?.headers,
          message.error.code,
        );
      }
      if (id === null) continue;
      const key = idKey(id);
      if (transport?.has(key) || keys.includes(key)) {
        return errorResponse(
          400,
          describeError(
            ErrorCode.InvalidRequest,
            `request id ${key} is already in use by a request not answered yet in this session; give each request its own id.`,
          ),
          transport?.headers,
          ErrorCode.InvalidRequest,
        );
      }
      keys.push(key);
    }
    if (
      transport === undefined && !batch &&
      this.#server.modernVersions.length > 0
    ) {
      const first = messages[0];
      if (
        modernHeader ||
        (first.kind === "request" && isModernRequest(first))
      ) {
        const mode: StatelessReplyMode = json && sse
          ? "auto"
          : json
          ? "json"
          : "sse";
        return await this.#stateless(request, first, mode);
      }
    }
    if (transport === undefined) {
      const first = messages[0];
      if (!batch && first.kind === "invalid") {
        return errorResponse(400, first.error.message, {}, first.error.code);
      }
      if (
        batch || first.kind !== "request" || first.method !== "initialize"
      ) {
        return errorResponse(
          400,
          "Bad Request: the Mcp-Session-Id header is missing; initialize a session first (POST an initialize request alone, without the header) and send its id with every later request.",
        );
      }
      const created = this.#open();
      if (created instanceof Response) return created;
      transport = created;
    } else if (batch) {
      const version = transport.session?.protocolVersion;
      if (!allowsBatches(version)) {
        return errorResponse(
          400,
          describeError(
            ErrorCode.InvalidRequest,
            `batches are not part of protocol version ${version}; send one message per POST.`,
          ),
          transport.headers,
          ErrorCode.InvalidRequest,
        );
      }
      if (messages.length === 0) {
        return errorResponse(
          400,
          describeError(
            ErrorCode.InvalidRequest,
            "the batch is empty; put at least one message in it.",
          ),
          transport.headers,
          ErrorCode.InvalidRequest,
        );
      }
    }
    const mode: ReplyMode = json && sse ? "auto" : json ? "json" : "sse";
    const initializing = sessionId === null;
    let response: Response;
    try {
      response = await transport.post(
        messages,
        keys,
        initializing && json ? "json" : mode,
        batch,
      );
    } catch {
      return errorResponse(
        404,
        "Session not found: the session ended while this request waited; initialize a new session.",
        {},
        ErrorCode.RequestTimeout, // an unknown session, as the SDK says it
      );
    }
    if (initializing && transport.session?.state === "new") {
      // initialize failed: no session was made.
      this.#end(transport);
    }
    return response;
  }

  // One request of a stateless version (2026-07-28): its headers are
  // checked against its body, then it is served through a connection of
  // its own that ends with it; no session id is asked for or issued.
  async #stateless(
    request: Request,
    message: IncomingMessage,
    mode: StatelessReplyMode,
  ): Promise<Response> {
    if (message.kind === "invalid") {
      return new Response(
        encodeError(
          message.id,
          message.error.code,
          message.error.message,
          message.error.data,
        ),
        { status: 400, headers: { "content-type": "application/json" } },
      );
    }
    if (message.kind !== "request") {
      // Nothing a client sends on its own means anything here
      // (cancellation is closing the response stream).
      return new Response(null, { status: 202 });
    }
    const stateless = await loadStateless();
    const mismatch = stateless.headerMismatch(
      request.headers,
      message,
      this.#server.tools,
      this.#server.method(message.method)?.nameKey,
    );
    if (mismatch !== undefined) {
      return new Response(
        encodeError(message.id, ErrorCode.HeaderMismatch, mismatch),
        { status: 400, headers: { "content-type": "application/json" } },
      );
    }
    if (!isModernRequest(message)) {
      return new Response(
        encodeError(
          message.id,
          ErrorCode.InvalidParams,
          describeError(
            ErrorCode.InvalidParams,
            `MCP-Protocol-Version ${
              request.headers.get("mcp-protocol-version")
            } is stateless: the request needs "_meta" in its params, with "io.modelcontextprotocol/protocolVersion" and "io.modelcontextprotocol/clientCapabilities".`,
          ),
        ),
        { status: 400, headers: { "content-type": "application/json" } },
      );
    }
    // Each stateless request holds a connection while it runs: they count
    // against the same limit as sessions.
    if (this.#statelessOpen >= this.#maxSessions) {
      return errorResponse(
        503,
        `Service Unavailable: the server has its maximum of ${this.#maxSessions} requests open; close streams you no longer read (subscriptions/listen) or try again later.`,
        { "retry-after": "1" },
      );
    }
    const transport: StatelessTransport = new stateless.StatelessTransport(
      message,
      mode,
      this.#options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS,
      this.#budget,
    );
    this.#statelessOpen++;
    const served = serve(this.#server, transport, {
      ...this.#options.connection,
      maxWaitMs: this.#options.connection?.maxWaitMs ?? 0,
      signal: this.#stop.signal,
      stopGraceMs: this.#options.stopGraceMs ?? DEFAULT_HTTP_STOP_GRACE_MS,
    }).catch((error) => {
      this.#logger.log("error", "a stateless request failed:", error);
    }).finally(() => {
      this.#served.delete(served);
      this.#statelessOpen--;
      transport.close();
    });
    this.#served.add(served);
    return await transport.response;
  }

  #get(request: Request): Response {
    if (!accepts(request.headers.get("accept"), "text/event-stream")) {
      return errorResponse(
        406,
        "Not Acceptable: a GET opens an SSE stream; send Accept: text/event-stream.",
      );
    }
    const found = this.#sessionOf(request);
    if (found instanceof Response) return found;
    const last = request.headers.get("last-event-id");
    const resumeAt = last === null ? undefined : parseEventId(last);
    const response = found.resume(resumeAt);
    if (response !== undefined) return response;
    return errorResponse(
      409,
      "Conflict: this session's stream for server messages is open already (one per session); keep reading that one, or close it first.",
      found.headers,
    );
  }

  #delete(request: Request): Response {
    const found = this.#sessionOf(request);
    if (found instanceof Response) return found;
    this.#end(found);
    return new Response(null, { status: 200 });
  }

  // A new session: its transport, served by a connection of its own.
  #open(): HttpSessionTransport | Response {
    if (this.#sessions.size >= this.#maxSessions && !this.#evictSession()) {
      return errorResponse(
        503,
        `Service Unavailable: the server has its maximum of ${this.#maxSessions} sessions open; end sessions you no longer use (DELETE) or try again later.`,
      );
    }
    const id = newSessionId();
    const transport = new HttpSessionTransport({
      id,
      retryMs: this.#options.retryMs ?? DEFAULT_RETRY_MS,
      budget: this.#budget,
    });
    this.#sessions.set(id, transport);
    const served = serve(this.#server, transport, {
      ...this.#options.connection,
      // Answers of one POST do not wait for those of another.
      maxWaitMs: this.#options.connection?.maxWaitMs ?? 0,
      signal: this.#stop.signal,
      stopGraceMs: this.#options.stopGraceMs ?? DEFAULT_HTTP_STOP_GRACE_MS,
      onSession: (session) => {
        transport.session = session;
        session.closeStream = (related) => transport.closeStream(related);
        this.#options.onSession?.(session);
      },
    }).catch((error) => {
      this.#logger.log("error", "a session failed:", error);
    }).finally(() => {
      this.#served.delete(served);
      if (this.#sessions.get(id) === transport) this.#sessions.delete(id);
    });
    this.#served.add(served);
    return transport;
  }

  #end(transport: HttpSessionTransport): void {
    if (this.#sessions.get(transport.id) === transport) {
      this.#sessions.delete(transport.id);
    }
    transport.stop();
  }

  // At the session cap: end the session least recently used with no
  // request running, one never used after its initialize first; false
  // when every session has a request running.
  #evictSession(): boolean {
    let victim: HttpSessionTransport | undefined;
    for (const transport of this.#sessions.values()) {
      if (transport.busy || transport.stopped) continue;
      if (
        victim === undefined ||
        (victim.used && !transport.used) ||
        (victim.used === transport.used &&
          transport.lastActive < victim.lastActive)
      ) victim = transport;
    }
    if (victim === undefined) return false;
    this.#logger.log(
      "info",
      `session ${victim.id} ended to make room for a new one (${this.#maxSessions} sessions open)`,
    );
    this.#end(victim);
    return true;
  }

  #sweep(): void {
    const now = performance.now();
    for (const transport of this.#sessions.values()) {
      if (transport.busy) continue;
      if (now - transport.lastActive >= this.#idleMs) {
        this.#logger.log(
          "info",
          `session ${transport.id} ended after ${this.#idleMs} ms unused`,
        );
        this.#end(transport);
      } else if (
        !transport.used && now - transport.createdAt >= this.#unusedMs
      ) {
        this.#logger.log(
          "info",
          `session ${transport.id} ended: no request came after its initialize within ${this.#unusedMs} ms`,
        );
        this.#end(transport);
      }
    }
  }
}

let stateless: Promise<typeof import("./http_stateless.ts")> | undefined;

// The stateless era's HTTP binding loads with its first request.
function loadStateless(): Promise<typeof import("./http_stateless.ts")> {
  return stateless ??= import("./http_stateless.ts");
}

/** A session id: 128 random bits as hex (visible ASCII, as specified). */
function newSessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let id = "";
  for (const byte of bytes) id += byte.toString(16).padStart(2, "0");
  return id;
}
