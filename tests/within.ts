/**
 * A bound for tests that must fail, not hang, when something never
 * settles.
 *
 * @module
 */

/**
 * `promise`, or a failure naming `what` once `ms` milliseconds have passed
 * without it settling. The timer is cleared either way.
 */
export async function within<T>(
  promise: Promise<T>,
  ms = 60_000,
  what = "the promise",
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: not settled within ${ms} ms`)),
      ms,
    );
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
