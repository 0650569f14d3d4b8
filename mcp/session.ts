/**
 * Per-connection state. A server holds no connection state itself, so one
 * {@linkcode McpServer} can serve many sessions at once.
 *
 * @module
 */

import type { ResourceProvider } from "./resource.ts";
import {
  encodeNotification,
  encodeRequest,
  idKey,
  type JsonObject,
  type RequestId,
  type ResponseMessage,
  RpcError,
} from "./jsonrpc.ts";

/** Where a session's outgoing messages go (one encoded message per call). */
export type SendFn = (line: string) => void;

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
}

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
   * Called with a request's key when the client cancels it, so the connection
   * can drop its answer wherever it waits (not started yet, held back for
   * its turn, or queued for output): nothing is sent for it.
   */
  onCancelled: ((key: string) => void) | undefined;

  readonly #send: SendFn;
  readonly #pending = new Map<string, PendingRequest>();
  #nextId = 0;

  /** Make a session whose outgoing messages go to `send`. */
  constructor(send: SendFn) {
    this.#send = send;
  }

  /** Send a notification to the client. */
  notify(method: string, params?: JsonObject): void {
    if (this.state === "closed") return;
    this.#send(encodeNotification(method, params));
  }

  /**
   * Send a request to the client and wait for its response. `waiter`, the
   * key of the request being handled, lets the connection know it waits.
   */
  request(
    method: string,
    params?: JsonObject,
    options: ClientRequestOptions & { waiter?: string } = {},
  ): Promise<unknown> {
    if (this.state === "closed") {
      return Promise.reject(new Error("The session is closed."));
    }
    const id = `s${++this.#nextId}`;
    const key = idKey(id);
    if (options.waiter !== undefined) this.onWaitingForClient?.(options.waiter);
    return new Promise((resolve, reject) => {
      const signal = options.signal;
      const onAbort = () => {
        this.#pending.delete(key);
        this.notify("notifications/cancelled", {
          requestId: id,
          reason: String(signal?.reason ?? "aborted"),
        });
        reject(signal?.reason ?? new Error("aborted"));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(key, {
        resolve: (value) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(value);
        },
        reject: (error) => {
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      });
      this.#send(encodeRequest(id, method, params));
    });
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
    this.state = "closed";
    for (const pending of this.#pending.values()) {
      pending.reject(new Error("The session closed."));
    }
    this.#pending.clear();
  }
}
