/**
 * JSON-RPC 2.0 messages: decoding one line into a classified message, and
 * encoding responses, notifications and requests as compact JSON in the key
 * order the MCP wire uses (`jsonrpc`, `id`, then `result` | `error`).
 *
 * Request ids are echoed exactly as the client wrote them: integers past
 * 2^53 keep every digit and strings keep their escapes, because the id is
 * carried as the source text (`JSON.rawJSON`) whenever re-serialising the
 * parsed value could change its bytes.
 *
 * @module
 */

/** A JSON object, as far as this module needs to know. */
export type JsonObject = { [key: string]: unknown };

/** An opaque JSON value that serialises to its source text verbatim. */
export interface RawJson {
  /** The JSON text written in place of this value. */
  readonly rawJSON: string;
}

/**
 * `JSON.rawJSON`, which TypeScript's lib does not declare yet. A local
 * handle rather than a global augmentation keeps the module's types
 * self-contained (no-slow-types).
 */
const rawJSON = (JSON as unknown as { rawJSON(text: string): RawJson })
  .rawJSON;

/** A request id: a string, a safe integer, or the exact source text of one. */
export type RequestId = string | number | RawJson;

/**
 * Every JSON-RPC 2.0 and MCP error code this library answers with: the one
 * place a code is defined (other modules' named codes are aliases of
 * these).
 */
export const ErrorCode = {
  /** JSON-RPC: the line is not JSON. */
  ParseError: -32700,
  /** JSON-RPC: JSON, but not a valid request. */
  InvalidRequest: -32600,
  /** JSON-RPC: no such method (or not in the request's protocol version). */
  MethodNotFound: -32601,
  /** JSON-RPC: the params are wrong. */
  InvalidParams: -32602,
  /** JSON-RPC: the server failed (a bug; its log has the details). */
  InternalError: -32603,
  /**
   * Implementation-defined server error: the connection has too many
   * requests unanswered ("Server busy"), or an HTTP-level refusal.
   */
  ServerError: -32000,
  /**
   * A request to the client got no answer in time; over HTTP, also an
   * unknown or expired `Mcp-Session-Id`.
   */
  RequestTimeout: -32001,
  /** MCP: the resource named by a URI does not exist (or may not be read). */
  ResourceNotFound: -32002,
  /** MCP 2026-07-28: HTTP headers and body disagree (Streamable HTTP). */
  HeaderMismatch: -32020,
  /** MCP 2026-07-28: the request needs a client capability it did not declare. */
  MissingRequiredClientCapability: -32021,
  /** MCP 2026-07-28: the request's protocol version is not one the server speaks. */
  UnsupportedProtocolVersion: -32022,
} as const;

const STANDARD_MESSAGES: Record<number, string> = {
  [-32700]: "Parse error",
  [-32600]: "Invalid Request",
  [-32601]: "Method not found",
  [-32602]: "Invalid params",
  [-32603]: "Internal error",
};

/**
 * The standard message of a JSON-RPC error code followed by `detail`, as
 * in `Invalid params: "uri" must be a string`. Clients show an error's
 * `message` and drop its `data`, so the message has to say what was wrong
 * on its own; `data` only adds structure for programs.
 *
 * @example
 * ```ts
 * import { describeError, ErrorCode } from "./jsonrpc.ts";
 * describeError(ErrorCode.MethodNotFound, 'this server has no method "x".');
 * // 'Method not found: this server has no method "x".'
 * ```
 */
export function describeError(code: number, detail: string): string {
  const standard = STANDARD_MESSAGES[code];
  return standard === undefined ? detail : `${standard}: ${detail}`;
}

/**
 * An error a handler throws to answer with a JSON-RPC error object.
 *
 * `message` is what the client shows: it must say on its own what was
 * wrong and what to do (see {@linkcode describeError}). `data` may add
 * structured detail for programs.
 */
export class RpcError extends Error {
  /** The JSON-RPC error code. */
  readonly code: number;
  /** Extra detail for the client; omitted from the wire when undefined. */
  readonly data: unknown;

  /** Make an error with the code's standard message unless one is given. */
  constructor(code: number, message?: string, data?: unknown) {
    super(message ?? STANDARD_MESSAGES[code] ?? "Server error");
    this.name = "RpcError";
    this.code = code;
    this.data = data;
  }
}

/**
 * What a request came to, before it is encoded: its handler's result, or
 * the error it is answered with.
 */
export type Answer = { result: unknown } | { error: RpcError };

/**
 * The -32602 Invalid params error whose message is the standard text
 * followed by `detail` (what was wrong and what to send instead).
 */
export function invalidParams(detail: string, data?: unknown): RpcError {
  return new RpcError(
    ErrorCode.InvalidParams,
    describeError(ErrorCode.InvalidParams, detail),
    data,
  );
}

/** An incoming request: it must get exactly one response. */
export interface RequestMessage {
  /** Discriminant. */
  readonly kind: "request";
  /** The id to answer with, exactly as sent. */
  readonly id: RequestId;
  /** The method called. */
  readonly method: string;
  /** The params object, when sent. */
  readonly params: JsonObject | undefined;
}

/** An incoming notification: it never gets a response. */
export interface NotificationMessage {
  /** Discriminant. */
  readonly kind: "notification";
  /** The method notified. */
  readonly method: string;
  /** The params object, when sent. */
  readonly params: JsonObject | undefined;
}

/** An incoming response to a request the server sent. */
export interface ResponseMessage {
  /** Discriminant. */
  readonly kind: "response";
  /** The id of the request it answers (null when the client had none). */
  readonly id: RequestId | null;
  /** The result, on success. */
  readonly result?: unknown;
  /** The error, on failure. */
  readonly error?: { code: number; message: string; data?: unknown };
}

/** A line that is not an acceptable message; answered with `error`. */
export interface InvalidMessage {
  /** Discriminant. */
  readonly kind: "invalid";
  /** The id to answer with: the request's when valid, else null. */
  readonly id: RequestId | null;
  /** The error to answer with. */
  readonly error: RpcError;
}

/** A message that gets no answer and is not acted on (a malformed notification). */
export interface DroppedMessage {
  /** Discriminant. */
  readonly kind: "dropped";
  /** Why, for the log. */
  readonly reason: string;
}

/** What one line decodes to. */
export type IncomingMessage =
  | RequestMessage
  | NotificationMessage
  | ResponseMessage
  | InvalidMessage
  | DroppedMessage;

type ReviverContext = { source?: string };

/** Parse `text` keeping the source text of the top-level `id`. */
function parseWithIdSource(
  text: string,
): { value: unknown; idSource?: string } {
  const sources = new Map<unknown, string>();
  const value = JSON.parse(
    text,
    function (
      this: unknown,
      key: string,
      v: unknown,
      context?: ReviverContext,
    ) {
      if (key === "id" && context?.source !== undefined) {
        sources.set(this, context.source);
      }
      return v;
    } as (key: string, value: unknown) => unknown,
  );
  return { value, idSource: sources.get(value) };
}

function isJsonSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

/** The index just past the string literal that starts at `at`. */
function skipString(text: string, at: number): number {
  let i = at + 1;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === 92 /* \\ */) i += 2;
    else if (code === 34 /* " */) return i + 1;
    else i++;
  }
  return i;
}

/**
 * The source text of the top-level object's `id` when it is a primitive
 * (the last one, as `JSON.parse` keeps the last of duplicate keys), found
 * by a flat scan of valid JSON.
 */
function scanIdSource(text: string): string | undefined {
  let depth = 0;
  let found: string | undefined;
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code !== 34) {
      if (code === 123 || code === 91) depth++;
      else if (code === 125 || code === 93) depth--;
      i++;
      continue;
    }
    const start = i;
    i = skipString(text, i);
    if (depth !== 1) continue;
    let j = i;
    while (isJsonSpace(text.charCodeAt(j))) j++;
    if (text.charCodeAt(j) !== 58 /* : */) continue;
    if (JSON.parse(text.slice(start, i)) !== "id") continue;
    j++;
    while (isJsonSpace(text.charCodeAt(j))) j++;
    const first = text.charCodeAt(j);
    if (first === 34) {
      i = skipString(text, j);
      found = text.slice(j, i);
    } else if (first !== 123 && first !== 91) {
      i = j;
      while (
        i < text.length && !isJsonSpace(text.charCodeAt(i)) &&
        text[i] !== "," && text[i] !== "}"
      ) i++;
      found = text.slice(j, i);
    } else {
      found = undefined;
    }
  }
  return found;
}

const INTEGER_LITERAL = /^-?(?:0|[1-9][0-9]*)$/;

/**
 * Whether position `at` of `line` lies directly in the outermost object and
 * outside every string, so that a `"id"` there is the message's own key.
 * Scans only the text before `at`, which for the usual message is short.
 */
function atTopLevel(line: string, at: number): boolean {
  let depth = 0;
  for (let i = 0; i < at; i++) {
    const c = line.charCodeAt(i);
    if (c === 34 /* " */) {
      for (i++; i < at; i++) {
        const d = line.charCodeAt(i);
        if (d === 92 /* \ */) i++;
        else if (d === 34) break;
      }
      if (i >= at) return false;
    } else if (c === 123 /* { */ || c === 91 /* [ */) depth++;
    else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return depth === 1;
}

const COMMON_START = '{"jsonrpc":"2.0","id":';

function idWrittenCanonically(line: string, id: number): boolean {
  let i: number;
  // (Comparing a slice is several times faster than startsWith here.)
  if (line.slice(0, COMMON_START.length) === COMMON_START) {
    // Most clients write these two members first: the id is top-level by
    // construction, and nothing needs searching.
    i = COMMON_START.length;
  } else {
    const at = line.indexOf('"id"');
    if (at < 0 || !atTopLevel(line, at)) return false;
    i = at + 4;
    while (line.charCodeAt(i) === 32) i++;
    if (line.charCodeAt(i) !== 58 /* : */) return false;
    i++;
    while (line.charCodeAt(i) === 32) i++;
  }
  // Read the literal's digits rather than compare with String(id): this
  // runs for every request, and formatting a number costs more.
  const negative = line.charCodeAt(i) === 45; /* - */
  if (negative) i++;
  const first = i;
  let value = 0;
  let next = line.charCodeAt(i);
  while (next >= 48 && next <= 57) {
    value = value * 10 + (next - 48);
    next = line.charCodeAt(++i);
  }
  const digits = i - first;
  // Up to 15 digits the sum is exact; longer ids take the exact path. A
  // leading zero, '.', 'e' or 'E' would make it a different literal.
  if (digits === 0 || digits > 15) return false;
  if (digits > 1 && line.charCodeAt(first) === 48) return false;
  if (next === 46 || next === 101 || next === 69) return false;
  return negative ? value !== 0 && -value === id : value === id;
}

/**
 * Where a number in a line may be spelled other than as its value prints:
 * a digit before a fraction or an exponent, or `-0`. Matches in strings do
 * no harm (the line only takes a slower path). `2.0` followed by a quote,
 * as in every message's `"jsonrpc":"2.0"`, is left out: a number is never
 * directly followed by a quote, so that is always inside a string.
 */
const ODD_NUMBER = /[0-9](?:[eE]|\.(?!0"))|-0(?![0-9])/;

/**
 * Whether a numeric `id` parsed from `line` is exact: a safe integer
 * spelled as it prints. One search of the line settles the usual case (no
 * number in the line spelled oddly, so the id is not either, whichever
 * member it is); a line it cannot settle reads the id's literal.
 */
function numberIdExact(line: string, id: number): boolean {
  return Number.isSafeInteger(id) &&
    (!ODD_NUMBER.test(line) || idWrittenCanonically(line, id));
}

/** Turn a parsed id plus its source text into a RequestId, or null if invalid. */
function toRequestId(
  id: unknown,
  source: string | undefined,
): RequestId | null {
  if (typeof id === "string") {
    return source === undefined ? id : rawJSON(source);
  }
  if (typeof id === "number") {
    if (source === undefined) return Number.isSafeInteger(id) ? id : null;
    if (!INTEGER_LITERAL.test(source)) return null;
    return Number.isSafeInteger(id) && String(id) === source
      ? id
      : rawJSON(source);
  }
  return null;
}

/** Whether `value` is a JSON object (not null, not an array). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Decode one line of the wire into a classified message.
 *
 * Never throws: malformed input becomes an {@linkcode InvalidMessage} carrying
 * the error to send back.
 */
export function decode(line: string): IncomingMessage {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return invalid(
      null,
      ErrorCode.ParseError,
      `the line is not valid JSON (${
        (error as Error).message
      }); send one JSON-RPC message per line.`,
    );
  }
  // Almost every line is a valid request whose id needs no exact
  // treatment: one pass of checks recognises it (this runs for every
  // message). Anything else, valid or not, takes the general path below,
  // which checks each rule in turn to give the right error.
  if (typeof value === "object" && value !== null) {
    const { id, method, params } = value as JsonObject;
    if (
      (value as JsonObject).jsonrpc === "2.0" && typeof method === "string" &&
      (params === undefined || isObject(params)) &&
      (typeof id === "number"
        ? numberIdExact(line, id)
        : typeof id === "string" && !line.includes("\\"))
    ) {
      return {
        kind: "request",
        id: id as string | number,
        method,
        params: params as JsonObject | undefined,
      };
    }
  }
  if (isObject(value) && "id" in value) {
    const id = value.id;
    // The fast path is exact only when no escape or odd spelling can hide in
    // the id's source; otherwise parse again, keeping the id's source text.
    if (
      typeof id === "string" && line.includes("\\") ||
      typeof id === "number" && !idWrittenCanonically(line, id)
    ) {
      let idSource: string | undefined;
      try {
        idSource = parseWithIdSource(line).idSource;
      } catch {
        // The reviver recurses: deep nesting elsewhere in the message can
        // overflow the stack. Find the id's text without recursing.
        idSource = scanIdSource(line);
      }
      return classify(value, idSource);
    }
  }
  return classify(value);
}

/**
 * Classify an already parsed message. `idSource`, when known, is the id's
 * exact source text; without it a numeric id must be a safe integer.
 */
export function classify(value: unknown, idSource?: string): IncomingMessage {
  if (!isObject(value)) {
    return invalid(
      null,
      ErrorCode.InvalidRequest,
      Array.isArray(value)
        ? "batches are not supported (MCP 2025-06-18 removed JSON-RPC batching); send one message per line."
        : "a message must be a JSON object.",
    );
  }
  const hasId = "id" in value;
  const id = hasId ? toRequestId(value.id, idSource) : null;

  if (!("method" in value) && ("result" in value || "error" in value)) {
    return {
      kind: "response",
      id,
      result: value.result,
      error: value.error as ResponseMessage["error"],
    };
  }
  if (value.jsonrpc !== "2.0") {
    return invalid(
      id,
      ErrorCode.InvalidRequest,
      'the "jsonrpc" member must be exactly "2.0".',
    );
  }
  if (typeof value.method !== "string") {
    return invalid(
      id,
      ErrorCode.InvalidRequest,
      '"method" must be a string naming the method to call.',
    );
  }
  if (hasId && id === null) {
    return invalid(
      null,
      ErrorCode.InvalidRequest,
      '"id" must be a string or an integer.',
    );
  }
  const method = value.method;
  const params = value.params;
  if (params !== undefined && !isObject(params)) {
    if (!hasId) {
      return {
        kind: "dropped",
        reason: `notification ${method}: "params" is not an object`,
      };
    }
    return invalid(
      id,
      ErrorCode.InvalidParams,
      '"params" must be an object when present.',
    );
  }
  if (!hasId) return { kind: "notification", method, params };
  return { kind: "request", id: id as RequestId, method, params };
}

function invalid(
  id: RequestId | null,
  code: number,
  detail: string,
): InvalidMessage {
  return {
    kind: "invalid",
    id,
    error: new RpcError(code, describeError(code, detail)),
  };
}

/** A key that identifies a request id within a session (for maps). */
export function idKey(id: RequestId): string {
  if (typeof id === "string") return "s" + id;
  if (typeof id === "number") return "n" + id;
  const value = JSON.parse(id.rawJSON);
  return typeof value === "string" ? "s" + value : "n" + id.rawJSON;
}

/**
 * The empty result (`{}`), as `ping` and other acknowledgements return it.
 * Frozen and shared; {@linkcode encodeResult} writes it without serialising.
 */
export const EMPTY_RESULT: Readonly<Record<string, never>> = Object.freeze({});

/**
 * Encode a success response. Throws a `TypeError` unless `result`
 * serialises to a JSON object (every MCP result is one): `undefined`, a
 * function or a bare value would otherwise make a line that is not valid
 * JSON-RPC (`"result":undefined`), and a cycle or a BigInt throws anyway.
 */
export function encodeResult(id: RequestId, result: unknown): string {
  let json: string | undefined;
  if (result === EMPTY_RESULT) json = "{}";
  else {
    json = JSON.stringify(result) as string | undefined;
    if (typeof json !== "string" || json.charCodeAt(0) !== 123 /* { */) {
      throw new TypeError(
        `A result must be a JSON object, not ${
          json === undefined ? String(result) : json.slice(0, 40)
        }`,
      );
    }
  }
  // A numeric id is a safe integer, so String() writes what JSON would.
  return '{"jsonrpc":"2.0","id":' +
    (typeof id === "number" ? String(id) : JSON.stringify(id)) +
    ',"result":' + json + "}";
}

/** Encode an error response; `data` is written only when defined. */
export function encodeError(
  id: RequestId | null,
  code: number,
  message: string,
  data?: unknown,
): string {
  const error = data === undefined
    ? { code, message }
    : { code, message, data };
  return '{"jsonrpc":"2.0","id":' + JSON.stringify(id) + ',"error":' +
    JSON.stringify(error) + "}";
}

/** Encode a notification; `params` is omitted when undefined. */
export function encodeNotification(method: string, params?: unknown): string {
  return params === undefined
    ? JSON.stringify({ jsonrpc: "2.0", method })
    : JSON.stringify({ jsonrpc: "2.0", method, params });
}

/** Encode a request the server sends to the client. */
export function encodeRequest(
  id: RequestId,
  method: string,
  params?: unknown,
): string {
  return params === undefined
    ? JSON.stringify({ jsonrpc: "2.0", id, method })
    : JSON.stringify({ jsonrpc: "2.0", id, method, params });
}
