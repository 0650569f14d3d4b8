/**
 * `--state-key-env NAME`: the key that signs MCP 2026-07-28 `requestState`
 * (multi round-trip requests), read from environment variable `NAME` so
 * that it never shows on a command line or in a process list. Instances
 * behind one load balancer are started with the same key, so that a retry
 * carrying state one instance issued may land on any other.
 *
 * The key is the variable's text, whitespace around it removed (a trailing
 * line break from a secret file does not split instances), taken as UTF-8
 * bytes: at least {@linkcode MIN_STATE_KEY_BYTES} of them, e.g. the output
 * of `openssl rand -base64 32`.
 *
 * Loaded only when the flag is given.
 *
 * @module
 */

import { setRequestStateKey } from "../mcp/mrtr.ts";

/** Fewest bytes a request-state key may have. */
export const MIN_STATE_KEY_BYTES = 32;

/**
 * The request-state key held in environment variable `name` (read with
 * `get`), as bytes; or, as a string, what is wrong and how to fix it.
 */
export function stateKeyFrom(
  name: string,
  get: (name: string) => string | undefined = (name) => Deno.env.get(name),
): Uint8Array | string {
  let text: string | undefined;
  try {
    text = get(name);
  } catch {
    return `cannot read environment variable ${name} for --state-key-env; run deno with --allow-env=${name}.`;
  }
  text = text?.trim();
  if (text === undefined || text === "") {
    return `--state-key-env ${name}: the environment variable ${name} is not set (or empty); set it to the same secret of ${MIN_STATE_KEY_BYTES} bytes or more on every instance, e.g. the output of openssl rand -base64 32.`;
  }
  const key = new TextEncoder().encode(text);
  if (key.length < MIN_STATE_KEY_BYTES) {
    return `--state-key-env ${name}: the key in ${name} has ${key.length} bytes, too few to sign with; use ${MIN_STATE_KEY_BYTES} or more, e.g. the output of openssl rand -base64 32.`;
  }
  return key;
}

/**
 * Sign request state from now on with the key in environment variable
 * `name`. Returns undefined when it is set, else the problem (see
 * {@linkcode stateKeyFrom}).
 */
export function useStateKey(
  name: string,
  get?: (name: string) => string | undefined,
): string | undefined {
  const key = stateKeyFrom(name, get);
  if (typeof key === "string") return key;
  setRequestStateKey(key);
  return undefined;
}
