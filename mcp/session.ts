/**
 * Per-connection state. A server holds no connection state itself, so one
 * {@linkcode McpServer} can serve many sessions at once.
 *
 * @module
 */

import type { ResourceProvider } from "./resource.ts";
import type {
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  Root,
} from "./client_requests.ts";
import {
  encodeNotification,
  encodeRequest,
  ErrorCode,
  idKey,
  isObject,
  type JsonObject,
  type RequestId,
  type ResponseMessage,
  RpcError,
} from "./jsonrpc.ts";
import { allowsLevel, type LoggingLevel } from "./logging.ts";

/**
 * Where a session's outgoing messages go (one encoded message per call).
 * `related` is the id of the client's request the message belongs to (see
 * `Transport.send`), when it is sent while handling one.
 */
export type SendFn = (line: string, related?: RequestId) => void;

/** The client's identity, as sent in `initialize`. */
export interface ClientInfo {
  /** Client program name. */
  name: string;
  /** Client program version. */
  version: string;
  /** Anything else the client sent (`title`, …). */
  [key: string]: unknown;
}

/** Something in flight that a cancellation can abort. */
export interface Cancellable {
  /** Stop the work; its response, if it still comes, is not sent. */
  abort(reason: unknown): void;
}

/** Lifecycle of a session, per the MCP lifecycle. */
export type SessionState = "new" | "initializing" | "ready" | "closed";

interface PendingRequest {
  resolve(result: unknown): void;
  reject(error: Error): void;
}

/** Options for a server→client request. */
export interface ClientRequestOptions {
  /** Abort waiting (the request is then cancelled towards the client). */
  signal?: AbortSignal;
  /**
   * How long to wait for the client's answer before the request is
   * cancelled towards the client and rejected with -32001; default
   * {@linkcode DEFAULT_CLIENT_REQUEST_TIMEOUT_MS}. `Infinity` waits as long
   * as the session lasts.
   */
  timeoutMs?: number;
  /**
   * Stateless requests (MCP 2026-07-28): the key this request has among
   * the `inputRequests` of an `input_required` result, and under which
   * the client's retry answers it; default `sampling_1`, `roots_1`, … in
   * the order asked.
   */
  inputKey?: string;
}

/** How long a server→client request waits for its answer by default (ms). */
export const DEFAULT_CLIENT_REQUEST_TIMEOUT_MS = 60_000;

/** The JSON-RPC code of a server→client request the client did not answer in time. */
export const REQUEST_TIMEOUT_CODE: number = ErrorCode.RequestTimeout;

/**
 * The client capability each server→client method needs: such a request is
 * never sent to a client that did not declare it in `initialize`.
 */
export const CLIENT_CAPABILITY_OF: Readonly<Record<string, string>> = {
  "sampling/createMessage": "sampling",
  "elicitation/create": "elicitation",
  "roots/list": "roots",
};

/** One client connection: negotiated version, client details, and in-flight work. */
export class Session {
  /** Where the lifecycle stands. */
  state: SessionState = "new";
  /** The protocol version agreed in `initialize`. */
  protocolVersion: string | undefined;
  /** What the client said about itself in `initialize`. */
  clientInfo: ClientInfo | undefined;
  /** The client's capabilities from `initialize`. */
  clientCapabilities: JsonObject | undefined;
  /**
   * Resources served to this session alone (for example from the roots
   * the client gave), in place of the server's; undefined: the server's.
   * See `McpServer.resourcesFor`.
   */
  resources: ResourceProvider | undefined;
  /**
   * The lowest level of `notifications/message` the client asked for with
   * `logging/setLevel`; undefined (the default) sends none.
   */
  logLevel: LoggingLevel | undefined;
  /** URIs of resources the client subscribed to. */
  readonly subscriptions: Set<string> = new Set();
  /** Requests being handled, by {@linkcode idKey}, so they can be cancelled. */
  readonly inFlight: Map<string, Cancellable> = new Map();
  /**
   * Called with a request's key when its handler starts waiting on the
   * client, so a connection that orders answers stops waiting for it.
   */
  onWaitingForClient: ((key: string) => void) | undefined;
  /**
   * Called with a request's key when one of its requests to the client
   * settles (answered, failed, timed out or cancelled): once per call of
   * {@linkcode Session.onWaitingForClient}.
   */
  onClientAnswered: ((key: string) => void) | undefined;
  /**
   * Called with a request's key when the client cancels it, so the connection
   * can drop its answer wherever it waits (not started yet, held back for
   * its turn, or queued for output): nothing is sent for it.
   */
  onCancelled: ((key: string) => void) | undefined;

  /**
   * Set by a transport with a stream per request (Streamable HTTP's SSE):
   * end the stream that carries the answer to request `related` now,
   * telling the client to reconnect for the rest (the polling of
   * 2025-11-25). Returns whether there was such a stream to end; undefined
   * on transports without one (stdio).
   */
  closeStream: ((related: RequestId) => boolean) | undefined;

  readonly #send: SendFn;
  #inputEnded = false;
  readonly #pending = new Map<string, PendingRequest>();
  readonly #onClose: (() => void)[] = [];
  #onInputEnd: (() => void)[] | undefined;
  #nextId = 0;

  /** Make a session whose outgoing messages go to `send`. */
  constructor(send: SendFn) {
    this.#send = send;
  }

  /**
   * Send a notification to the client; `related`, the id of the request
   * being handled that it belongs to, if any.
   */
  notify(method: string, params?: JsonObject, related?: RequestId): void {
    if (this.state === "closed") return;
    this.#send(encodeNotification(method, params), related);
  }

  /**
   * Send a notification `notifications/message` to the client when its
   * level (see {@linkcode Session.logLevel}) lets a record at `level`
   * through; nothing when it never set one. `data` is any JSON value;
   * `logger` names the component it comes from; `related` is the id of the
   * request being handled that it belongs to, if any.
   */
  log(
    level: LoggingLevel,
    data: unknown,
    logger?: string,
    related?: RequestId,
  ): void {
    const threshold = this.logLevel;
    if (threshold === undefined || !allowsLevel(threshold, level)) return;
    const params: JsonObject = { level };
    if (logger !== undefined) params.logger = logger;
    params.data = data;
    try {
      this.notify("notifications/message", params, related);
    } catch {
      // Data that is not JSON (a cycle, a BigInt) goes as text.
      try {
        params.data = String(data);
        this.notify("notifications/message", params, related);
      } catch {
        // Not even text: a log record never takes the server down.
      }
    }
  }

  /**
   * Whether the client declared `capability` (`sampling`, `roots`, …) in
   * `initialize`.
   */
  declares(capability: string): boolean {
    const capabilities = this.clientCapabilities;
    return capabilities !== undefined && isObject(capabilities[capability]);
  }

  /**
   * Send a request to the client and wait for its response. `waiter`, the
   * key of the request being handled, lets the connection know it waits;
   * `related`, that request's id, lets the transport send it on that
   * request's stream.
   *
   * Rejects, without sending anything, when the session is closed or when
   * the method needs a client capability (see
   * {@linkcode CLIENT_CAPABILITY_OF}) the client did not declare. A client
   * error response rejects with an {@linkcode RpcError} carrying the
   * client's code and message; no answer within `timeoutMs` cancels the
   * request towards the client and rejects with code
   * {@linkcode REQUEST_TIMEOUT_CODE}.
   */
  request(
    method: string,
    params?: JsonObject,
    options: ClientRequestOptions & { waiter?: string; related?: RequestId } =
      {},
  ): Promise<unknown> {
    if (this.state === "closed" || this.#inputEnded) {
      return Promise.reject(
        new Error(
          this.state === "closed"
            ? "The session is closed."
            : "The client's input ended; it can no longer answer requests.",
        ),
      );
    }
    const capability = CLIENT_CAPABILITY_OF[method];
    if (capability !== undefined && !this.declares(capability)) {
      return Promise.reject(
        new RpcError(
          ErrorCode.InvalidRequest,
          `The client did not declare the "${capability}" capability in initialize, so the server cannot send it ${method}; use a client that supports ${capability} (or handle this error without it).`,
          { method, capability },
        ),
      );
    }
    const signal = options.signal;
    if (signal?.aborted) {
      return Promise.reject(signal.reason ?? new Error("aborted"));
    }
    const id = `s${++this.#nextId}`;
    let line: string;
    try {
      line = encodeRequest(id, method, params);
    } catch (error) {
      return Promise.reject(error);
    }
    const key = idKey(id);
    const waiter = options.waiter;
    if (waiter !== undefined) this.onWaitingForClient?.(waiter);
    const timeoutMs = options.timeoutMs ?? DEFAULT_CLIENT_REQUEST_TIMEOUT_MS;
    return new Promise((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.#pending.delete(key);
        if (waiter !== undefined) this.onClientAnswered?.(waiter);
      };
      const giveUp = (reason: string, error: unknown) => {
        finish();
        this.notify(
          "notifications/cancelled",
          { requestId: id, reason },
          options.related,
        );
        reject(error);
      };
      const onAbort = () =>
        giveUp(
          String(signal?.reason ?? "aborted"),
          signal?.reason ?? new Error("aborted"),
        );
      signal?.addEventListener("abort", onAbort, { once: true });
      // (Timers cannot wait longer than 2^31 - 1 ms: beyond, wait for ever.)
      if (timeoutMs <= 2 ** 31 - 1) {
        timer = setTimeout(() => {
          const reason = `no answer to ${method} within ${timeoutMs} ms`;
          giveUp(
            reason,
            new RpcError(
              REQUEST_TIMEOUT_CODE,
              `Request timed out: the client did not answer ${method} within ${timeoutMs} ms; the request was cancelled.`,
              { method, timeoutMs },
            ),
          );
        }, Math.max(0, timeoutMs));
      }
      this.#pending.set(key, {
        resolve: (value) => {
          finish();
          resolve(value);
        },
        reject: (error) => {
          finish();
          reject(error);
        },
      });
      this.#send(line, options.related);
    });
  }

  /**
   * Ask the client to sample its model (`sampling/createMessage`); needs
   * the client's `sampling` capability. The params are checked (messages,
   * maxTokens) before anything is sent, and so is the shape of the answer.
   */
  async sample(
    params: CreateMessageParams,
    options: ClientRequestOptions & { waiter?: string; related?: RequestId } =
      {},
  ): Promise<CreateMessageResult> {
    const { checkSamplingParams, checkSamplingResult } = await import(
      "./client_requests.ts"
    );
    checkSamplingParams(params);
    const result = await this.request(
      "sampling/createMessage",
      params as JsonObject,
      options,
    );
    return checkSamplingResult(result);
  }

  /**
   * Ask the user for input through the client (`elicitation/create`, form
   * mode); needs the client's `elicitation` capability (with form mode).
   * `requestedSchema` is checked against the shapes the specification
   * allows (flat properties of strings, numbers, booleans and enums, with
   * defaults; titled and multi-select enums from 2025-11-25) before
   * anything is sent.
   */
  async elicit(
    params: ElicitParams,
    options: ClientRequestOptions & { waiter?: string; related?: RequestId } =
      {},
  ): Promise<ElicitResult> {
    const { checkElicitParams, checkElicitResult, supportsFormElicitation } =
      await import("./client_requests.ts");
    if (
      this.declares("elicitation") &&
      !supportsFormElicitation(this.clientCapabilities?.elicitation)
    ) {
      throw new RpcError(
        ErrorCode.InvalidRequest,
        'The client declared elicitation without form mode, so the server cannot send it a form (elicitation/create); use a client whose "elicitation" capability includes "form".',
      );
    }
    checkElicitParams(params, this.protocolVersion);
    const result = await this.request(
      "elicitation/create",
      params as JsonObject,
      options,
    );
    return checkElicitResult(result);
  }

  /**
   * The client's roots (`roots/list`); needs the client's `roots`
   * capability. Resolves with the list the client answered, each root's
   * `uri` checked to be a string.
   */
  async listRoots(
    options: ClientRequestOptions & { waiter?: string; related?: RequestId } =
      {},
  ): Promise<Root[]> {
    const { checkRootsResult } = await import("./client_requests.ts");
    return checkRootsResult(
      await this.request("roots/list", undefined, options),
    );
  }

  /**
   * The client cancelled request `id`: abort its handler if it runs, and
   * let the connection drop its answer wherever it waits. Unknown or
   * finished requests are ignored.
   */
  cancel(id: RequestId, reason: unknown): void {
    const key = idKey(id);
    this.inFlight.get(key)?.abort(reason);
    this.onCancelled?.(key);
  }

  /**
   * Route a response from the client to the request waiting for it.
   * Returns false when nothing waits for it (it is then dropped).
   */
  resolveResponse(message: ResponseMessage): boolean {
    if (message.id === null) return false;
    const key = idKey(message.id as RequestId);
    const pending = this.#pending.get(key);
    if (!pending) return false;
    this.#pending.delete(key);
    if (message.error !== undefined) {
      const error = message.error;
      pending.reject(
        new RpcError(
          typeof error?.code === "number" ? error.code : -32603,
          typeof error?.message === "string" ? error.message : "Client error",
          error?.data,
        ),
      );
    } else {
      pending.resolve(message.result);
    }
    return true;
  }

  /**
   * End the session: the client can no longer answer, so requests waiting on
   * it fail, and nothing more is sent. Handlers in flight run to completion
   * (their responses are the connection's to deliver).
   */
  close(): void {
    if (this.state === "closed") return;
    this.endInput("The session closed.");
    this.state = "closed";
    for (const listener of this.#onClose.splice(0)) listener();
  }

  /**
   * The client's input ended: it can no longer answer, so requests waiting
   * on it fail and new ones are refused, while notifications (progress,
   * log records) still go out as the work in flight finishes, ahead of its
   * answers. {@linkcode Session.close} follows once that work is done.
   */
  endInput(
    reason = "The client's input ended; it can no longer answer requests.",
  ): void {
    if (this.#inputEnded) return;
    this.#inputEnded = true;
    for (const pending of [...this.#pending.values()]) {
      pending.reject(new Error(reason));
    }
    this.#pending.clear();
    const listeners = this.#onInputEnd;
    this.#onInputEnd = undefined;
    for (const listener of listeners ?? []) listener();
  }

  /**
   * Call `listener` once when the client's input ends (at once if it has):
   * long-lived requests (a stateless era's `subscriptions/listen`) answer
   * then, so the drain does not wait for them.
   */
  onInputEnd(listener: () => void): void {
    if (this.#inputEnded) listener();
    else (this.#onInputEnd ??= []).push(listener);
  }

  /** Call `listener` once when the session closes (at once if it has). */
  onClose(listener: () => void): void {
    if (this.state === "closed") listener();
    else this.#onClose.push(listener);
  }
}
