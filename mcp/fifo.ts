/**
 * A first-in first-out queue whose `shift` is O(1): the queues of the
 * connection hold thousands of entries under a flood, and `Array#shift`
 * would move all of them each time.
 *
 * @module
 */

/** A first-in first-out queue whose `shift` does not move the rest. */
export class Fifo<T> {
  #items: (T | undefined)[] = [];
  #head = 0;

  /** How many items are queued. */
  get size(): number {
    return this.#items.length - this.#head;
  }

  /** Add `item` at the back. */
  push(item: T): void {
    this.#items.push(item);
  }

  /** The front item, without removing it. */
  peek(): T | undefined {
    return this.#items[this.#head];
  }

  /** Remove and return the front item. */
  shift(): T | undefined {
    if (this.#head === this.#items.length) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head++] = undefined;
    if (this.#head === this.#items.length) {
      this.#items = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** Every queued item, front first. */
  *[Symbol.iterator](): Iterator<T> {
    for (let i = this.#head; i < this.#items.length; i++) {
      yield this.#items[i] as T;
    }
  }
}
