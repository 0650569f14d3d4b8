/**
 * Backpressure by size: the characters of answers that are finished but not
 * yet written, wherever they wait (held for their turn, or queued for the
 * output). While the total is over the limit, a connection starts no new
 * work and its transport reads no more input; they resume once the client has read enough
 * for the total to fall to half the limit.
 *
 * Counting characters (UTF-16 code units) rather than bytes costs nothing
 * per message; a string holds one or two bytes per character.
 *
 * @module
 */

/** Default limit: 8 Mi characters, 8 to 16 MiB of strings. */
export const DEFAULT_OUTPUT_BUDGET_CHARS = 8 * 1024 * 1024;

/** A shared count of unwritten output, with a limit and a way to wait for room. */
export class OutputBudget {
  /** Characters above which {@linkcode OutputBudget.over} holds. */
  readonly limit: number;
  #used = 0;
  #waiters: (() => void)[] = [];

  /** Make a budget of `limit` characters. */
  constructor(limit: number = DEFAULT_OUTPUT_BUDGET_CHARS) {
    if (!(limit > 0)) throw new RangeError("The budget must be positive");
    this.limit = limit;
  }

  /** Characters counted now. */
  get used(): number {
    return this.#used;
  }

  /** Whether the count is over the limit: start nothing new. */
  get over(): boolean {
    return this.#used > this.limit;
  }

  /** Count `chars` more. */
  add(chars: number): void {
    this.#used += chars;
  }

  /** Count `chars` fewer (written or dropped). */
  remove(chars: number): void {
    this.#used -= chars;
    if (this.#waiters.length > 0 && this.#used <= this.limit / 2) {
      const waiters = this.#waiters;
      this.#waiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  /**
   * Resolves once the count is at most half the limit (at once when it
   * already is).
   */
  room(): Promise<void> {
    if (this.#used <= this.limit / 2) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}
