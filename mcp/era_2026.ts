/**
 * The stateless era of MCP (2026-07-28), served beside the handshake era
 * by the same server: a request whose `_meta` names its protocol version
 * (or any `server/discover`) is served here, on its own, with no
 * `initialize` before it. A server configured with such a version loads
 * this module on the first such request; see `McpServer.modernVersions`.
 *
 * Each request gets a {@linkcode RequestSession} made from its `_meta`
 * (version, client capabilities and identity, log level) and sharing the
 * connection's output and cancellation; the handler runs as in the
 * handshake era, and its answer is then shaped the way the revision wants
 * it: `resultType` on every result, the server's identity in `_meta`,
 * caching hints on lists and reads, and the revision's error codes.
 * Requests to the client become `input_required` results (see `mrtr.ts`).
 *
 * @module
 */

import {
  type Answer,
  describeError,
  encodeError,
  encodeResult,
  ErrorCode,
  idKey,
  invalidParams,
  isObject,
  type JsonObject,
  type RequestId,
  type RequestMessage,
  RpcError,
} from "./jsonrpc.ts";
import { isLoggingLevel } from "./logging.ts";
import { nextTurn } from "./turns.ts";
import { type CacheHint, existsIn, type MethodFacts } from "./methods.ts";
import {
  gatheredResponses,
  InputCollector,
  InputRequiredError,
  openRequestState,
  type RequestState,
  sealRequestState,
} from "./mrtr.ts";
import {
  CLIENT_CAPABILITY_OF,
  type ClientInfo,
  type ClientRequestOptions,
  Session,
} from "./session.ts";

/**
 * What the stateless era needs of the server (an `McpServer`; named
 * structurally so that this module, which the server loads, does not
 * import it back).
 */
export interface ModernServer {
  /** The stateless versions the server speaks, most preferred first. */
  readonly modernVersions: readonly string[];
  /** The versions `initialize` negotiates. */
  readonly protocolVersions: readonly string[];
  /** Who the server is (`serverInfo`). */
  readonly info: object;
  /** The registry row of `method`, if the server has one. */
  method(method: string): MethodFacts | undefined;
  /** Run the handler of one request with `session`; see `McpServer`. */
  handleRequest(
    id: RequestMessage["id"],
    method: string,
    params: JsonObject | undefined,
    session: Session,
  ): Answer | Promise<Answer | undefined>;
  /** The line of `answer`; see `McpServer.encodeAnswer`. */
  encodeAnswer(
    id: RequestMessage["id"],
    method: string,
    answer: Answer,
    session: Session,
  ): string;
}

/** The `_meta` keys of the stateless era. */
export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

/**
 * Error codes MCP 2026-07-28 defines (its reserved range starts at -32020):
 * aliases of {@linkcode ErrorCode}'s.
 */
export const ModernErrorCode = {
  /** HTTP headers and body disagree (Streamable HTTP). */
  HeaderMismatch: ErrorCode.HeaderMismatch,
  /** The request needs a client capability its `_meta` did not declare. */
  MissingRequiredClientCapability: ErrorCode.MissingRequiredClientCapability,
  /** The request's protocol version is not one the server speaks. */
  UnsupportedProtocolVersion: ErrorCode.UnsupportedProtocolVersion,
} as const;

export type { CacheHint };

/**
 * The session of one stateless request: its version, client capabilities,
 * identity and log level come from the request's `_meta`; what it sends
 * goes out on the connection's session (`base`), which also tracks it for
 * cancellation. It never sends the client a request: what a handler asks
 * the client is answered from the request's `inputResponses`, or gathered
 * into an `input_required` result.
 */
export class RequestSession extends Session {
  /** The connection's session. */
  readonly base: Session;
  /** The request's key (see `idKey`). */
  readonly requestKey: string;
  /** The request's id: what it sends goes on that request's stream. */
  readonly requestId: RequestMessage["id"] | undefined;
  /** Where requests to the client are answered from; undefined: none may be made. */
  inputs: InputCollector | undefined;
  /** The connection's requests in flight: a cancellation finds this one there. */
  declare readonly inFlight: Session["inFlight"];

  /**
   * A session for request `requestKey` on `base`; `requestId`, that
   * request's id, relates what it sends to it.
   */
  constructor(base: Session, requestKey: string, requestId?: RequestId) {
    super(() => {});
    this.base = base;
    this.requestKey = requestKey;
    this.requestId = requestId;
    this.inFlight = base.inFlight;
    this.state = "ready";
  }

  /**
   * Send on the connection's session, related to this request (a
   * transport with a stream per request sends it on this one's).
   */
  override notify(
    method: string,
    params?: JsonObject,
    related?: RequestId,
  ): void {
    if (this.state === "closed") return;
    this.base.notify(method, params, related ?? this.requestId);
  }

  /**
   * Answer a request to the client from the request's input responses;
   * without one, the request is recorded as needed and this rejects with
   * an {@linkcode InputRequiredError}.
   */
  override request(
    method: string,
    params?: JsonObject,
    options?: ClientRequestOptions,
  ): Promise<unknown> {
    const capability = CLIENT_CAPABILITY_OF[method];
    if (capability !== undefined && !this.declares(capability)) {
      return Promise.reject(
        new RpcError(
          ModernErrorCode.MissingRequiredClientCapability,
          `Missing required client capability: this request needs the client's "${capability}" capability, which its _meta did not declare; declare it in "${META.clientCapabilities}" or call without it.`,
          { requiredCapabilities: { [capability]: {} } },
        ),
      );
    }
    const inputs = this.inputs;
    if (inputs === undefined) {
      return Promise.reject(
        new RpcError(
          ErrorCode.InternalError,
          `this request cannot ask the client for ${method}: only tools/call, prompts/get and resources/read may (a bug in the server).`,
        ),
      );
    }
    const answer = inputs.take(method, params, options?.inputKey);
    if (answer !== undefined) return Promise.resolve(answer);
    return Promise.reject(new InputRequiredError(method));
  }

  /** The connection's input end. */
  override onInputEnd(listener: () => void): void {
    this.base.onInputEnd(listener);
  }

  /**
   * Keep this request open without holding later answers back or taking a
   * slot of the connection: a long-lived request (`subscriptions/listen`)
   * calls it once.
   */
  holdOpen(): void {
    this.base.onWaitingForClient?.(this.requestKey);
  }
}

/**
 * The session `meta` describes for request `key` on `base`; throws the
 * error the request is answered with when `meta` is not a valid
 * 2026-07-28 `_meta` or names a version `server` does not speak.
 */
export function sessionOf(
  server: ModernServer,
  base: Session,
  key: string,
  meta: unknown,
  id?: RequestId,
): RequestSession {
  const needs = `"${META.protocolVersion}" (such as "${
    server.modernVersions[0]
  }") and "${META.clientCapabilities}" (an object)`;
  if (!isObject(meta)) {
    throw invalidParams(
      `a stateless request needs "_meta" in its params, with ${needs}.`,
    );
  }
  const version = meta[META.protocolVersion];
  if (typeof version !== "string") {
    throw invalidParams(`"_meta" needs ${needs}.`);
  }
  const capabilities = meta[META.clientCapabilities];
  if (!isObject(capabilities)) throw invalidParams(`"_meta" needs ${needs}.`);
  if (!server.modernVersions.includes(version)) {
    const supported = [...server.modernVersions, ...server.protocolVersions];
    throw new RpcError(
      ModernErrorCode.UnsupportedProtocolVersion,
      `Unsupported protocol version: this server does not speak MCP ${version}; use one of ${
        supported.join(", ")
      }.`,
      { supported, requested: version },
    );
  }
  const level = meta[META.logLevel];
  if (level !== undefined && !isLoggingLevel(level)) {
    throw invalidParams(
      `"${META.logLevel}" must be a log level such as "info" or "debug", not ${
        JSON.stringify(level)
      }.`,
    );
  }
  const info = meta[META.clientInfo];
  const session = new RequestSession(base, key, id);
  session.protocolVersion = version;
  session.clientCapabilities = capabilities;
  session.clientInfo = isObject(info) ? info as ClientInfo : undefined;
  session.logLevel = level;
  return session;
}

function encodeRpcError(message: RequestMessage, error: RpcError): string {
  return encodeError(message.id, error.code, error.message, error.data);
}

/**
 * Serve one stateless request on the connection's session `base`: check
 * its `_meta`, run its handler in a {@linkcode RequestSession}, and shape
 * the answer for 2026-07-28. Resolves to nothing when the request was
 * cancelled.
 */
export async function dispatchModern(
  server: ModernServer,
  message: RequestMessage,
  base: Session,
): Promise<string | undefined> {
  const { id, method } = message;
  const params = message.params;
  const key = idKey(id);
  let session: RequestSession;
  let state: RequestState | undefined;
  let facts: MethodFacts | undefined;
  try {
    session = sessionOf(server, base, key, params?._meta, id);
    facts = server.method(method);
    const version = session.protocolVersion as string;
    if (facts !== undefined && !existsIn(facts, version)) {
      throw new RpcError(
        ErrorCode.MethodNotFound,
        describeError(
          ErrorCode.MethodNotFound,
          `"${method}" is not part of MCP ${version}, which this request's _meta names${
            facts.instead === undefined ? "" : `; ${facts.instead}`
          }.`,
        ),
      );
    }
    if (facts?.asksInput === true) {
      if (params?.requestState !== undefined) {
        state = await openRequestState(params.requestState, method, params);
      }
      session.inputs = new InputCollector(
        gatheredResponses(state, params?.inputResponses),
      );
    }
  } catch (error) {
    if (error instanceof RpcError) return encodeRpcError(message, error);
    throw error;
  }
  const handled = server.handleRequest(id, method, params, session);
  const inputs = session.inputs;
  let answer: Answer | undefined;
  if (inputs === undefined) answer = await handled;
  else {
    const first = await Promise.race([
      Promise.resolve(handled).then((answer) => ({ answer })),
      inputs.firstNeed.then(() => undefined),
    ]);
    if (inputs.needed.size > 0 || first === undefined) {
      // The handler's own answer (if it ever comes) is dropped with it.
      session.inFlight.get(key)?.abort(
        new InputRequiredError([...inputs.needed.keys()].join(", ")),
      );
      // The rest of the event loop's turn: requests to the client made
      // together (Promise.all) are all recorded by then.
      await nextTurn();
      return await inputRequired(message, inputs);
    }
    answer = first.answer;
  }
  if (answer === undefined) return undefined;
  return server.encodeAnswer(
    id,
    method,
    shape(server, method, answer, facts?.cacheHint),
    session,
  );
}

/** The `input_required` answer to `message`, asking for what `inputs` need. */
async function inputRequired(
  message: RequestMessage,
  inputs: InputCollector,
): Promise<string> {
  const inputRequests: JsonObject = {};
  for (const [key, request] of inputs.needed) {
    inputRequests[key] = request as unknown as JsonObject;
  }
  const requestState = await sealRequestState(message.method, message.params, {
    responses: inputs.responses,
    asked: [...inputs.needed.keys()],
  });
  // Not cacheable: no caching hints (and no identity, which the final
  // result carries).
  return encodeResult(message.id, {
    resultType: "input_required",
    inputRequests,
    requestState,
  });
}

/**
 * The 2026-07-28 form of `answer` to `method`: a result (a JSON object)
 * gets `resultType` (unless it has one), the caching hint of its method
 * (by default its registry row's, see {@linkcode ModernServer.method}),
 * and the server's identity in `_meta`; a resource-not-found error
 * (-32002) becomes -32602. Anything else is answered as it is (a result
 * that is no object is refused where it is encoded).
 */
export function shape(
  server: ModernServer,
  method: string,
  answer: Answer,
  hint: CacheHint | undefined = server.method(method)?.cacheHint,
): Answer {
  if ("error" in answer) {
    const { code, message, data } = answer.error;
    if (code !== ErrorCode.ResourceNotFound) return answer;
    return { error: new RpcError(ErrorCode.InvalidParams, message, data) };
  }
  const result = answer.result;
  if (!isObject(result) || result.resultType === "input_required") {
    return answer;
  }
  const shaped: JsonObject = { resultType: "complete", ...result };
  if (hint !== undefined) {
    shaped.ttlMs = hint.ttlMs;
    shaped.cacheScope = hint.cacheScope;
  }
  const meta = isObject(result._meta) ? result._meta : {};
  shaped._meta = { ...meta, [META.serverInfo]: server.info };
  return { result: shaped };
}
