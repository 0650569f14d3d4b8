/**
 * Multi round-trip requests (MCP 2026-07-28): instead of sending the client
 * a request of its own (`sampling/createMessage`, `elicitation/create`,
 * `roots/list`), a stateless server answers the client's request with an
 * `input_required` result naming what it needs; the client retries the
 * request with `inputResponses` and the `requestState` it was given.
 *
 * The server keeps nothing between the rounds: the answers gathered so far
 * travel in `requestState`, signed with HMAC-SHA-256 under a key of this
 * process (or one set with {@linkcode setRequestStateKey}, so several
 * instances accept each other's state), and bound to the method, a digest
 * of the request's parameters and an expiry. State that fails any of these
 * checks is refused.
 *
 * @module
 */

import { ErrorCode, isObject, type JsonObject, RpcError } from "./jsonrpc.ts";

/** How long a `requestState` is accepted after it was issued (ms). */
export const REQUEST_STATE_TTL_MS = 10 * 60_000;

/** One request to the client, as an `inputRequests` entry carries it. */
export interface InputRequest {
  /** `sampling/createMessage`, `elicitation/create` or `roots/list`. */
  method: string;
  /** Its params, when it has any. */
  params?: JsonObject;
}

/** What a verified `requestState` carries. */
export interface RequestState {
  /** Answers gathered in earlier rounds, by input request key. */
  responses: JsonObject;
  /** Keys asked for in the round this state was issued with. */
  asked: string[];
}

const encoder = new TextEncoder();
let keyBytes: Uint8Array | undefined;
let cryptoKey: Promise<CryptoKey> | undefined;

/**
 * Sign request state with `key` (at least 32 bytes) from now on, instead of
 * this process's random key: instances behind one load balancer share it,
 * so a retry may land on any of them.
 */
export function setRequestStateKey(key: Uint8Array): void {
  if (key.length < 32) {
    throw new RangeError(
      `a request state key needs at least 32 bytes, got ${key.length}; use 32 random bytes.`,
    );
  }
  keyBytes = key;
  cryptoKey = undefined;
}

function hmacKey(): Promise<CryptoKey> {
  keyBytes ??= crypto.getRandomValues(new Uint8Array(32));
  return cryptoKey ??= crypto.subtle.importKey(
    "raw",
    keyBytes as Uint8Array<ArrayBuffer>,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign", "verify"],
  );
}

function base64url(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(
    /=+$/,
    "",
  );
}

function fromBase64url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/**
 * A digest of what identifies a request across its rounds: the method and
 * the params without `_meta`, `inputResponses` and `requestState`.
 */
export async function requestDigest(
  method: string,
  params: JsonObject | undefined,
): Promise<string> {
  const rest: JsonObject = {};
  for (const [key, value] of Object.entries(params ?? {})) {
    if (key !== "_meta" && key !== "inputResponses" && key !== "requestState") {
      rest[key] = value;
    }
  }
  const bytes = await crypto.subtle.digest(
    "SHA-256",
    encoder.encode(method + "\n" + JSON.stringify(rest)),
  );
  return base64url(new Uint8Array(bytes));
}

/**
 * The `requestState` of an `input_required` answer to `method` with
 * `params`: the answers so far and the keys now asked for, signed.
 */
export async function sealRequestState(
  method: string,
  params: JsonObject | undefined,
  state: RequestState,
  now: number = Date.now(),
): Promise<string> {
  const payload = {
    m: method,
    d: await requestDigest(method, params),
    e: now + REQUEST_STATE_TTL_MS,
    r: state.responses,
    k: state.asked,
  };
  const body = base64url(encoder.encode(JSON.stringify(payload)));
  const mac = await crypto.subtle.sign(
    "HMAC",
    await hmacKey(),
    encoder.encode(body),
  );
  return body + "." + base64url(new Uint8Array(mac));
}

function refused(why: string): RpcError {
  return new RpcError(
    ErrorCode.InvalidParams,
    `Invalid params: "requestState" ${why}; send the original request again without "requestState" and "inputResponses".`,
  );
}

/**
 * Check a `requestState` a client sent back with `method` and `params`,
 * and return what it carries. Throws -32602 when it was not issued by this
 * server (or its key), was altered, has expired, or belongs to another
 * request.
 */
export async function openRequestState(
  text: unknown,
  method: string,
  params: JsonObject | undefined,
  now: number = Date.now(),
): Promise<RequestState> {
  if (typeof text !== "string") throw refused("must be a string");
  const dot = text.indexOf(".");
  const body = text.slice(0, dot);
  const mac = dot < 0 ? undefined : fromBase64url(text.slice(dot + 1));
  if (dot < 0 || mac === undefined) throw refused("is malformed");
  const valid = await crypto.subtle.verify(
    "HMAC",
    await hmacKey(),
    mac as Uint8Array<ArrayBuffer>,
    encoder.encode(body),
  );
  if (!valid) {
    throw refused(
      "failed verification (it was altered or is not this server's)",
    );
  }
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder().decode(fromBase64url(body)));
  } catch {
    throw refused("is malformed");
  }
  if (
    !isObject(payload) || typeof payload.e !== "number" ||
    !isObject(payload.r) || !Array.isArray(payload.k)
  ) throw refused("is malformed");
  if (payload.e < now) throw refused("has expired");
  if (
    payload.m !== method || payload.d !== await requestDigest(method, params)
  ) throw refused("belongs to another request");
  return {
    responses: payload.r,
    asked: payload.k.filter((key): key is string => typeof key === "string"),
  };
}

/**
 * The input responses a retry carries: those of earlier rounds (from its
 * verified state) and those the client now sends for the keys asked for.
 * Keys not asked for are ignored, as the specification says.
 */
export function gatheredResponses(
  state: RequestState | undefined,
  inputResponses: unknown,
): JsonObject {
  const responses: JsonObject = { ...state?.responses };
  if (state === undefined || !isObject(inputResponses)) return responses;
  for (const key of state.asked) {
    if (Object.hasOwn(inputResponses, key)) {
      responses[key] = inputResponses[key];
    }
  }
  return responses;
}

/** The short name of each input method, for input request keys. */
const KEY_PREFIX: Readonly<Record<string, string>> = {
  "sampling/createMessage": "sampling",
  "elicitation/create": "elicitation",
  "roots/list": "roots",
};

/**
 * Collects the requests to the client one round of a request makes: each
 * gets a key (`sampling_1`, `roots_1`, …) that is the same in every round
 * as long as the handler asks in the same order, so an answer given in one
 * round is found again in the next.
 */
export class InputCollector {
  /** Answers available to this round, by key. */
  readonly responses: JsonObject;
  /** What this round still needs, by key. */
  readonly needed: Map<string, InputRequest> = new Map();
  readonly #counts = new Map<string, number>();
  #first: PromiseWithResolvers<void> | undefined;

  /** A collector that answers from `responses`. */
  constructor(responses: JsonObject) {
    this.responses = responses;
  }

  /**
   * The answer to the next request for `method` (under `inputKey`, when
   * the handler names it), or undefined when the client has not given it
   * yet (it is then recorded as needed).
   */
  take(
    method: string,
    params: JsonObject | undefined,
    inputKey?: string,
  ): unknown {
    let key = inputKey;
    if (key === undefined) {
      const prefix = KEY_PREFIX[method] ?? method.replaceAll("/", "_");
      const count = (this.#counts.get(prefix) ?? 0) + 1;
      this.#counts.set(prefix, count);
      key = `${prefix}_${count}`;
    }
    if (Object.hasOwn(this.responses, key)) return this.responses[key];
    this.needed.set(
      key,
      params === undefined ? { method } : { method, params },
    );
    this.#first?.resolve();
    return undefined;
  }

  /** Resolves when the first needed input is recorded. */
  get firstNeed(): Promise<void> {
    if (this.needed.size > 0) return Promise.resolve();
    return (this.#first ??= Promise.withResolvers<void>()).promise;
  }
}

/** Thrown into a handler whose request needs input the client has yet to give. */
export class InputRequiredError extends Error {
  /** The input request key. */
  readonly key: string;

  /** An error for the input `key`. */
  constructor(key: string) {
    super(
      `the client must first answer input request "${key}" (the request is answered with an input_required result).`,
    );
    this.name = "InputRequiredError";
    this.key = key;
  }
}
