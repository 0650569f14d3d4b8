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
 * A place is a lease of {@linkcode GATE_LEASE_MS}: a holder still at work
 * then (waiting on its client's answer to `roots/list`, or on a slow disk)
 * keeps running, but its place passes on, so that no client can hold the
 * gate by not answering, and a new client waits at most one lease.
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

/**
 * Milliseconds a place is held at most before it passes on (its holder
 * runs on): twenty times a 1 MB read's encode here.
 */
export const GATE_LEASE_MS = 100;

/** A place taken in a {@linkcode FairGate}; give it back with `leave`. */
export class GatePlace {
  /** Whether it has passed on: given back, or its lease ran out. */
  lapsed = false;
  /** @internal The lease's timer. */
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** Options of a {@linkcode FairGate}. */
export interface FairGateOptions {
  /** Places (at least 1); default {@linkcode DEFAULT_GATE_PLACES}. */
  places?: number;
  /** A place's lease, ms; default {@linkcode GATE_LEASE_MS}. */
  leaseMs?: number;
  /**
   * The clock that tells how long since the event loop last turned for
   * the gate, ms; default `performance.now` (tests give their own).
   */
  now?: () => number;
}

/** See the module documentation. */
export class FairGate {
  readonly #places: number;
  readonly #leaseMs: number;
  readonly #now: () => number;
  #taken = 0;
  // When each owner was last given a place (a count of places given).
  readonly #served = new WeakMap<object, number>();
  #given = 0;
  // When the event loop last turned for the gate (by #now).
  #turned = -Infinity;
  // Owners with someone waiting, and their waiters in order.
  readonly #waiting = new Map<object, ((place: GatePlace) => void)[]>();

  /** A gate; see {@linkcode FairGateOptions}. */
  constructor(options: FairGateOptions = {}) {
    const places = options.places ?? DEFAULT_GATE_PLACES;
    if (!Number.isInteger(places) || places < 1) {
      throw new RangeError(`a gate needs at least one place, not ${places}`);
    }
    this.#places = places;
    this.#leaseMs = options.leaseMs ?? GATE_LEASE_MS;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Places taken now (lapsed ones not counted). */
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
   * Take a place for `owner`: the place when one was free (taken at
   * once), else a promise of it when this owner's turn comes. Every place
   * must be given back with {@linkcode FairGate.leave}, once.
   */
  enter(owner: object): GatePlace | Promise<GatePlace> {
    if (this.#taken < this.#places && this.#waiting.size === 0) {
      this.#taken++;
      return this.#lease(owner);
    }
    return new Promise((resolve) => {
      const queue = this.#waiting.get(owner);
      if (queue === undefined) this.#waiting.set(owner, [resolve]);
      else queue.push(resolve);
    });
  }

  /** Give `place` back: it goes to the next owner in turn, if any. */
  leave(place: GatePlace): void {
    clearTimeout(place.timer);
    this.#lapse(place);
  }

  #lease(owner: object): GatePlace {
    this.#served.set(owner, ++this.#given);
    const place = new GatePlace();
    // Cleared when the place is given back: it lives as long as a request
    // runs, which keeps the process alive anyway.
    place.timer = setTimeout(() => this.#lapse(place), this.#leaseMs);
    return place;
  }

  // The place passes on, once: at its lease's end or when given back,
  // whichever comes first.
  #lapse(place: GatePlace): void {
    if (place.lapsed) return;
    place.lapsed = true;
    this.#passOn();
  }

  // A place frees: to the waiting owner served longest ago, if any.
  #passOn(): void {
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
    const queue = this.#waiting.get(next) as ((place: GatePlace) => void)[];
    const resolve = queue.shift() as (place: GatePlace) => void;
    if (queue.length === 0) this.#waiting.delete(next);
    const owner = next;
    // The place passes on (#taken stays as it is).
    if (this.#now() - this.#turned < GATE_TURN_MS) {
      resolve(this.#lease(owner));
      return;
    }
    nextTurn().then(() => {
      this.#turned = this.#now();
      resolve(this.#lease(owner));
    });
  }
}
