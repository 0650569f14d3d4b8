/**
 * A helper of this folder's tests: how many `Deno.lstatSync` calls some
 * work makes (the re-checked mode's cost is mostly lstats of paths).
 *
 * @module
 */

/** `run`'s result, and the `Deno.lstatSync` calls made while it ran. */
export async function lstatCalls<T>(
  run: () => T | Promise<T>,
): Promise<{ result: T; calls: number }> {
  const lstat = Deno.lstatSync;
  let calls = 0;
  Deno.lstatSync = (path) => {
    calls++;
    return lstat(path);
  };
  try {
    const result = await run();
    return { result, calls };
  } finally {
    Deno.lstatSync = lstat;
  }
}
