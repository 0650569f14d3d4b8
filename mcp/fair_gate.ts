/**
 * A few places shared by every session, taken in turn: the gate a
 * request whose answer can be large (`resources/read` of a whole file)
 * passes before its handler runs, held until its answer is encoded.
 *
 * Why: without it, a flood of such requests from a few sessions ran
 * hundreds at once. Each held its file's bytes, its text and its encoded
 * answer together (hundreds of MB), and whenever their reads finished in
 * the same turn of the event loop their encodes ran back to back, so
 * everything else (`/health`, another client's `initialize`) waited
 * seconds behind them. With a few places, memory is a few answers and one
 * turn of the loop encodes at most that many.
 *
 * Turns are fair between owners (sessions): a place that frees goes to
 * the waiting owner served longest ago (one never served first), so one
 * client's queue of requests never stands in front of another client's
 * first. A place passes on in a later turn of
 * the event loop, so that between two large answers the server reads what
 * waits on its sockets (a new client's request, a health check).
 *
 * @module
 */

import { nextTurn } from "./turns.ts";

/** Default number of places: one per core of the machines it was measured on. */
export const DEFAULT_GATE_PLACES = 1;

/** See the module documentation. */
export class FairGate {
  readonly #places: number;
  #taken = 0;
  // When each owner was last given a place (a count of places given).
  readonly #served = new WeakMap<object, number>();
  #given = 0;
  // Owners with someone waiting, and their waiters in order.
  readonly #waiting = new Map<object, (() => void)[]>();

  /** A gate of `places` places (at least 1). */
  constructor(places: number = DEFAULT_GATE_PLACES) {
    if (!Number.isInteger(places) || places < 1) {
      throw new RangeError(`a gate needs at least one place, not ${places}`);
    }
    this.#places = places;
  }

  /** Places taken now. */
  get taken(): number {
    return this.#taken;
  }

  /** Requests waiting for a place, across all owners. */
  get waiting(): number {
    let count = 0;
    for (const queue of this.#waiting.values()) count += queue.length;
    return count;
  }

  /**
   * Take a place for `owner`: undefined when one was free (taken at
   * once), else a promise that resolves when this owner's turn gives it
   * one. Every place taken must be given back with
   * {@linkcode FairGate.leave}, once.
   */
  enter(owner: object): Promise<void> | undefined {
    if (this.#taken < this.#places && this.#waiting.size === 0) {
      this.#taken++;
      this.#served.set(owner, ++this.#given);
      return undefined;
    }
    return new Promise((resolve) => {
      const queue = this.#waiting.get(owner);
      if (queue === undefined) this.#waiting.set(owner, [resolve]);
      else queue.push(resolve);
    });
  }

  /** Give a place back: it goes to the next owner in turn, if any. */
  leave(): void {
    let next: object | undefined;
    let longest = Infinity;
    for (const owner of this.#waiting.keys()) {
      const served = this.#served.get(owner) ?? 0;
      if (served < longest) {
        next = owner;
        longest = served;
      }
    }
    if (next === undefined) {
      if (this.#taken > 0) this.#taken--;
      return;
    }
    const queue = this.#waiting.get(next) as (() => void)[];
    const resolve = queue.shift() as () => void;
    if (queue.length === 0) this.#waiting.delete(next);
    this.#served.set(next, ++this.#given);
    // The place passes on (#taken stays as it is), in a later turn.
    nextTurn().then(resolve);
  }
}
