/**
 * Where the index puts each file's text: {@linkcode Postings} on this
 * thread ({@linkcode LocalTexts}), or a pipe to a second worker that keeps
 * them ({@linkcode PipedTexts} here, {@linkcode servePostings} there).
 *
 * A full build is two jobs of about equal cost on the kernel tree: the
 * walk with its confined opens and reads, and the trigrams of what was
 * read. Piped, they run side by side on two cores. Ids are given here, in
 * the order files are added, exactly as `Postings` gives them, so the
 * index is the same either way; only a file's decoded length (known once
 * its text is decoded, over there) comes back at the end.
 *
 * Batches are a few large buffers passed back and forth by transfer, so
 * what is in flight stays bounded: a reader that outruns the trigrams
 * waits for a buffer to come back.
 *
 * @module
 */

import { decodeText } from "./content.ts";
import { partsBuffers, Postings, type PostingsParts } from "./trigrams.ts";

/** A file's id, and its length in UTF-16 code units as decoded. */
export interface Added {
  /** The id (see {@linkcode Postings}). */
  id: number;
  /**
   * The decoded length; or its length in bytes, to be corrected by
   * {@linkcode TextSink.finish} where the two differ.
   */
  length: number;
}

/** The postings a sink made, and corrections to the lengths it gave. */
export interface Finished {
  /** The postings. */
  postings: Postings;
  /** Decoded lengths by id, where an {@linkcode Added} said otherwise. */
  lengths: Map<number, number>;
}

/** What the index adds files' texts to. */
export interface TextSink {
  /** An id for a file with no postings (a skipped one). */
  addNothing(): number | Promise<number>;
  /** Add a file's text (UTF-8 bytes, used only during the call). */
  addText(bytes: Uint8Array): Added | Promise<Added>;
  /** The postings and corrections (see {@linkcode Finished}); add no more. */
  finish(): Promise<Finished>;
}

/** Add `bytes` to `postings`: the id and the decoded length. */
export function addTextTo(postings: Postings, bytes: Uint8Array): Added {
  const id = postings.addAsciiBytes(bytes);
  if (id !== -1) return { id, length: bytes.length };
  const text = decodeText(bytes);
  return { id: postings.addText(text), length: text.length };
}

/** Texts added to postings on this thread. */
export class LocalTexts implements TextSink {
  readonly #postings: Postings;

  /** Add to `postings`. */
  constructor(postings: Postings) {
    this.#postings = postings;
  }

  /** See {@linkcode TextSink.addNothing}. */
  addNothing(): number {
    return this.#postings.addNothing();
  }

  /** See {@linkcode TextSink.addText}. */
  addText(bytes: Uint8Array): Added {
    return addTextTo(this.#postings, bytes);
  }

  /** See {@linkcode TextSink.finish}. */
  finish(): Promise<Finished> {
    return Promise.resolve({ postings: this.#postings, lengths: new Map() });
  }
}

/** Bytes of a batch buffer. */
export const BATCH_BYTES = 1 << 22;
/** Batch buffers in flight, at most. */
export const BATCHES = 4;

// A record: its length in bytes (int32, little-endian; -1 for a file with
// no postings), then its bytes. Ids follow from the order.
const RECORD_HEADER = 4;

/** What the reading side posts to the postings worker. */
export type PipeMessage =
  | { batch: ArrayBuffer; used: number }
  | { finish: true };

/** What the postings worker posts back. */
export type PipeReply =
  | { serving: true }
  | { free: ArrayBuffer }
  | { done: PostingsParts; lengths: Int32Array }
  | { error: string };

/** The port of a worker, as both ends see it. */
export interface Port {
  /** Post `message`, transferring `transfer`. */
  postMessage(message: unknown, transfer?: Transferable[]): void;
  /** Set to receive. */
  onmessage: ((event: MessageEvent) => void) | null;
}

/**
 * Texts piped to a postings worker (see the module's note) through
 * `port`, whose other end {@linkcode servePostings} serves.
 */
export class PipedTexts implements TextSink {
  readonly #port: Port;
  readonly #free: ArrayBuffer[] = [];
  #waiting: (() => void) | undefined;
  #batch = new Uint8Array(new ArrayBuffer(BATCH_BYTES));
  #view = new DataView(this.#batch.buffer);
  #used = 0;
  #nextId = 0;
  #failure: Error | undefined;
  #done: PromiseWithResolvers<Finished> | undefined;
  readonly #serving = Promise.withResolvers<void>();

  /** Pipe to the worker at `port` (its messages are this object's now). */
  constructor(port: Port) {
    this.#port = port;
    this.#serving.promise.catch(() => {});
    for (let i = 1; i < BATCHES; i++) {
      this.#free.push(new ArrayBuffer(BATCH_BYTES));
    }
    port.onmessage = (event: MessageEvent<PipeReply>) =>
      this.#reply(event.data);
  }

  /**
   * Resolves once the worker serves, rejects if it fails first: a reader
   * that went on without waiting could fill every batch before the worker
   * has begun, and then only wait.
   */
  serving(): Promise<void> {
    return this.#serving.promise;
  }

  #reply(reply: PipeReply): void {
    if ("serving" in reply) {
      this.#serving.resolve();
    } else if ("free" in reply) {
      this.#free.push(reply.free);
    } else if ("done" in reply) {
      const lengths = new Map<number, number>();
      for (let i = 0; i + 1 < reply.lengths.length; i += 2) {
        lengths.set(reply.lengths[i], reply.lengths[i + 1]);
      }
      this.#done?.resolve({ postings: new Postings(reply.done), lengths });
    } else {
      this.#failure ??= new Error(
        `the postings worker failed: ${reply.error}`,
      );
      this.#done?.reject(this.#failure);
      this.#serving.reject(this.#failure);
    }
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.();
  }

  /** See {@linkcode TextSink.addNothing}. */
  async addNothing(): Promise<number> {
    await this.#room(0);
    this.#view.setInt32(this.#used, -1, true);
    this.#used += RECORD_HEADER;
    return this.#nextId++;
  }

  /** See {@linkcode TextSink.addText}. */
  async addText(bytes: Uint8Array): Promise<Added> {
    const length = bytes.length;
    if (RECORD_HEADER + length > BATCH_BYTES) {
      // A text larger than a batch: a batch of its own, after the others.
      await this.#room(BATCH_BYTES);
      const own = new Uint8Array(RECORD_HEADER + length);
      new DataView(own.buffer).setInt32(0, length, true);
      own.set(bytes, RECORD_HEADER);
      this.#post(own.buffer, own.length);
      return { id: this.#nextId++, length };
    }
    await this.#room(length);
    this.#view.setInt32(this.#used, length, true);
    this.#batch.set(bytes, this.#used + RECORD_HEADER);
    this.#used += RECORD_HEADER + length;
    return { id: this.#nextId++, length };
  }

  // Room in the batch for a record of `length` bytes: when it has none,
  // send it and wait for a free buffer.
  async #room(length: number): Promise<void> {
    if (this.#failure !== undefined) throw this.#failure;
    if (this.#used + RECORD_HEADER + length <= BATCH_BYTES) return;
    this.#sendBatch();
    while (this.#free.length === 0) {
      if (this.#failure !== undefined) throw this.#failure;
      const { promise, resolve } = Promise.withResolvers<void>();
      this.#waiting = resolve;
      await promise;
    }
    if (this.#failure !== undefined) throw this.#failure;
    const buffer = this.#free.pop()!;
    this.#batch = new Uint8Array(buffer);
    this.#view = new DataView(buffer);
    this.#used = 0;
  }

  // Send the batch being filled, if it holds anything (its buffer goes
  // with it).
  #sendBatch(): void {
    if (this.#used === 0) return;
    this.#post(this.#batch.buffer as ArrayBuffer, this.#used);
    this.#batch = new Uint8Array(0);
  }

  #post(buffer: ArrayBuffer, used: number): void {
    this.#port.postMessage(
      { batch: buffer, used } satisfies PipeMessage,
      [buffer],
    );
    this.#used = 0;
  }

  /** See {@linkcode TextSink.finish}. */
  finish(): Promise<Finished> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    this.#done = Promise.withResolvers();
    this.#sendBatch();
    this.#port.postMessage({ finish: true } satisfies PipeMessage);
    return this.#done.promise;
  }
}

/**
 * Serve as the postings worker on `port` (the other end's is the
 * reader's {@linkcode PipedTexts}): add each batch's texts to postings,
 * hand each buffer back, and post the postings (by transfer) and the
 * corrected lengths on `finish`.
 */
export function servePostings(port: Port): void {
  const postings = new Postings();
  // Pairs of id and decoded length, where it is not the length in bytes.
  let lengths = new Int32Array(1024);
  let pairs = 0;
  port.postMessage({ serving: true } satisfies PipeReply);
  port.onmessage = (event: MessageEvent<PipeMessage>) => {
    const message = event.data;
    try {
      if ("batch" in message) {
        const bytes = new Uint8Array(message.batch, 0, message.used);
        const view = new DataView(message.batch);
        for (let at = 0; at < message.used;) {
          const length = view.getInt32(at, true);
          at += RECORD_HEADER;
          if (length < 0) {
            postings.addNothing();
            continue;
          }
          const added = addTextTo(postings, bytes.subarray(at, at + length));
          at += length;
          if (added.length !== length) {
            if (pairs + 2 > lengths.length) {
              const grown = new Int32Array(lengths.length * 2);
              grown.set(lengths);
              lengths = grown;
            }
            lengths[pairs++] = added.id;
            lengths[pairs++] = added.length;
          }
        }
        // Pool buffers go back to be filled again; a text's own does not.
        if (message.batch.byteLength === BATCH_BYTES) {
          port.postMessage(
            { free: message.batch } satisfies PipeReply,
            [message.batch],
          );
        }
      } else if ("finish" in message) {
        const parts = postings.parts();
        const corrected = lengths.slice(0, pairs);
        port.postMessage(
          { done: parts, lengths: corrected } satisfies PipeReply,
          [...partsBuffers(parts), corrected.buffer],
        );
      }
    } catch (error) {
      port.postMessage(
        {
          error: String(error instanceof Error ? error.stack : error),
        } satisfies PipeReply,
      );
    }
  };
}
