/**
 * Code loading in progress in this process: modules imported on first use,
 * schemas compiled, set-up run. Loading is a one-time cost that every
 * answer after it would have paid too, so the connection does not count it
 * against a request's place in the order of answers (see
 * `response_order.ts`): a first call that loads code on a slow machine
 * still answers in its place.
 *
 * @module
 */

let pending = 0;
let settled: PromiseWithResolvers<void> | undefined;

function done(): void {
  if (--pending === 0 && settled !== undefined) {
    settled.resolve();
    settled = undefined;
  }
}

/**
 * Mark `work` as loading code until it settles; returns `work`.
 *
 * @example
 * ```ts
 * import { trackLoading } from "./loading.ts";
 * const mod = await trackLoading(import("./json_schema.ts"));
 * ```
 */
export function trackLoading<T>(work: Promise<T>): Promise<T> {
  pending++;
  work.then(done, done);
  return work;
}

/** A promise that settles once no code is loading, or undefined when none is. */
export function loadingSettled(): Promise<void> | undefined {
  if (pending === 0) return undefined;
  return (settled ??= Promise.withResolvers<void>()).promise;
}
