/**
 * Timing shared by every wait on a client that may never read again: the
 * connection's drain after its input ends, and a transport's paused reader
 * once the input has ended behind the pause. Both tick, and give up when
 * the output has not moved for the drain timeout.
 *
 * @module
 */

/** How long, by default, unwritten output may stand still after the input ends (ms). */
export const DEFAULT_DRAIN_TIMEOUT_MS = 5_000;

/** How often a drain checks for progress (ms). */
export const DRAIN_TICK_MS = 100;

/** A timer that can be cleared, as a promise. */
export function sleep(ms: number): { promise: Promise<void>; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}
