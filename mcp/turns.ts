/**
 * Giving the event loop a turn: work that would hold it long (a large
 * answer after another, a keep-alive comment to thousands of streams) is
 * split so that the server reads what waits on its sockets in between.
 *
 * @module
 */

/** Resolves in a later turn of the event loop, once timers are run. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Call `each` on every item of `items` (a snapshot taken first), `slice`
 * at a time, with a turn of the event loop between two slices.
 */
export async function inSlices<T>(
  items: Iterable<T>,
  slice: number,
  each: (item: T) => void,
): Promise<void> {
  let done = 0;
  for (const item of [...items]) {
    if (done > 0 && done % slice === 0) await nextTurn();
    each(item);
    done++;
  }
}
