/**
 * Answers in request order where it costs little: an answer that is ready
 * waits for the answers to earlier requests, so that transcripts of quick
 * requests are deterministic, but never for long. Once a ready answer has
 * waited `maxWaitMs` (200 ms by default: with timers late on a busy event
 * loop it still leaves within about 250 ms), every slower request in front
 * of it loses its place: its answer will go out whenever it is ready, and the
 * answers behind it go out now.
 *
 * Time spent loading code (see `loading.ts`) does not count: a first call
 * that loads a module on a slow machine keeps its place, so transcripts
 * that start with one stay deterministic too.
 *
 * @module
 */

import { Fifo } from "./fifo.ts";
import { idKey, type RequestId } from "./jsonrpc.ts";
import type { OutputBudget } from "./output_budget.ts";

/** How long, by default, a ready answer may wait behind a slower one. */
export const DEFAULT_MAX_WAIT_MS = 200;

/** One request's place in the order; see {@linkcode ResponseOrder.add}. */
export interface Place {
  /** The request's id; undefined for an answer nobody can cancel. */
  readonly id: RequestId | undefined;
  /** Its `idKey`, or "" without an id. */
  readonly key: string;
}

interface Slot extends Place {
  /** The answer is known (possibly "none"). */
  done: boolean;
  /** Out of the order: written as soon as it is done. */
  released: boolean;
  /** Cancelled: nothing is written for it. */
  cancelled: boolean;
  line: string | undefined;
  /** When the answer became ready while held back (ms). */
  heldAt: number;
}

/** Options for a {@linkcode ResponseOrder}. */
export interface ResponseOrderOptions {
  /** How long a ready answer may wait behind a slower one; default 200 ms. */
  maxWaitMs?: number;
  /** Counts the characters of ready answers held back. */
  budget?: OutputBudget;
  /**
   * While this returns a promise (code is loading), held answers wait
   * beyond `maxWaitMs`; their wait starts again once it settles.
   */
  loading?: () => Promise<unknown> | undefined;
  /** The clock, in ms; default `performance.now`. */
  now?: () => number;
}

/** Keeps answers in request order, within a bound on waiting. */
export class ResponseOrder {
  readonly #write: (line: string, id: RequestId | undefined) => void;
  readonly #maxWait: number;
  readonly #budget: OutputBudget | undefined;
  readonly #loading: () => Promise<unknown> | undefined;
  readonly #now: () => number;
  readonly #slots = new Fifo<Slot>();
  /** Slots in the queue by request key, for release and cancel. */
  readonly #byKey = new Map<string, Slot>();
  /** Ready answers held in the queue. */
  #held = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #waitingForLoad = false;
  #onRoom: { below: number; resolve: () => void } | undefined;

  /** Write answers through `write`, in order; see the module documentation. */
  constructor(
    write: (line: string, id: RequestId | undefined) => void,
    options: ResponseOrderOptions = {},
  ) {
    this.#write = write;
    this.#maxWait = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
    this.#budget = options.budget;
    this.#loading = options.loading ?? (() => undefined);
    this.#now = options.now ?? (() => performance.now());
  }

  /** How many places are held (requests unanswered, answers waiting). */
  get size(): number {
    return this.#slots.size;
  }

  /** Resolves once at most `below` places are held. */
  room(below: number): Promise<void> {
    if (this.#slots.size <= below) return Promise.resolve();
    return new Promise((resolve) => this.#onRoom = { below, resolve });
  }

  /** Take the next place in the order for request `id`. */
  add(id: RequestId | undefined): Place {
    const key = id === undefined ? "" : idKey(id);
    const slot: Slot = {
      id,
      key,
      done: false,
      released: false,
      cancelled: false,
      line: undefined,
      heldAt: 0,
    };
    this.#slots.push(slot);
    if (key !== "") this.#byKey.set(key, slot);
    return slot;
  }

  /** An answer ready now: written at once unless earlier ones are pending. */
  now(line: string, id: RequestId | undefined): void {
    // (The id's key is worked out only when the answer has to wait.)
    if (this.#slots.size === 0) this.#write(line, id);
    else this.complete(this.add(id), line);
  }

  /** The answer for `place` (undefined: none is due). */
  complete(place: Place, line: string | undefined): void {
    const slot = place as Slot;
    if (slot.done) return;
    slot.done = true;
    if (slot.cancelled) line = undefined;
    if (slot.released) {
      this.#forgetKey(slot);
      if (line !== undefined) this.#write(line, slot.id);
      return;
    }
    slot.line = line;
    slot.heldAt = this.#now();
    this.#held++;
    if (line !== undefined) this.#budget?.add(line.length);
    this.#drain();
  }

  /** Request `key` waits on the client: stop holding others behind it. */
  release(key: string): void {
    const slot = this.#byKey.get(key);
    if (slot === undefined || slot.done || slot.released) return;
    slot.released = true;
    this.#drain();
  }

  /**
   * Request `key` was cancelled: nothing is written for it, whether its
   * answer is still to come or ready and held back. Returns whether a
   * place was found.
   */
  cancel(key: string): boolean {
    const slot = this.#byKey.get(key);
    if (slot === undefined) return false;
    slot.cancelled = true;
    if (slot.done) {
      // Held back: drop the answer, keep the (now empty) place.
      if (slot.line !== undefined) this.#budget?.remove(slot.line.length);
      slot.line = undefined;
    } else {
      slot.released = true;
    }
    this.#drain();
    return true;
  }

  /** Stop the timer (the answers still to come are written when ready). */
  close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #forgetKey(slot: Slot): void {
    if (this.#byKey.get(slot.key) === slot) this.#byKey.delete(slot.key);
  }

  #drain(): void {
    for (let head = this.#slots.peek(); head !== undefined;) {
      if (!head.released) {
        if (!head.done) break;
        this.#held--;
        this.#forgetKey(head);
        const line = head.line;
        if (line !== undefined) {
          head.line = undefined;
          this.#budget?.remove(line.length);
          this.#write(line, head.id);
        }
      }
      this.#slots.shift();
      head = this.#slots.peek();
    }
    if (this.#onRoom && this.#slots.size <= this.#onRoom.below) {
      this.#onRoom.resolve();
      this.#onRoom = undefined;
    }
    if (this.#held === 0) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    } else if (this.#timer === undefined && !this.#waitingForLoad) {
      this.#arm(this.#maxWait);
    }
  }

  #arm(ms: number): void {
    // No limit (`maxWaitMs: Infinity`): nothing to time. (A timer of
    // Infinity ms would fire at once, over and over.)
    if (!Number.isFinite(ms)) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#expire();
    }, Math.max(0, ms));
  }

  /** Release what has kept a ready answer waiting for `maxWait`. */
  #expire(): void {
    const loading = this.#loading();
    if (loading !== undefined) {
      // Loading code is a one-time cost that every later answer would
      // have paid anyway: waiting on it keeps transcripts deterministic.
      this.#waitingForLoad = true;
      const resume = () => {
        this.#waitingForLoad = false;
        const now = this.#now();
        for (const slot of this.#slots) if (slot.done) slot.heldAt = now;
        this.#drain();
      };
      loading.then(resume, resume);
      return;
    }
    const now = this.#now();
    // The last answer that has waited long enough: everything pending in
    // front of it loses its place.
    let last = -1;
    let next = Infinity;
    let index = 0;
    for (const slot of this.#slots) {
      if (slot.done && !slot.released) {
        const due = slot.heldAt + this.#maxWait;
        if (due <= now + 1) last = index;
        else next = Math.min(next, due);
      }
      index++;
    }
    index = 0;
    for (const slot of this.#slots) {
      if (index++ >= last) break;
      if (!slot.done) slot.released = true;
    }
    this.#drain();
    // #drain armed a full wait; the oldest answer still held is due sooner.
    if (this.#held > 0 && next !== Infinity) {
      clearTimeout(this.#timer);
      this.#arm(next - now);
    }
  }
}
