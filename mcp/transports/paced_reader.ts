/**
 * Backpressure on input: a reader of a byte stream that can pause. While
 * paused it still reads a little ahead (kept for later), so that the end
 * of input is seen even when the client never reads the server's output:
 * the server must not outlive its client. Once the input has ended behind
 * a pause, the pause lasts only as long as the output keeps moving.
 *
 * @module
 */

import {
  DEFAULT_DRAIN_TIMEOUT_MS,
  DRAIN_TICK_MS,
  sleep,
} from "../connection.ts";
import { Fifo } from "../fifo.ts";
import type { ChunkReader } from "./stdin_reader.ts";

/**
 * Input read ahead (kept for later) while reading is paused, to notice the
 * end of input: about one chunk. More costs memory in every flood (chunks
 * read early are held until their turn); a client that sends more than this
 * beyond the pause and then never reads is waited for, as its input is
 * still open as far as the server can tell.
 */
export const READ_AHEAD_BYTES = 64 * 1024;

/** Options for a {@linkcode PacedReader}. */
export interface PacedReaderOptions {
  /** Bytes read ahead while paused; default {@linkcode READ_AHEAD_BYTES}. */
  readAheadBytes?: number;
  /**
   * Once the input has ended during a pause, how long the output may make
   * no progress before the pause gives up (and the reader is abandoned);
   * default 5,000 ms.
   */
  drainTimeoutMs?: number;
  /** A count that grows while the client reads the output. */
  progress?: () => number;
}

/** A paced reader of one byte stream; see the module documentation. */
export class PacedReader {
  readonly #reader: ChunkReader;
  readonly #readAhead: number;
  readonly #drainTimeout: number;
  readonly #progress: () => number;
  readonly #ahead = new Fifo<Uint8Array>();
  #aheadBytes = 0;
  #ended = false;
  #readError: unknown;
  #pendingRead: Promise<void> | undefined;
  #paused = false;
  /** Wakes a pause early (a stop, or the end of input). */
  #wake: (() => void) | undefined;
  #stopped = false;
  #released = false;
  #abandoned = false;

  /**
   * Read `input`, a stream (locked until {@linkcode PacedReader.release})
   * or a reader of chunks.
   */
  constructor(
    input: ReadableStream<Uint8Array> | ChunkReader,
    options: PacedReaderOptions = {},
  ) {
    this.#reader = input instanceof ReadableStream ? input.getReader() : input;
    this.#readAhead = options.readAheadBytes ?? READ_AHEAD_BYTES;
    this.#drainTimeout = options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
    this.#progress = options.progress ?? (() => 0);
  }

  /** Whether {@linkcode PacedReader.stop} was called. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /**
   * Whether a pause gave up: the input ended and the output then made no
   * progress for the drain timeout.
   */
  get abandoned(): boolean {
    return this.#abandoned;
  }

  /** Bytes read ahead and not yet taken. */
  get aheadBytes(): number {
    return this.#aheadBytes;
  }

  /**
   * The next chunk, or undefined at the end of input. Throws what reading
   * the stream threw, once the chunks read before it are taken.
   */
  async next(): Promise<Uint8Array | undefined> {
    for (;;) {
      const chunk = this.#ahead.shift();
      if (chunk !== undefined) {
        this.#aheadBytes -= chunk.length;
        return chunk;
      }
      if (this.#readError !== undefined) throw this.#readError;
      if (this.#ended) return undefined;
      await this.#readOne();
    }
  }

  /**
   * Wait for `until` unless reading stops first, reading ahead meanwhile;
   * once the input has ended, give up (see
   * {@linkcode PacedReader.abandoned}) when the output makes no progress
   * for the drain timeout.
   */
  async pause(until: Promise<void>): Promise<void> {
    // One promise per pause, woken by `until`, a stop or the end of input:
    // racing long-lived stop and end promises instead would leave a
    // reaction on them per pause, thousands under a flood.
    if (this.#stopped || this.#abandoned) return;
    let resumed = false;
    const woken = Promise.withResolvers<void>();
    const resume = until.then(() => {
      resumed = true;
      woken.resolve();
    });
    this.#wake = woken.resolve;
    if (this.#ended) woken.resolve();
    this.#paused = true;
    this.#readAheadWhilePaused();
    await woken.promise;
    this.#wake = undefined;
    if (!resumed && !this.#stopped) {
      // The input ended while the client does not read: wait as long as
      // the output moves.
      let progress = this.#progress();
      let lastMove = performance.now();
      while (!resumed) {
        const tick = sleep(DRAIN_TICK_MS);
        await Promise.race([resume, tick.promise]);
        tick.cancel();
        if (resumed) break;
        const now = performance.now();
        if (this.#progress() !== progress) {
          progress = this.#progress();
          lastMove = now;
        } else if (now - lastMove >= this.#drainTimeout) {
          this.#abandoned = true;
          break;
        }
      }
    }
    this.#paused = false;
  }

  /** Stop reading now: wakes a pause, cancels the stream. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#wake?.();
    if (!this.#released) this.#reader.cancel().catch(() => {});
  }

  /** Done reading: cancel the stream unless stopped, and unlock it. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    if (!this.#stopped) this.#reader.cancel().catch(() => {});
    this.#reader.releaseLock();
  }

  #end(): void {
    this.#ended = true;
    this.#wake?.();
  }

  /** Read one chunk into the read-ahead (or note the end); one at a time. */
  #readOne(): Promise<void> {
    return this.#pendingRead ??= this.#reader.read().then(
      ({ value, done }) => {
        if (done) this.#end();
        else {
          this.#ahead.push(value);
          this.#aheadBytes += value.length;
        }
      },
      (error) => {
        this.#readError ??= error;
        this.#end();
      },
    ).finally(() => this.#pendingRead = undefined);
  }

  async #readAheadWhilePaused(): Promise<void> {
    while (
      this.#paused && !this.#ended && !this.#stopped &&
      this.#aheadBytes < this.#readAhead
    ) {
      await this.#readOne();
    }
  }
}
