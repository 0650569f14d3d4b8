/**
 * Whether an optional system tool (`setpriv`, `mkfifo`) can run here, so
 * that tests needing it skip with a reason instead of failing.
 *
 * @module
 */

/**
 * Whether `program` runs with `args` and succeeds. A program missing from
 * PATH counts as not running: Deno 2.9.6's `Command.output()` throws
 * `NotFound` synchronously then, before any promise exists to reject.
 */
export async function programRuns(
  program: string,
  args: readonly string[],
): Promise<boolean> {
  try {
    const out = await new Deno.Command(program, {
      args: [...args],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
    return out.success;
  } catch {
    return false;
  }
}

/**
 * Whether a FIFO can be made here: Deno has no call for it, so tests make
 * one with the `mkfifo` program, tried once in a directory of its own.
 */
export async function canMakeFifo(): Promise<boolean> {
  const dir = await Deno.makeTempDir({ prefix: "shipcode-mkfifo-" });
  try {
    return await programRuns("mkfifo", [`${dir}/probe`]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The reason a test that needs a FIFO gives when it is skipped. */
export const NO_FIFO = "skipped: no mkfifo on PATH to make a FIFO";
