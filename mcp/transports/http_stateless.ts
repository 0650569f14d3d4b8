/**
 * Streamable HTTP for the stateless era (MCP 2026-07-28): each POST
 * carries one request, served on its own through a throwaway connection
 * over a {@linkcode StatelessTransport}, with no `Mcp-Session-Id` asked
 * for or issued. The answer is JSON when it is all there is, or an SSE
 * stream scoped to the request as soon as a notification of the request
 * (progress, a log record, what a `subscriptions/listen` delivers) comes
 * first. Closing that stream cancels the request.
 *
 * Before a request is served, its mirrored headers (`MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name`, and the `Mcp-Param-*` headers a tool's
 * `x-mcp-header` annotations call for) are checked against its body
 * ({@linkcode headerMismatch}); error answers get the HTTP status the
 * revision gives their code ({@linkcode statusOfAnswer}).
 *
 * @module
 */

import {
  encodeNotification,
  ErrorCode,
  idKey,
  isObject,
  type JsonObject,
  type RequestId,
  type RequestMessage,
} from "../jsonrpc.ts";
import type { ToolRegistry } from "../tool.ts";
import type { InputEnd, Receiver, Transport } from "../transport.ts";
import { KeptBudget } from "./kept_budget.ts";
import { encodeJsonEvent, EventSink, KEEP_ALIVE_COMMENT } from "./sse.ts";

/** The `_meta` key naming a stateless request's protocol version. */
const VERSION_META = "io.modelcontextprotocol/protocolVersion";

/** Codes 2026-07-28 answers with HTTP 400 Bad Request. */
const BAD_REQUEST_CODES: ReadonlySet<number> = new Set([
  ErrorCode.InvalidParams,
  ErrorCode.HeaderMismatch,
  ErrorCode.MissingRequiredClientCapability,
  ErrorCode.UnsupportedProtocolVersion,
]);

/**
 * The HTTP status of an encoded answer: 400 for invalid params, a header
 * mismatch, a missing client capability or an unsupported version; 404
 * for a method the server does not have; 200 otherwise (results, and
 * errors that are not the request's fault).
 */
export function statusOfAnswer(line: string): number {
  const code = errorCodeOf(line);
  if (code === undefined) return 200;
  if (code === ErrorCode.MethodNotFound) return 404;
  return BAD_REQUEST_CODES.has(code) ? 400 : 200;
}

const ERROR_AFTER_ID = ',"error":{"code":';

// The error code of an encoded answer, read from the prefix every answer
// the server encodes has (`{"jsonrpc":"2.0","id":ID,"error":{"code":N,`)
// rather than by parsing it again; undefined for a result. The id is a
// number, null or a string, whose escaped quotes the scan steps over.
function errorCodeOf(line: string): number | undefined {
  const prefix = '{"jsonrpc":"2.0","id":';
  if (!line.startsWith(prefix)) return undefined;
  let at = prefix.length;
  if (line.charCodeAt(at) === 34 /* " */) {
    for (at++; at < line.length; at++) {
      const c = line.charCodeAt(at);
      if (c === 92 /* backslash */) at++;
      else if (c === 34) break;
    }
    at++;
  } else {
    at = line.indexOf(",", at);
    if (at < 0) return undefined;
  }
  if (!line.startsWith(ERROR_AFTER_ID, at)) return undefined;
  const start = at + ERROR_AFTER_ID.length;
  const end = line.indexOf(",", start);
  const code = Number(line.slice(start, end < 0 ? undefined : end));
  return Number.isInteger(code) ? code : undefined;
}

const SENTINEL_PREFIX = "=?base64?";
const SENTINEL_SUFFIX = "?=";
const BASE64 =
  /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The value a mirrored header (`Mcp-Name`, `Mcp-Param-*`) stands for: as
 * it is, or decoded from the `=?base64?…?=` form. Undefined when the
 * encoded form is not valid Base64 of UTF-8, or the plain value holds
 * characters a header may not.
 */
export function decodeHeaderValue(value: string): string | undefined {
  if (
    value.length >= SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length &&
    value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX)
  ) {
    const encoded = value.slice(
      SENTINEL_PREFIX.length,
      -SENTINEL_SUFFIX.length,
    );
    if (!BASE64.test(encoded)) return undefined;
    try {
      const bytes = Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0));
      return utf8.decode(bytes);
    } catch {
      return undefined;
    }
  }
  // Visible ASCII, space and tab only (RFC 9110 field values).
  return /^[\x20-\x7e\t]*$/.test(value) ? value : undefined;
}

/** Where a tool's `x-mcp-header` annotations are: header name → property path. */
export function annotatedHeaders(schema: unknown): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const walk = (node: unknown, path: string[]) => {
    if (!isObject(node) || !isObject(node.properties)) return;
    for (const [name, property] of Object.entries(node.properties)) {
      if (!isObject(property)) continue;
      const header = property["x-mcp-header"];
      if (typeof header === "string" && header !== "") {
        found.set(`mcp-param-${header.toLowerCase()}`, [...path, name]);
      }
      walk(property, [...path, name]);
    }
  };
  walk(schema, []);
  return found;
}

// Whether header text `header` (decoded) stands for body value `value`.
function sameValue(header: string, value: unknown): boolean {
  if (typeof value === "string") return header === value;
  if (typeof value === "number") {
    return header.trim() !== "" && Number(header) === value;
  }
  if (typeof value === "boolean") return header === String(value);
  return false;
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (!isObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/**
 * What is wrong with the headers of stateless request `message`, as the
 * message of a -32020 error, or undefined when they agree with its body:
 * `MCP-Protocol-Version` must be there and equal the `_meta` version,
 * `Mcp-Method` must equal the method, `Mcp-Name` the params field
 * `nameKey` (the method's registry row names it: a name, URI or task id),
 * and each `Mcp-Param-*` header the tool (found in `tools`) annotates must
 * equal its argument.
 */
export function headerMismatch(
  headers: Headers,
  message: RequestMessage,
  tools?: ToolRegistry,
  nameKey?: string,
): string | undefined {
  const params = message.params ?? {};
  const version = headers.get("mcp-protocol-version");
  const meta = isObject(params._meta) ? params._meta : {};
  const bodyVersion = meta[VERSION_META];
  if (version === null) {
    return `Header mismatch: the MCP-Protocol-Version header is missing; send it with the version the body's _meta names${
      typeof bodyVersion === "string" ? ` (${bodyVersion})` : ""
    }.`;
  }
  if (typeof bodyVersion === "string" && version !== bodyVersion) {
    return `Header mismatch: MCP-Protocol-Version header value '${version}' does not match body value '${bodyVersion}' (_meta "${VERSION_META}"); send the same version in both.`;
  }
  const method = headers.get("mcp-method");
  if (method === null) {
    return `Header mismatch: the Mcp-Method header is missing; send the request's method (${message.method}) in it.`;
  }
  if (method !== message.method) {
    return `Header mismatch: Mcp-Method header value '${method}' does not match body value '${message.method}'; send the request's method in it.`;
  }
  if (nameKey !== undefined && typeof params[nameKey] === "string") {
    const body = params[nameKey] as string;
    const raw = headers.get("mcp-name");
    if (raw === null) {
      return `Header mismatch: the Mcp-Name header is missing; a ${message.method} request sends its ${nameKey} in it.`;
    }
    const name = decodeHeaderValue(raw);
    if (name === undefined) {
      return `Header mismatch: the Mcp-Name header value is not valid (characters a header may not carry, or broken =?base64?…?= encoding); send the ${nameKey}, Base64-encoded in =?base64?…?= when it is not plain ASCII.`;
    }
    if (name !== body) {
      return `Header mismatch: Mcp-Name header value '${raw}' does not match body value '${body}'; send the request's ${nameKey} in it.`;
    }
  }
  if (message.method === "tools/call" && typeof params.name === "string") {
    const tool = tools?.get(params.name);
    if (tool === undefined) return undefined;
    for (const [header, path] of annotatedHeaders(tool.inputSchema)) {
      const value = valueAt(params.arguments, path);
      const raw = headers.get(header);
      const shown = `Mcp-Param-${header.slice("mcp-param-".length)}`;
      if (value === undefined || value === null) {
        if (raw === null) continue;
        return `Header mismatch: ${shown} is sent but argument "${
          path.join(".")
        }" is not in the body; send the header only with the argument.`;
      }
      if (raw === null) {
        return `Header mismatch: the ${shown} header is missing; tool "${params.name}" mirrors argument "${
          path.join(".")
        }" into it (x-mcp-header).`;
      }
      const decoded = decodeHeaderValue(raw);
      if (decoded === undefined) {
        return `Header mismatch: the ${shown} header value is not valid (characters a header may not carry, or broken =?base64?…?= encoding); encode it as =?base64?…?= when it is not plain ASCII.`;
      }
      if (!sameValue(decoded, value)) {
        return `Header mismatch: ${shown} header value '${raw}' does not match body value ${
          JSON.stringify(value)
        } of argument "${path.join(".")}"; send the argument's value in it.`;
      }
    }
  }
  return undefined;
}

/** How a stateless request's answer may be written. */
export type StatelessReplyMode = "json" | "sse" | "auto";

const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  // Reverse proxies (nginx) pass events on at once.
  "x-accel-buffering": "no",
};

const encoder = new TextEncoder();

/** An SSE comment: clients ignore it, proxies see the stream alive. */
const KEEP_ALIVE = encoder.encode(KEEP_ALIVE_COMMENT);

/**
 * The transport of one stateless POST: it delivers the one request to the
 * connection, and turns what the connection sends back into the POST's
 * response ({@linkcode StatelessTransport.response}). Closing the response
 * (or the client going away, `signal`) cancels the request; the input ends
 * once the request is answered or cancelled.
 */
export class StatelessTransport implements Transport {
  /** The response to the POST, once there is one. */
  readonly response: Promise<Response>;
  readonly #message: RequestMessage;
  readonly #id: RequestId;
  readonly #key: string;
  readonly #mode: StatelessReplyMode;
  readonly #reply = Promise.withResolvers<Response>();
  readonly #ended = Promise.withResolvers<InputEnd>();
  #receiver: Receiver | undefined;
  #sink: EventSink | undefined;
  readonly #budget: KeptBudget | undefined;
  #replied = false;
  #answered = false;
  #cancelled = false;
  #progress = 0;
  readonly #keepAliveMs: number;
  #keepAlive: ReturnType<typeof setInterval> | undefined;
  #quiet = true;

  /**
   * A transport for request `message` (decoded by the caller); a stream it opens
   * carries an SSE comment every `keepAliveMs` while nothing else comes,
   * and what is queued on it for the client is charged to `budget`.
   */
  constructor(
    message: RequestMessage,
    mode: StatelessReplyMode,
    keepAliveMs = 15_000,
    budget?: KeptBudget,
  ) {
    this.#budget = budget;
    this.#message = message;
    this.#id = message.id;
    this.#key = idKey(message.id);
    this.#mode = mode;
    this.#keepAliveMs = keepAliveMs;
    this.response = this.#reply.promise;
  }

  /** Nothing is queued: writes are immediate. */
  get backlog(): number {
    return 0;
  }

  /** Messages written so far. */
  get progress(): number {
    return this.#progress;
  }

  /** Whether the output is gone (answered, or the client went away). */
  get broken(): boolean {
    return this.#answered || this.#cancelled;
  }

  /** Deliver the request, then wait until it is answered or cancelled. */
  async start(receiver: Receiver): Promise<InputEnd> {
    this.#receiver = receiver;
    await Promise.resolve();
    if (!this.broken) receiver.accept(this.#message);
    return await this.#ended.promise;
  }

  /** The input ends: a request still running (a listen) winds up. */
  stop(): void {
    this.#ended.resolve("stopped");
  }

  /** Write the answer (ending the response), or a message of the request. */
  send(text: string, answers?: RequestId): void {
    if (this.broken) return;
    this.#progress++;
    if (answers !== undefined) {
      if (idKey(answers) !== this.#key) return;
      this.#answered = true;
      if (this.#sink !== undefined || this.#mode === "sse") {
        this.#event(text);
        this.#closeSink();
      } else {
        this.#respond(
          new Response(text, {
            status: statusOfAnswer(text),
            headers: { "content-type": "application/json" },
          }),
        );
      }
      this.stop();
      return;
    }
    // A notification of the request: it needs a stream.
    if (this.#mode === "json") return;
    this.#event(text);
  }

  /** The request was cancelled: no answer comes, the POST ends. */
  drop(key: string): boolean {
    if (key === this.#key && !this.#answered) {
      this.#answered = true;
      if (this.#sink !== undefined) this.#closeSink();
      else this.#respond(new Response(null, { status: 202 }));
      this.stop();
    }
    return false;
  }

  /** Everything is written at once. */
  flush(): Promise<void> {
    return Promise.resolve();
  }

  /** The connection is over: a response not given yet says so. */
  close(): void {
    this.stop();
    if (!this.#replied) {
      this.#respond(
        new Response(null, { status: 503, headers: { "retry-after": "1" } }),
      );
    }
    this.#closeSink();
  }

  #event(text: string): void {
    if (this.#sink === undefined) {
      const sink = new EventSink(this.#budget ?? new KeptBudget());
      // The client went away, or the budget dropped what it did not take.
      sink.onGone = () => {
        clearInterval(this.#keepAlive);
        this.#sink = undefined;
        this.#cancel();
      };
      this.#sink = sink;
      this.#respond(new Response(sink.body, { headers: SSE_HEADERS }));
      // A comment when a whole period passed without an event.
      this.#keepAlive = setInterval(() => {
        if (this.#quiet) this.#write(KEEP_ALIVE);
        this.#quiet = true;
      }, this.#keepAliveMs);
      Deno.unrefTimer(this.#keepAlive as unknown as number);
    }
    this.#quiet = false;
    this.#write(encoder.encode(encodeJsonEvent(undefined, text)));
  }

  #write(bytes: Uint8Array): void {
    this.#sink?.push(bytes);
  }

  #respond(response: Response): void {
    if (this.#replied) return;
    this.#replied = true;
    this.#reply.resolve(response);
  }

  #closeSink(): void {
    clearInterval(this.#keepAlive);
    const sink = this.#sink;
    this.#sink = undefined;
    sink?.close();
  }

  // The client closed the response: the request is cancelled, as the
  // revision says; nothing more is sent for it.
  #cancel(): void {
    if (this.#answered || this.#cancelled) return;
    this.#receiver?.receive(
      encodeNotification("notifications/cancelled", {
        requestId: this.#id,
        reason: "the client closed the response stream",
      } as JsonObject),
    );
    this.#cancelled = true;
    this.#respond(new Response(null, { status: 202 }));
    this.stop();
  }
}
