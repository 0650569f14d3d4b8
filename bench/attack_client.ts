/**
 * A raw MCP client over HTTP/1.1 for the bench's attacks and probes: one
 * request at a time on a {@linkcode RawConnection}, with the headers a
 * session needs.
 *
 * @module
 */

import { findAnswer, PROTOCOL_VERSION } from "./http_load.ts";
import type { Address, RawConnection, Reply } from "./raw_http.ts";

/** Where the server listens: its address and its MCP path. */
export interface Target {
  /** Host and port. */
  address: Address;
  /** The MCP endpoint's path, e.g. `/mcp`. */
  path: string;
}

const JSON_HEADERS = {
  "content-type": "application/json",
  "accept": "application/json, text/event-stream",
};

export function sessionHeaders(sessionId: string | undefined, accept?: string) {
  const headers: Record<string, string> = { ...JSON_HEADERS };
  if (accept !== undefined) headers.accept = accept;
  if (sessionId !== undefined) {
    headers["mcp-session-id"] = sessionId;
    headers["mcp-protocol-version"] = PROTOCOL_VERSION;
  }
  return headers;
}

/** Rejects with the signal's reason when it aborts first. */
export function within<T>(
  promise: Promise<T>,
  signal: AbortSignal,
): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener("abort", abort, { once: true });
    promise.then(resolve, reject).finally(() =>
      signal.removeEventListener("abort", abort)
    );
  });
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

let lastId = 0;

/** A request id not used before in this process. */
export function nextId(): number {
  return ++lastId;
}

/** A request on `conn`; its answer's `result`, or a thrown reason. */
export async function rpc(
  conn: RawConnection,
  context: Target,
  sessionId: string | undefined,
  method: string,
  params: Record<string, unknown>,
): Promise<{ result: Record<string, unknown>; reply: Reply }> {
  const id = nextId();
  const reply = await conn.request(
    "POST",
    context.path,
    context.address,
    sessionHeaders(sessionId),
    JSON.stringify({ jsonrpc: "2.0", id, method, params }),
  );
  if (reply.status !== 200) {
    throw new Error(
      `${method}: HTTP ${reply.status}: ${reply.body.slice(0, 200)}`,
    );
  }
  const answer = findAnswer(
    reply.body,
    reply.headers.get("content-type") ?? "",
    id,
  );
  if (answer === undefined || answer.error !== undefined) {
    throw new Error(`${method}: ${reply.body.slice(0, 200)}`);
  }
  return { result: answer.result as Record<string, unknown>, reply };
}

/** A notification on `conn`: its status. */
export async function notify(
  conn: RawConnection,
  context: Target,
  sessionId: string | undefined,
  method: string,
): Promise<number> {
  const reply = await conn.request(
    "POST",
    context.path,
    context.address,
    sessionHeaders(sessionId),
    JSON.stringify({ jsonrpc: "2.0", method }),
  );
  return reply.status;
}

/** `initialize` (and `notifications/initialized`): the session's id. */
export async function openSession(
  conn: RawConnection,
  context: Target,
  initialized = true,
): Promise<string> {
  const { reply } = await rpc(conn, context, undefined, "initialize", {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: "shipcode-attack", version: "1.0.0" },
  });
  const id = reply.headers.get("mcp-session-id");
  if (id === undefined) throw new Error("initialize: no Mcp-Session-Id");
  if (initialized) {
    await notify(conn, context, id, "notifications/initialized");
  }
  return id;
}
