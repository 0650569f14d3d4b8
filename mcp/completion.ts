/**
 * Completion (`completion/complete`): what a completer is, and the result
 * a client gets from its suggestions.
 *
 * @module
 */

import type { JsonObject } from "./jsonrpc.ts";

/** Most values one `completion/complete` result carries (the specification's cap). */
export const MAX_COMPLETION_VALUES = 100;

/** What a completer gets beside the value typed so far. */
export interface CompletionContext {
  /**
   * The other arguments the client has already filled in (2025-11-25's
   * `context.arguments`); empty when it sent none.
   */
  readonly arguments: Readonly<Record<string, string>>;
  /** Aborted when the client cancels the request. */
  readonly signal: AbortSignal;
}

/**
 * Suggestions for a value, best first. A completer may return more than a
 * client is sent (100 at most); `total` then says how many there were.
 */
export interface Completion {
  /** The suggestions, best first. */
  values: string[];
  /** How many there are in all, when more than `values` holds. */
  total?: number;
  /** Whether there are more than `values` holds. */
  hasMore?: boolean;
}

/** Suggests values for an argument (or template variable) as it is typed. */
export type Completer = (
  value: string,
  context: CompletionContext,
) => string[] | Completion | Promise<string[] | Completion>;

/**
 * The `completion` object of a `completion/complete` result for what a
 * completer returned: at most {@linkcode MAX_COMPLETION_VALUES} values,
 * with `total` and `hasMore` always present.
 *
 * @example
 * ```ts
 * import { completionResult } from "./completion.ts";
 * const all = Array.from({ length: 150 }, (_, i) => `v${i}`);
 * const result = completionResult(all);
 * console.log(result.total, result.hasMore); // 150 true
 * ```
 */
export function completionResult(suggested: string[] | Completion): JsonObject {
  const given = Array.isArray(suggested) ? { values: suggested } : suggested;
  const values = given.values.slice(0, MAX_COMPLETION_VALUES);
  const total = Math.max(given.total ?? given.values.length, values.length);
  const hasMore = given.hasMore === true || total > values.length;
  return { values, total, hasMore };
}
