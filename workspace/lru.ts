/**
 * A small least-recently-used map with a bound on entries and on their
 * total weight, so caches keyed by client input cannot grow without limit.
 *
 * @module
 */

/** A map that forgets its least recently used entries past its bounds. */
export class Lru<K, V> {
  readonly #map = new Map<K, { value: V; weight: number }>();
  readonly #maxEntries: number;
  readonly #maxWeight: number;
  #weight = 0;

  /** At most `maxEntries` entries, of total weight at most `maxWeight`. */
  constructor(maxEntries: number, maxWeight = Infinity) {
    this.#maxEntries = maxEntries;
    this.#maxWeight = maxWeight;
  }

  /** Entries held. */
  get size(): number {
    return this.#map.size;
  }

  /** Total weight held. */
  get weight(): number {
    return this.#weight;
  }

  /** The value of `key` (now the most recently used), or undefined. */
  get(key: K): V | undefined {
    const slot = this.#map.get(key);
    if (slot === undefined) return undefined;
    this.#map.delete(key);
    this.#map.set(key, slot);
    return slot.value;
  }

  /** Set `key`; an entry heavier than the whole bound is not kept. */
  set(key: K, value: V, weight = 1): void {
    this.delete(key);
    if (weight > this.#maxWeight) return;
    this.#map.set(key, { value, weight });
    this.#weight += weight;
    for (const [oldest, slot] of this.#map) {
      if (
        this.#map.size <= this.#maxEntries && this.#weight <= this.#maxWeight
      ) break;
      this.#map.delete(oldest);
      this.#weight -= slot.weight;
    }
  }

  /** Forget `key`. */
  delete(key: K): void {
    const slot = this.#map.get(key);
    if (slot === undefined) return;
    this.#map.delete(key);
    this.#weight -= slot.weight;
  }
}
