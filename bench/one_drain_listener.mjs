/**
 * A writable stream as the official SDK's `StdioServerTransport` uses it
 * (`write`, then `once("drain")` when the write was not taken whole), with
 * the same backpressure but one `drain` listener in all.
 *
 * The transport adds a `once("drain")` listener for every message written
 * while the stream is full. When the reader falls behind (the bench's client
 * on a busy machine), tens of thousands pile up, and Node removes each one
 * with a linear search when `drain` fires: quadratic. With 100,000 pings and
 * a reader 3 s late, Node spent some 24 s of CPU after the last response
 * had been written, and the bench killed it for not exiting (137). Here each
 * send still waits for the next `drain`, as the transport intends; the
 * waiters are resolved from one array instead.
 *
 * @module
 */

/** Wraps a stream; hand it to the transport in place of the stream. */
export class OneDrainListener {
  #stream;
  #waiting = [];

  /**
   * Wrap `stream` (say, `process.stdout`).
   *
   * @param {{ write(chunk: string): boolean, on(event: string, listener: () => void): unknown, once(event: string, listener: (...args: unknown[]) => void): unknown }} stream
   */
  constructor(stream) {
    this.#stream = stream;
    stream.on("drain", () => {
      const waiting = this.#waiting;
      this.#waiting = [];
      for (const resolve of waiting) resolve();
    });
  }

  /**
   * Write `chunk`; false when the stream is full (wait for `drain`).
   *
   * @param {string} chunk
   * @returns {boolean}
   */
  write(chunk) {
    return this.#stream.write(chunk);
  }

  /**
   * Call `listener` once on `event`: for `drain`, from the one listener.
   *
   * @param {string} event
   * @param {(...args: unknown[]) => void} listener
   * @returns {this}
   */
  once(event, listener) {
    if (event === "drain") this.#waiting.push(listener);
    else this.#stream.once(event, listener);
    return this;
  }
}
