/**
 * A small, strict HTTP/1.1 server on `Deno.listen`, serving a fetch-style
 * handler (`(Request) => Response`) as `Deno.serve` does, with what
 * `Deno.serve` lacks in Deno 2.9: deadlines for a request's headers and for
 * idle keep-alive connections, and a cap on open connections. A client that
 * dribbles its headers (slow loris) is cut off after
 * {@linkcode Http1Options.headerTimeoutMs}; one that opens connections
 * without end is refused past {@linkcode Http1Options.maxConnections}, so
 * that it cannot take every file descriptor of the process.
 *
 * The parser is strict, so that a proxy in front and this server cannot
 * disagree on where a request ends (request smuggling): lines end with
 * CRLF only (a bare LF is 400), no obs-fold, tokens as RFC 9110 defines
 * them, HTTP/1.0 and 1.1 only, exactly one `Host` (HTTP/1.1), at most one
 * `Content-Length` of digits and never with `Transfer-Encoding`, and
 * `Transfer-Encoding: chunked` as the only coding. Any violation is
 * answered 400 (431 for too large a header block, 501 for another transfer
 * coding, 505 for another version) and the connection closes.
 *
 * Responses carry `Content-Length` when their body can be sized without
 * waiting (null, or any body that is not `text/event-stream`, read whole);
 * an event stream is sent chunked, one write per chunk, so every event
 * leaves at once. A client that goes away (end of input, reset, failed
 * write) cancels the response's body stream and aborts `request.signal`.
 *
 * @module
 */

/** Default of {@linkcode Http1Options.headerTimeoutMs}: 10 seconds. */
export const DEFAULT_HEADER_TIMEOUT_MS = 10_000;

/** Default of {@linkcode Http1Options.keepAliveTimeoutMs}: 75 seconds. */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 75_000;

/** Default of {@linkcode Http1Options.writeTimeoutMs}: 30 seconds. */
export const DEFAULT_WRITE_TIMEOUT_MS = 30_000;

/** Default of {@linkcode Http1Options.maxConnections}. */
export const DEFAULT_MAX_CONNECTIONS = 4_096;

/** Default of {@linkcode Http1Options.maxHeaderBytes}: 32 KiB. */
export const DEFAULT_MAX_HEADER_BYTES = 32 * 1024;

/** Options for {@linkcode serveHttp1}. */
export interface Http1Options {
  /** Where to listen; default "127.0.0.1". */
  hostname?: string;
  /** The port; 0 takes any free one (see {@linkcode Http1Server.addr}). */
  port: number;
  /**
   * How long a request's header block may take to arrive whole (ms),
   * counted from its first byte (from the connection's accept for its
   * first request); default 10 s. Past it the connection closes, with 408
   * when part of a request came.
   */
  headerTimeoutMs?: number;
  /**
   * How long a kept-alive connection may wait for its next request (ms);
   * default 75 s, longer than the idle timeouts of common load balancers
   * (60 s), so that the server does not close a connection just as a
   * proxy reuses it.
   */
  keepAliveTimeoutMs?: number;
  /**
   * How long a write to the client may wait for the client to take any of
   * it (ms); default 30 s. A client that stops reading (a full socket
   * buffer) holds its connection, and the response it is sent, only this
   * long: past it the connection closes.
   */
  writeTimeoutMs?: number;
  /**
   * Most connections open at once; default 4,096. At the cap, a new
   * connection closes the oldest one held idle, then the oldest still
   * sending its head, then the oldest streaming events; when every one
   * is serving a request, the new one is answered 503 and closed.
   */
  maxConnections?: number;
  /** Largest header block, request line included (bytes); default 32 KiB. */
  maxHeaderBytes?: number;
  /** The response when the handler throws; default a bare 500. */
  onError?: (error: unknown) => Response | Promise<Response>;
}

/** What a handler learns besides the request. */
export interface Http1Info {
  /** The client's address. */
  readonly remoteAddr: Deno.NetAddr;
}

/** A fetch-style handler: a request in, its response out. */
export type Http1Handler = (
  request: Request,
  info: Http1Info,
) => Response | Promise<Response>;

/** A running server; see {@linkcode serveHttp1}. */
export interface Http1Server {
  /** The address it listens on (with the port taken, when 0 was asked). */
  readonly addr: Deno.NetAddr;
  /** Connections open now. */
  readonly connections: number;
  /**
   * Connections closed so far to make room for new ones at the cap (idle
   * ones first, then those dribbling a head, then event streams).
   */
  readonly evictions: number;
  /** Resolves once the server has shut down. */
  readonly finished: Promise<void>;
  /**
   * Stop accepting connections, close idle ones at once, let requests in
   * flight finish (their connections close after their responses), and
   * resolve once every connection is closed.
   */
  shutdown(): Promise<void>;
}

/**
 * Listen on `options.hostname`:`options.port` and serve each request with
 * `handler`. Returns once listening.
 *
 * @example Serve "ok" on a free port
 * ```ts ignore
 * import { serveHttp1 } from "./http1.ts";
 *
 * const server = serveHttp1({ port: 0 }, () => new Response("ok\n"));
 * console.error(`listening on port ${server.addr.port}`);
 * await server.finished;
 * ```
 */
export function serveHttp1(
  options: Http1Options,
  handler: Http1Handler,
): Http1Server {
  return new Server(options, handler);
}

/** The longest delay a timer takes (2^31 - 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A timeout option as a timer can take it, or a RangeError naming it: a
 * non-finite delay or one over {@linkcode MAX_TIMER_MS} would fire at once,
 * as timers clamp it to 1 ms.
 */
export function timerMs(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0 || value > MAX_TIMER_MS) {
    throw new RangeError(
      `${name} must be a number of milliseconds from 1 to ${MAX_TIMER_MS}, not ${value}`,
    );
  }
  return value;
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a whole number from 1, not ${value}`);
  }
  return value;
}

const encoder = new TextEncoder();
const ascii = new TextDecoder();

/** Reason phrases of the statuses this project sends. */
const REASONS: Record<number, string> = {
  100: "Continue",
  200: "OK",
  201: "Created",
  202: "Accepted",
  204: "No Content",
  304: "Not Modified",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  408: "Request Timeout",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  417: "Expectation Failed",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  501: "Not Implemented",
  503: "Service Unavailable",
  505: "HTTP Version Not Supported",
};

/** A request the parser refuses: its status and a line saying why. */
export interface Rejection {
  /** 400, 431, 501 or 505. */
  status: number;
  /** What was wrong, for the response body. */
  reason: string;
}

/** A request head as parsed by {@linkcode parseHead}. */
export interface RequestHead {
  /** The method, a token (case kept). */
  method: string;
  /** The request-target: origin-form (`/path?query`) or absolute-form. */
  target: string;
  /** 0 for HTTP/1.0, 1 for HTTP/1.1. */
  minor: 0 | 1;
  /** The fields in order, names lower-cased, values trimmed. */
  fields: [string, string][];
}

// RFC 9110's token and field-value (no control character but HTAB; the
// text is decoded byte for byte, so every character is below U+0100).
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// deno-lint-ignore no-control-regex -- control characters are what it finds
const FIELD_VALUE = /^[^\x00-\x08\x0a-\x1f\x7f]*$/;
/**
 * A chunk-size line (RFC 9112, 7.1.1): the size in hex, then extensions,
 * each a token name with an optional token or quoted-string value. Kept
 * exact, so that no proxy in front can read where a chunk ends otherwise.
 */
const CHUNK_SIZE_LINE =
  /^([0-9A-Fa-f]{1,12})(?:[ \t]*;[ \t]*[!#$%&'*+\-.^_`|~0-9A-Za-z]+(?:[ \t]*=[ \t]*(?:[!#$%&'*+\-.^_`|~0-9A-Za-z]+|"(?:[\t \x21\x23-\x5b\x5d-\x7e\x80-\xff]|\\[\t \x21-\x7e\x80-\xff])*"))?)*$/;
/** A trailer field line: a token name, a colon, a value. */
const TRAILER_LINE =
  // deno-lint-ignore no-control-regex -- control characters are what it finds
  /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+:[^\x00-\x08\x0a-\x1f\x7f]*$/;
const ORIGIN_FORM = /^\/[\x21-\x7e]*$/;
const ABSOLUTE_FORM = /^http:\/\/[\x21-\x7e]+$/i;
// uri-host [":" port]: a reg-name or IP literal, nothing that would change
// the URL built from it (no "/", "?", "#", "@" or "\").
const HOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]+)(:[0-9]*)?$/;

/** The methods whose case `Request` normalizes (Fetch standard). */
const NORMALIZED_METHODS: ReadonlySet<string> = new Set([
  "DELETE",
  "GET",
  "HEAD",
  "OPTIONS",
  "POST",
  "PUT",
]);

/**
 * Parse a request head, `text` (decoded byte for byte, without its final
 * empty line): the request line and the header fields. Returns the
 * {@linkcode Rejection} when anything is not exactly as RFC 9112 says.
 */
export function parseHead(text: string): RequestHead | Rejection {
  const lines = text.split("\r\n");
  const line = lines[0];
  const first = line.indexOf(" ");
  const second = line.indexOf(" ", first + 1);
  if (first <= 0 || second < 0 || line.indexOf(" ", second + 1) >= 0) {
    return bad("the request line must be METHOD SP TARGET SP HTTP-VERSION");
  }
  const method = line.slice(0, first);
  const target = line.slice(first + 1, second);
  const version = line.slice(second + 1);
  if (!TOKEN.test(method)) return bad("the method is not a token");
  // Methods are case-sensitive (RFC 9110 §9.1), but a Request normalizes
  // the case of these six: "delete" would be run as DELETE, past a proxy
  // rule written for DELETE. Such a method is not one we implement.
  const upper = method.toUpperCase();
  if (method !== upper && NORMALIZED_METHODS.has(upper)) {
    return {
      status: 501,
      reason:
        `Not Implemented: the method ${method} is not served (methods are case-sensitive); send ${upper}.`,
    };
  }
  let minor: 0 | 1;
  if (version === "HTTP/1.1") minor = 1;
  else if (version === "HTTP/1.0") minor = 0;
  else if (/^HTTP\/[0-9]\.[0-9]$/.test(version)) {
    return {
      status: 505,
      reason: `${version} is not served; send HTTP/1.1 (or HTTP/1.0).`,
    };
  } else return bad("the request line does not end with an HTTP version");
  if (!ORIGIN_FORM.test(target) && !ABSOLUTE_FORM.test(target)) {
    return bad(
      "the request target must be a path beginning with / (or an absolute http:// URL)",
    );
  }
  const fields: [string, string][] = [];
  for (let i = 1; i < lines.length; i++) {
    const field = lines[i];
    const colon = field.indexOf(":");
    if (colon <= 0) {
      return bad(
        field.length > 0 && (field[0] === " " || field[0] === "\t")
          ? "a header line is folded (obs-fold); send each field on one line"
          : "a header line has no name or no colon",
      );
    }
    const name = field.slice(0, colon);
    if (!TOKEN.test(name)) {
      return bad(
        /[\r\n]/.test(name)
          ? "a line ends with a bare CR or LF; end every line with CRLF"
          : "a header name is not a token (no space before the colon)",
      );
    }
    let start = colon + 1;
    let end = field.length;
    while (start < end && isBlank(field.charCodeAt(start))) start++;
    while (end > start && isBlank(field.charCodeAt(end - 1))) end--;
    const value = field.slice(start, end);
    if (!FIELD_VALUE.test(value)) {
      return bad(
        /[\r\n]/.test(value)
          ? "a line ends with a bare CR or LF; end every line with CRLF"
          : "a header value holds a control character",
      );
    }
    fields.push([name.toLowerCase(), value]);
  }
  return { method, target, minor, fields };
}

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

function bad(reason: string): Rejection {
  return { status: 400, reason: `Bad Request: ${reason}.` };
}

/** How a request's body is delimited; see {@linkcode framing}. */
export type Framing =
  | { kind: "length"; length: number }
  | { kind: "chunked" };

/** The fields of a head that matter to the server itself. */
export interface HeadInfo {
  /** The body's framing. */
  framing: Framing;
  /** The `Host` value (of the target, for absolute-form), or null. */
  host: string | null;
  /** Whether the client asks to keep the connection after this request. */
  keepAlive: boolean;
  /** Whether the client waits for `100 Continue` before sending a body. */
  expectContinue: boolean;
}

/**
 * What the head says of its body, host and connection, or the
 * {@linkcode Rejection} when its framing is ambiguous: both
 * `Content-Length` and `Transfer-Encoding`, several or non-digit
 * `Content-Length`, a coding other than exactly `chunked`, a missing or
 * repeated `Host` in HTTP/1.1, an expectation other than `100-continue`.
 */
export function headInfo(head: RequestHead): HeadInfo | Rejection {
  let length: string | undefined;
  let coding: string | undefined;
  let host: string | undefined;
  let hosts = 0;
  let connection = "";
  let expect: string | undefined;
  for (const [name, value] of head.fields) {
    switch (name) {
      case "content-length":
        if (length !== undefined) {
          return bad("Content-Length is given more than once");
        }
        length = value;
        break;
      case "transfer-encoding":
        coding = coding === undefined ? value : `${coding}, ${value}`;
        break;
      case "host":
        host = value;
        hosts++;
        break;
      case "connection":
        connection += `,${value.toLowerCase()}`;
        break;
      case "expect":
        expect = expect === undefined ? value : `${expect}, ${value}`;
        break;
    }
  }
  if (length !== undefined && coding !== undefined) {
    return bad(
      "a request must not carry both Content-Length and Transfer-Encoding",
    );
  }
  let framing: Framing = { kind: "length", length: 0 };
  if (coding !== undefined) {
    if (head.minor === 0) {
      return bad("Transfer-Encoding is not part of HTTP/1.0");
    }
    if (coding.toLowerCase() !== "chunked") {
      return {
        status: 501,
        reason:
          `Not Implemented: Transfer-Encoding ${coding} is not served; send the body with Content-Length or as chunked alone.`,
      };
    }
    framing = { kind: "chunked" };
  } else if (length !== undefined) {
    if (!/^[0-9]{1,15}$/.test(length)) {
      return bad("Content-Length must be one number of bytes");
    }
    framing = { kind: "length", length: Number(length) };
  }
  if (head.minor === 1 && hosts !== 1) {
    return bad(
      hosts === 0
        ? "an HTTP/1.1 request needs a Host header"
        : "Host is given more than once",
    );
  }
  if (hosts > 1) return bad("Host is given more than once");
  if (head.target[0] !== "/") {
    // Absolute-form: its authority is the host (RFC 9112, 3.2.2).
    const authority = head.target.slice(7).split("/")[0].split("?")[0];
    host = authority;
  }
  if (host !== undefined && !HOST.test(host)) {
    return bad("the Host is not a host name or address with an optional port");
  }
  let expectContinue = false;
  if (expect !== undefined && head.minor === 1) {
    if (expect.toLowerCase() !== "100-continue") {
      return {
        status: 417,
        reason:
          `Expectation Failed: only Expect: 100-continue is understood, not ${expect}.`,
      };
    }
    expectContinue = true;
  }
  let keepAlive = head.minor === 1;
  if (connection !== "") {
    const tokens = connection.split(",").map((token) => token.trim());
    // `close` wins over `keep-alive`, on HTTP/1.0 too (RFC 9112 §9.3).
    keepAlive = !tokens.includes("close") &&
      (head.minor === 1 || tokens.includes("keep-alive"));
  }
  return { framing, host: host ?? null, keepAlive, expectContinue };
}

/** Where a connection is between requests. */
const enum State {
  /** Reading a head; the header deadline runs. */
  Head,
  /** A request is being served; no deadline of ours. */
  Busy,
  /** Waiting for the next request; the keep-alive deadline runs. */
  Idle,
}

class Server implements Http1Server {
  readonly addr: Deno.NetAddr;
  readonly finished: Promise<void>;
  readonly handler: Http1Handler;
  readonly headerTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly writeTimeoutMs: number;
  readonly maxConnections: number;
  readonly maxHeaderBytes: number;
  readonly onError: (error: unknown) => Response | Promise<Response>;
  readonly open = new Set<Connection>();
  /** Buffers for responses, reused once written (see POOLED_BYTES). */
  readonly buffers: Uint8Array[] = [];
  /**
   * A coarse clock, read at each sweep: deadlines are set from it without
   * a clock read per request. It may be one sweep behind, so a deadline
   * is set one sweep further (see {@linkcode Server.after}): it expires
   * never early, and at most two sweeps late.
   */
  now = performance.now();
  readonly #every: number;
  stopping = false;
  /** Connections closed to make room for new ones. */
  evictions = 0;
  readonly #listener: Deno.TcpListener;
  readonly #sweeper: ReturnType<typeof setInterval>;
  readonly #accepting: Promise<void>;
  readonly #done = Promise.withResolvers<void>();
  #shutdown: Promise<void> | undefined;
  #allClosed: PromiseWithResolvers<void> | undefined;

  constructor(options: Http1Options, handler: Http1Handler) {
    this.handler = handler;
    this.headerTimeoutMs = timerMs(
      "headerTimeoutMs",
      options.headerTimeoutMs ?? DEFAULT_HEADER_TIMEOUT_MS,
    );
    this.keepAliveTimeoutMs = timerMs(
      "keepAliveTimeoutMs",
      options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
    );
    this.writeTimeoutMs = timerMs(
      "writeTimeoutMs",
      options.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS,
    );
    this.maxConnections = positive(
      "maxConnections",
      options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    );
    this.maxHeaderBytes = positive(
      "maxHeaderBytes",
      options.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES,
    );
    this.onError = options.onError ??
      (() => new Response("Internal Server Error\n", { status: 500 }));
    this.#listener = Deno.listen({
      hostname: options.hostname ?? "127.0.0.1",
      port: options.port,
    });
    this.addr = this.#listener.addr;
    // Deadlines are checked a few times per timeout (at least once a
    // second), so one expires at most a quarter of it late.
    const every = this.#every = Math.max(
      5,
      Math.min(
        1_000,
        this.headerTimeoutMs / 4,
        this.keepAliveTimeoutMs / 4,
        this.writeTimeoutMs / 4,
      ),
    );
    this.#sweeper = setInterval(() => this.#sweep(), every);
    Deno.unrefTimer(this.#sweeper as unknown as number);
    this.finished = this.#done.promise;
    this.#accepting = this.#accept();
  }

  /** The deadline `ms` from now, by the coarse clock. */
  after(ms: number): number {
    return this.now + this.#every + ms;
  }

  get connections(): number {
    return this.open.size;
  }

  shutdown(): Promise<void> {
    return this.#shutdown ??= this.#shutdownNow();
  }

  async #shutdownNow(): Promise<void> {
    this.stopping = true;
    try {
      this.#listener.close();
    } catch {
      // Closed already.
    }
    await this.#accepting;
    for (const connection of this.open) connection.stopIfIdle();
    if (this.open.size > 0) {
      this.#allClosed = Promise.withResolvers<void>();
      await this.#allClosed.promise;
    }
    clearInterval(this.#sweeper);
    this.#done.resolve();
  }

  closed(connection: Connection): void {
    this.open.delete(connection);
    if (this.open.size === 0) this.#allClosed?.resolve();
  }

  async #accept(): Promise<void> {
    while (!this.stopping) {
      let conn: Deno.TcpConn;
      try {
        conn = await this.#listener.accept();
      } catch (error) {
        if (this.stopping || error instanceof Deno.errors.BadResource) break;
        // Out of descriptors, most likely: wait for some to be freed
        // rather than spin.
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      // At the cap, a connection held without a request being served
      // (idle, dribbling its head, or streaming events) makes room for
      // the new one, so that no client can lock others out by holding
      // connections; only when every one serves a request is it refused.
      if (this.open.size >= this.maxConnections && !this.#evictOne()) {
        refuse(conn);
        continue;
      }
      try {
        conn.setNoDelay(true);
      } catch {
        // Gone already; its first read says so.
      }
      const connection = new Connection(this, conn);
      this.open.add(connection);
      connection.serve();
    }
  }

  // Close one connection not serving a request: one closing anyway, else
  // the least recently active (accepted, or its last request begun or
  // answered longest ago). A fresh client is the most recent, so a flood
  // of connections or streams, however held, gives way to it, and a
  // client's keep-alive connection between two requests is not taken from
  // it for one that has waited longer. False when none can be.
  #evictOne(): boolean {
    let victim: Connection | undefined;
    let oldest = Infinity;
    for (const connection of this.open) {
      if (!connection.evictable) continue;
      if (connection.closing) {
        victim = connection;
        break;
      }
      if (connection.lastActive < oldest) {
        victim = connection;
        oldest = connection.lastActive;
      }
    }
    if (victim === undefined) return false;
    this.evictions++;
    victim.evict();
    return true;
  }

  #sweep(): void {
    const now = this.now = performance.now();
    for (const connection of this.open) {
      if (connection.deadline <= now) connection.expire();
    }
  }
}

const REFUSAL_TEXT =
  "Service Unavailable: too many connections; try again later.\n";
const REFUSAL = encoder.encode(
  "HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-type: text/plain; charset=utf-8\r\nretry-after: 1\r\n" +
    `content-length: ${REFUSAL_TEXT.length}\r\n\r\n${REFUSAL_TEXT}`,
);

// A connection over the cap: told so, then closed, without reading it.
function refuse(conn: Deno.TcpConn): void {
  conn.write(REFUSAL).catch(() => {}).finally(() => {
    try {
      conn.close();
    } catch {
      // Closed already.
    }
  });
}

/** The bytes of a head, as written: latin-1, one byte per character. */
function encodeHead(head: string, into: Uint8Array): void {
  const { read, written } = encoder.encodeInto(head, into);
  if (read === head.length && written === head.length) return;
  for (let i = 0; i < head.length; i++) into[i] = head.charCodeAt(i);
}

/** Text of bytes taken one by one as latin-1 (what HTTP fields are). */
function latin1(bytes: Uint8Array): string {
  // Plain ASCII (the usual case) decodes fastest as UTF-8.
  const text = ascii.decode(bytes);
  if (text.length === bytes.length && !text.includes("\uFFFD")) return text;
  let out = "";
  for (let i = 0; i < bytes.length; i += 4096) {
    out += String.fromCharCode(
      ...bytes.subarray(i, Math.min(bytes.length, i + 4096)),
    );
  }
  return out;
}

const CONTINUE = encoder.encode("HTTP/1.1 100 Continue\r\n\r\n");
const LAST_CHUNK = encoder.encode("0\r\n\r\n");
const CRLF = encoder.encode("\r\n");
/**
 * Largest chunk of a streamed body copied to be written with its framing
 * in one write; larger ones are written as they are, in three.
 */
const COPIED_CHUNK = 16 * 1024;
/** Most bytes a body chunk read from the socket holds. */
const BODY_CHUNK = 64 * 1024;
/** Size of the pooled response buffers: head room, then the body. */
const POOLED_BYTES = 16 * 1024;
/** Room for a response's head before its body in a pooled buffer. */
const HEAD_ROOM = 2 * 1024;
/** Most buffers kept in the pool. */
const MAX_POOLED = 64;

/**
 * Whether a body of media type `type` is UTF-8 text, to be read as text:
 * JSON (UTF-8 by RFC 8259, unless a charset says otherwise) and text that
 * says it is UTF-8. Bytes of such a body that are not UTF-8 would be
 * replaced by U+FFFD.
 */
function utf8Text(type: string): boolean {
  const lower = type.toLowerCase();
  const charset = /;\s*charset="?([^";\s]*)/.exec(lower)?.[1];
  if (lower.startsWith("application/json")) {
    return charset === undefined || charset === "utf-8";
  }
  return lower.startsWith("text/") && charset === "utf-8";
}

/** How long a refused request's connection lingers for its close (ms). */
const LINGER_MS = 2_000;
/** How much input a lingering connection drops before it closes. */
const LINGER_BYTES = 256 * 1024;
/** Longest chunk-size line (with extensions) of a chunked body. */
const MAX_CHUNK_LINE = 4096;

/** Thrown into a body stream whose framing is broken. */
class FramingError extends Error {}

/**
 * A request as handlers get it. Its signal is made only when asked for:
 * few handlers do, and an AbortController per request would cost more
 * than the rest of its making.
 */
class ServedRequest extends Request {
  #aborter: AbortController | undefined;
  #gone = false;

  override get signal(): AbortSignal {
    if (this.#aborter === undefined) {
      this.#aborter = new AbortController();
      if (this.#gone) this.#aborter.abort(wentAway());
    }
    return this.#aborter.signal;
  }

  /** Its client went away: abort its signal. */
  static abort(request: ServedRequest): void {
    request.#gone = true;
    request.#aborter?.abort(wentAway());
  }
}

function wentAway(): Error {
  return new Error("the client went away");
}

/** One request being served, and what its connection knows of it. */
class Exchange {
  request: ServedRequest | undefined;
  /** Whether its body is read to the end (so the next request follows). */
  consumed = true;
  /** Whether its client's input is being watched for its end. */
  watching = false;
  /** The reader of a streamed response. */
  reader: ReadableStreamDefaultReader<Uint8Array> | undefined;

  /** The client went away: abort the request, cancel its response. */
  gone(): void {
    if (this.request !== undefined) ServedRequest.abort(this.request);
    this.reader?.cancel().catch(() => {});
  }
}

/** One accepted connection: its requests, one after another. */
class Connection {
  readonly #server: Server;
  readonly #conn: Deno.TcpConn;
  readonly #info: Http1Info;
  /** Input not consumed yet: `#buffer[#start..#end]`. */
  #buffer = new Uint8Array(4096);
  #start = 0;
  #end = 0;
  /** Where the search for the end of the head goes on. */
  #scanned = 0;
  #state = State.Head;
  /** When the running deadline expires (server clock), or Infinity. */
  deadline: number;
  #closed = false;
  /** Whether a refusal is being written (the connection closes after). */
  #failing = false;
  /** The read under way, shared by whoever waits for input. */
  #reading: Promise<boolean> | undefined;
  /** Whether the client went away (end of input, reset, failed write). */
  #gone = false;
  /** The request being served. */
  #current: Exchange | undefined;
  /** Whether the response being written is an event stream. */
  #streaming = false;
  /**
   * When it was accepted, or its last request began or was answered
   * (`performance.now()`): what eviction at the cap goes by.
   */
  lastActive = performance.now();

  constructor(server: Server, conn: Deno.TcpConn) {
    this.#server = server;
    this.#conn = conn;
    this.#info = { remoteAddr: conn.remoteAddr };
    this.deadline = server.after(server.headerTimeoutMs);
  }

  /** The deadline passed: close (with 408 when part of a head came). */
  expire(): void {
    if (this.#closed) return;
    if (this.#state === State.Head && this.#end > this.#start) {
      this.#fail({
        status: 408,
        reason:
          `Request Timeout: the request's headers did not arrive within ${this.#server.headerTimeoutMs} ms.`,
      });
    } else this.close();
  }

  /**
   * Whether it may be closed to make room for a new connection at the
   * cap: idle between requests, reading a head, streaming events or
   * closing; never while a request is being served.
   */
  get evictable(): boolean {
    if (this.#closed) return false;
    return this.#failing || this.#state !== State.Busy || this.#streaming;
  }

  /** Whether it is closing anyway (a refusal being written). */
  get closing(): boolean {
    return this.#failing;
  }

  /** Close it for a new connection: its request and stream are told. */
  evict(): void {
    this.close();
    this.#wentAway();
  }

  /** On shutdown: close now unless a request is being served. */
  stopIfIdle(): void {
    if (this.#state !== State.Busy || this.#failing) this.close();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.deadline = Infinity;
    try {
      this.#conn.close();
    } catch {
      // Closed already.
    }
    this.#server.closed(this);
  }

  // Answer a request that cannot be served, then close.
  #fail(rejection: Rejection): void {
    if (this.#failing || this.#closed) return;
    this.#failing = true;
    this.#state = State.Busy;
    // The lingering close below is bounded by this deadline.
    this.deadline = this.#server.after(LINGER_MS);
    const body = encoder.encode(`${rejection.reason}\n`);
    const head = `HTTP/1.1 ${rejection.status} ${
      REASONS[rejection.status] ?? ""
    }\r\nconnection: close\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${body.byteLength}\r\n\r\n`;
    const bytes = new Uint8Array(head.length + body.byteLength);
    encodeHead(head, bytes);
    bytes.set(body, head.length);
    this.#writeAll(bytes).then(() => this.#linger()).catch(() => {}).finally(
      () => this.close(),
    );
  }

  // A lingering close: the client may still be sending what we will not
  // read, and closing with unread input resets the connection, which can
  // destroy the answer before the client reads it. So the sending side is
  // shut, and input is read and dropped until the client closes (at most
  // LINGER_BYTES, until the deadline).
  async #linger(): Promise<void> {
    // It fails when the client reset the connection: nothing to linger for.
    if (!await this.#conn.closeWrite().then(() => true, () => false)) return;
    let dropped = 0;
    while (dropped < LINGER_BYTES && !this.#closed) {
      dropped += this.#end - this.#start;
      this.#start = this.#end;
      if (!await this.#fill()) break;
    }
  }

  async serve(): Promise<void> {
    try {
      while (!this.#closed) {
        const head = await this.#readHead();
        if (head === undefined) break;
        const keep = await this.#exchange(head);
        this.lastActive = performance.now();
        if (!keep || this.#server.stopping) break;
        this.#state = this.#end > this.#start ? State.Head : State.Idle;
        this.deadline = this.#server.after(
          this.#state === State.Head
            ? this.#server.headerTimeoutMs
            : this.#server.keepAliveTimeoutMs,
        );
      }
    } catch {
      // A reset, a closed socket or a write past its deadline: nothing to
      // answer, and the request's handler and response stream are told.
      this.#wentAway();
    }
    if (!this.#failing) this.close();
  }

  // Make room for `wanted` more bytes of input after #end.
  #room(wanted: number): void {
    if (this.#buffer.length - this.#end >= wanted) return;
    const kept = this.#end - this.#start;
    if (this.#start > 0 && this.#buffer.length - kept >= wanted) {
      this.#buffer.copyWithin(0, this.#start, this.#end);
    } else {
      const bigger = new Uint8Array(
        Math.max(this.#buffer.length * 2, kept + wanted),
      );
      bigger.set(this.#buffer.subarray(this.#start, this.#end));
      this.#buffer = bigger;
    }
    this.#scanned -= this.#start;
    this.#start = 0;
    this.#end = kept;
  }

  /**
   * Read more input into the buffer; false at its end. Concurrent callers
   * share one read.
   */
  #fill(): Promise<boolean> {
    return this.#reading ??= this.#read();
  }

  async #read(): Promise<boolean> {
    try {
      if (this.#buffer.length - this.#end < 1024) this.#room(4096);
      const n = await this.#conn.read(this.#buffer.subarray(this.#end));
      if (n === null) {
        this.#wentAway();
        return false;
      }
      this.#end += n;
      return true;
    } catch {
      this.#wentAway();
      return false;
    } finally {
      this.#reading = undefined;
    }
  }

  #wentAway(): void {
    if (this.#gone) return;
    this.#gone = true;
    this.#current?.gone();
  }

  // The next head, parsed; undefined when the connection is done with.
  async #readHead(): Promise<[RequestHead, HeadInfo] | undefined> {
    const max = this.#server.maxHeaderBytes;
    while (true) {
      // Empty lines before a request line are ignored (RFC 9112, 2.2).
      while (
        this.#end - this.#start >= 2 && this.#buffer[this.#start] === 13 &&
        this.#buffer[this.#start + 1] === 10
      ) this.#start += 2;
      if (this.#scanned < this.#start) this.#scanned = this.#start;
      const buffer = this.#buffer;
      let at = buffer.indexOf(10, this.#scanned);
      while (at !== -1 && at < this.#end) {
        if (at === this.#start || buffer[at - 1] !== 13) {
          this.#fail(
            bad("a line ends with a bare LF; end every line with CRLF"),
          );
          return undefined;
        }
        if (at - this.#start >= 3 && buffer[at - 2] === 10) {
          // The end of the head: CRLF CRLF.
          if (at + 1 - this.#start > max) break;
          const text = latin1(buffer.subarray(this.#start, at - 3));
          this.#start = at + 1;
          this.#scanned = this.#start;
          const head = parseHead(text);
          if ("status" in head) {
            this.#fail(head);
            return undefined;
          }
          const info = headInfo(head);
          if ("status" in info) {
            this.#fail(info);
            return undefined;
          }
          this.#state = State.Busy;
          this.deadline = Infinity;
          this.lastActive = performance.now();
          return [head, info];
        }
        at = buffer.indexOf(10, at + 1);
      }
      this.#scanned = Math.max(this.#start, this.#end - 1);
      if (this.#end - this.#start > max) {
        this.#fail({
          status: 431,
          reason:
            `Request Header Fields Too Large: the request line and headers are over ${max} bytes.`,
        });
        return undefined;
      }
      if (this.#state === State.Idle && this.#end > this.#start) {
        this.#state = State.Head;
        this.deadline = this.#server.after(this.#server.headerTimeoutMs);
      }
      const more = await this.#fill();
      // A refusal (a 408 at the header deadline) may have come while this
      // read waited: what arrives now is the lingering close's to drop.
      if (!more || this.#closed || this.#failing) return undefined;
      if (this.#state === State.Idle) {
        this.#state = State.Head;
        this.deadline = this.#server.after(this.#server.headerTimeoutMs);
      }
    }
  }

  // Serve one request; whether the connection may serve another.
  async #exchange([head, info]: [RequestHead, HeadInfo]): Promise<boolean> {
    const server = this.#server;
    const bodyless = head.method === "GET" || head.method === "HEAD";
    const exchange = new Exchange();
    let body: Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> | null =
      null;
    const framing = info.framing;
    if (framing.kind === "length" && framing.length > 0) {
      if (this.#end - this.#start >= framing.length) {
        // Whole in the buffer already (the usual case): the Request
        // copies it (as the Fetch standard says), so a view will do.
        const end = this.#start + framing.length;
        if (!bodyless) {
          body = this.#buffer.subarray(this.#start, end) as Uint8Array<
            ArrayBuffer
          >;
        }
        this.#start = end;
      } else {
        exchange.consumed = false;
        if (!bodyless) body = this.#lengthBody(framing.length, info, exchange);
      }
    } else if (framing.kind === "chunked") {
      exchange.consumed = false;
      if (!bodyless) body = this.#chunkedBody(info, exchange);
    }
    const absolute = head.target[0] !== "/";
    const host = info.host ?? hostOf(server.addr);
    let request: ServedRequest;
    try {
      request = new ServedRequest(
        absolute ? head.target : `http://${host}${head.target}`,
        body === null ? { method: head.method } : { method: head.method, body },
      );
      // Appended one by one: cheaper than a HeadersInit, which is
      // converted pair by pair first.
      const headers = request.headers;
      for (const [name, value] of head.fields) {
        if (absolute && name === "host") continue;
        headers.append(name, value);
      }
      if (absolute) headers.set("host", host);
    } catch (error) {
      // A method fetch forbids (CONNECT, TRACE, TRACK), or a URL that
      // does not parse.
      this.#fail(
        head.method === "CONNECT" || head.method === "TRACE" ||
          head.method === "TRACK"
          ? {
            status: 501,
            reason: `Not Implemented: ${head.method} is not served.`,
          }
          : bad(`the request cannot be read (${(error as Error).message})`),
      );
      return false;
    }
    exchange.request = request;
    this.#current = exchange;
    if (this.#gone) exchange.gone();
    if (exchange.consumed) this.#watch(exchange);
    let response: Response;
    try {
      response = await server.handler(request, this.#info);
      if (!(response instanceof Response)) {
        throw new TypeError("the handler did not return a Response");
      }
    } catch (error) {
      try {
        response = await server.onError(error);
      } catch {
        response = new Response(null, { status: 500 });
      }
    }
    try {
      return await this.#respond(head, info, exchange, response);
    } catch {
      // A failed write: the client is gone.
      this.#wentAway();
      return false;
    } finally {
      this.#current = undefined;
      this.#streaming = false;
    }
  }

  // While a request is served, its client's input is read on (into the
  // buffer: a pipelined request waits there): its end means the client
  // went away, as hyper takes it by default.
  async #watch(exchange: Exchange): Promise<void> {
    if (exchange.watching) return;
    exchange.watching = true;
    while (
      this.#current === exchange && !this.#gone && !this.#closed &&
      this.#end - this.#start < this.#server.maxHeaderBytes
    ) {
      if (!await this.#fill()) break;
    }
  }

  // Write `response`; whether the connection may serve another request.
  async #respond(
    head: RequestHead,
    info: HeadInfo,
    exchange: Exchange,
    response: Response,
  ): Promise<boolean> {
    const status = response.status;
    let lines = `HTTP/1.1 ${status} ${
      response.statusText || (REASONS[status] ?? "")
    }\r\n`;
    let type = "";
    let close = false;
    response.headers.forEach((value, name) => {
      switch (name) {
        case "connection":
          close ||= value.toLowerCase().includes("close");
          return;
        case "content-length":
        case "transfer-encoding":
        case "keep-alive":
          return;
        case "content-type":
          type = value;
      }
      lines += `${name}: ${value}\r\n`;
    });
    if (this.#gone) {
      await response.body?.cancel().catch(() => {});
      return false;
    }
    const noBody = head.method === "HEAD" || status === 204 ||
      status === 304 || status < 200;
    const stream = type.toLowerCase().startsWith("text/event-stream");
    // A body that is not a stream is read whole (response.body is not
    // touched: for a body made from a string, that would make a stream of
    // it first). UTF-8 text is read as text and encoded straight into a
    // pooled buffer, after room for the head: bytes() costs several times
    // text() for a body made from a string.
    let bytes: Uint8Array | undefined;
    let pooled: Uint8Array | undefined;
    let size = 0;
    if (!stream) {
      try {
        if (utf8Text(type)) {
          const text = await response.text();
          pooled = this.#server.buffers.pop() ?? new Uint8Array(POOLED_BYTES);
          const { read, written } = encoder.encodeInto(
            text,
            pooled.subarray(HEAD_ROOM),
          );
          if (read === text.length) size = written;
          else {
            bytes = encoder.encode(text);
            size = bytes.byteLength;
          }
        } else {
          bytes = await response.bytes();
          size = bytes.byteLength;
        }
      } catch {
        // The body failed before anything was sent: the connection can
        // say nothing true about it.
        this.#release(pooled);
        return false;
      }
    }
    // Input left unread (checked once the handler is done with the body):
    // where the next request begins is unknown.
    let keep = info.keepAlive && !close && !this.#server.stopping &&
      exchange.consumed;
    const body = stream ? response.body : null;
    const chunked = body !== null && !noBody && head.minor === 1;
    // An HTTP/1.0 client learns where a stream ends from the close.
    if (body !== null && !chunked && !noBody) keep = false;
    if (!keep) lines += "connection: close\r\n";
    else if (head.minor === 0) lines += "connection: keep-alive\r\n";
    if (chunked) lines += "transfer-encoding: chunked\r\n";
    else if (!stream && status !== 204 && status !== 304 && status >= 200) {
      lines += `content-length: ${size}\r\n`;
    }
    lines += "\r\n";
    if (body === null || noBody) {
      if (body !== null) await body.cancel().catch(() => {});
      const length = noBody ? 0 : size;
      try {
        if (
          pooled !== undefined && bytes === undefined &&
          lines.length <= HEAD_ROOM
        ) {
          // The head just before the body: one write, no copy.
          const at = HEAD_ROOM - lines.length;
          // Bounded: a head of non-ASCII bytes is first tried as UTF-8,
          // longer than its latin-1, which must not run into the body.
          encodeHead(lines, pooled.subarray(at, HEAD_ROOM));
          await this.#writeAll(pooled.subarray(at, HEAD_ROOM + length));
        } else {
          const out = new Uint8Array(lines.length + length);
          encodeHead(lines, out);
          if (length > 0) {
            out.set(
              bytes ?? pooled!.subarray(HEAD_ROOM, HEAD_ROOM + length),
              lines.length,
            );
          }
          await this.#writeAll(out);
        }
      } finally {
        this.#release(pooled);
      }
      return keep;
    }
    const reader = body.getReader();
    exchange.reader = reader;
    this.#streaming = stream;
    if (this.#gone) exchange.gone();
    const out = new Uint8Array(lines.length);
    encodeHead(lines, out);
    await this.#writeAll(out);
    if (exchange.consumed) this.#watch(exchange);
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.byteLength === 0) continue;
      if (chunked && value.byteLength > COPIED_CHUNK) {
        // Written as is (an event may be shared by many streams): no copy.
        const size = `${value.byteLength.toString(16)}\r\n`;
        const line = new Uint8Array(size.length);
        encodeHead(size, line);
        await this.#writeAll(line);
        await this.#writeAll(value);
        await this.#writeAll(CRLF);
      } else if (chunked) {
        const size = `${value.byteLength.toString(16)}\r\n`;
        const chunk = new Uint8Array(size.length + value.byteLength + 2);
        encodeHead(size, chunk);
        chunk.set(value, size.length);
        chunk[chunk.length - 2] = 13;
        chunk[chunk.length - 1] = 10;
        await this.#writeAll(chunk);
      } else await this.#writeAll(value);
    }
    if (this.#gone) return false;
    if (chunked) await this.#writeAll(LAST_CHUNK);
    return keep && exchange.consumed;
  }

  // A pooled buffer back to the pool, once no write uses it.
  #release(buffer: Uint8Array | undefined): void {
    const pool = this.#server.buffers;
    if (buffer !== undefined && pool.length < MAX_POOLED) pool.push(buffer);
  }

  // Each write that waits on the client runs under the write deadline
  // (a sweep past it closes the connection, which fails the write); the
  // deadline running before is put back after.
  async #writeAll(bytes: Uint8Array): Promise<void> {
    let at = 0;
    const before = this.deadline;
    this.deadline = this.#server.after(this.#server.writeTimeoutMs);
    try {
      while (at < bytes.byteLength) {
        at += await this.#conn.write(at === 0 ? bytes : bytes.subarray(at));
      }
    } finally {
      if (!this.#closed) this.deadline = before;
    }
  }

  // A body of `length` bytes, part of it perhaps in the buffer.
  #lengthBody(
    length: number,
    info: HeadInfo,
    exchange: Exchange,
  ): ReadableStream<Uint8Array> {
    let left = length;
    let asked = !info.expectContinue || this.#end > this.#start;
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        if (!asked) {
          asked = true;
          await this.#writeAll(CONTINUE);
        }
        if (this.#end === this.#start && this.#reading === undefined) {
          // Nothing buffered: read straight into a chunk of its own.
          const chunk = new Uint8Array(Math.min(left, BODY_CHUNK));
          let n: number | null = null;
          try {
            n = await this.#conn.read(chunk);
          } catch {
            // Reset: as the end of input.
          }
          if (n === null) {
            this.#wentAway();
            controller.error(new FramingError("the body ended early"));
            return;
          }
          controller.enqueue(chunk.subarray(0, n));
          left -= n;
        } else {
          if (this.#end === this.#start && !await this.#fill()) {
            controller.error(new FramingError("the body ended early"));
            return;
          }
          const take = Math.min(left, this.#end - this.#start);
          controller.enqueue(
            this.#buffer.slice(this.#start, this.#start + take),
          );
          this.#start += take;
          left -= take;
        }
        if (left === 0) {
          exchange.consumed = true;
          this.#watch(exchange);
          controller.close();
        }
      },
    }, { highWaterMark: 0 });
  }

  // A chunked body, decoded; its trailers are read and dropped.
  #chunkedBody(
    info: HeadInfo,
    exchange: Exchange,
  ): ReadableStream<Uint8Array> {
    let asked = !info.expectContinue || this.#end > this.#start;
    let left = 0;
    let ended = false;
    // A CRLF-terminated line from the buffer, at most `max` bytes long.
    const line = async (max: number): Promise<string> => {
      let from = this.#start;
      while (true) {
        const at = this.#buffer.indexOf(10, from);
        if (at !== -1 && at < this.#end) {
          if (at === this.#start || this.#buffer[at - 1] !== 13) {
            throw new FramingError(
              "a line of the chunked body ends with a bare LF",
            );
          }
          const text = latin1(this.#buffer.subarray(this.#start, at - 1));
          this.#start = at + 1;
          return text;
        }
        from = this.#end;
        if (this.#end - this.#start > max + 2) {
          throw new FramingError("a line of the chunked body is too long");
        }
        const start = this.#start;
        if (!await this.#fill()) {
          throw new FramingError("the chunked body ended early");
        }
        from -= start - this.#start;
      }
    };
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          if (!asked) {
            asked = true;
            await this.#writeAll(CONTINUE);
          }
          while (left === 0 && !ended) {
            const size = await line(MAX_CHUNK_LINE);
            const match = CHUNK_SIZE_LINE.exec(size);
            if (match === null) {
              throw new FramingError(
                "a chunk-size line is not a hexadecimal size with well-formed extensions",
              );
            }
            left = parseInt(match[1], 16);
            if (left === 0) {
              // Trailers: read up to the empty line, within the head limit.
              let seen = 0;
              while (true) {
                const trailer = await line(this.#server.maxHeaderBytes);
                seen += trailer.length + 2;
                if (seen > this.#server.maxHeaderBytes) {
                  throw new FramingError("the trailers are too large");
                }
                if (trailer === "") break;
                if (!TRAILER_LINE.test(trailer)) {
                  throw new FramingError(
                    "a trailer line is not a field (a name, a colon, a value)",
                  );
                }
              }
              ended = true;
              exchange.consumed = true;
              this.#watch(exchange);
              controller.close();
              return;
            }
          }
          if (this.#end === this.#start && !await this.#fill()) {
            throw new FramingError("the chunked body ended early");
          }
          const take = Math.min(left, this.#end - this.#start, BODY_CHUNK);
          controller.enqueue(
            this.#buffer.slice(this.#start, this.#start + take),
          );
          this.#start += take;
          left -= take;
          if (left === 0) {
            // The CRLF after the chunk's data.
            if (await line(0) !== "") {
              throw new FramingError("a chunk is longer than its size says");
            }
          }
        } catch (error) {
          controller.error(error);
        }
      },
    }, { highWaterMark: 0 });
  }
}

function hostOf(addr: Deno.NetAddr): string {
  return addr.hostname.includes(":")
    ? `[${addr.hostname}]:${addr.port}`
    : `${addr.hostname}:${addr.port}`;
}
