/**
 * A few places shared by every session, taken in turn: the gate a
 * request whose answer can be large (`resources/read` of a whole file)
 * passes before its handler runs, held until its answer is encoded.
 *
 * Why: without it, a flood of such requests from a few sessions ran
 * hundreds at once. Each held its file's bytes, its text and its encoded
 * answer together (hundreds of MB), and the runtime read its sockets only
 * when it ran out of ready work, so everything else (`/health`, another
 * client's `initialize`) waited hundreds of ms. With one place, memory is
 * one answer, and the loop turns between large answers.
 *
 * Turns are fair between owners (sessions): a place that frees goes to
 * the waiting owner served longest ago (one never served first), so one
 * client's queue of requests never stands in front of another client's
 * first.
 *
 * A place passes on at once while the gated work since the event loop
 * last turned is under {@linkcode GATE_TURN_MS}, else in a later turn:
 * between large answers the server then reads what waits on its sockets,
 * while a run of small reads (a client fetching 200 small files at once)
 * does not wait a turn for each.
 *
 * @module
 */

import { nextTurn } from "./turns.ts";

/** Default number of places: one per core of the machines it was measured on. */
export const DEFAULT_GATE_PLACES = 1;

/**
 * Milliseconds of gated work after which a place passes on in a later
 * turn of the event loop rather than at once.
 */
export const GATE_TURN_MS = 4;

/** See the module documentation. */
export class FairGate {
  readonly #places: number;
  #taken = 0;
  // When each owner was last given a place (a count of places given).
  readonly #served = new WeakMap<object, number>();
  #given = 0;
  // When the event loop last turned for the gate (performance.now()).
  #turned = -Infinity;
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
    // The place passes on (#taken stays as it is).
    if (performance.now() - this.#turned < GATE_TURN_MS) {
      resolve();
      return;
    }
    nextTurn().then(() => {
      this.#turned = performance.now();
      resolve();
    });
  }
}
