/**
 * Standard input read with `Deno.stdin.read`, chunk by chunk, behind the
 * reader interface a {@linkcode ReadableStream} gives: the chunks
 * `Deno.stdin.readable` would give, without loading Deno's web streams on
 * the way to the first message. Measured here, getting a reader of
 * `Deno.stdin.readable` and its first read cost about 10 ms of start-up;
 * `Deno.stdin.read` under 1 ms.
 *
 * @module
 */

/** What a reader of byte chunks offers: a stream's reader, or this one. */
export interface ChunkReader {
  /** The next chunk, or `done` at the end of the input. */
  read(): Promise<ReadableStreamReadResult<Uint8Array>>;
  /** Stop reading: a pending read ends, and later ones are `done`. */
  cancel(): Promise<void>;
  /** Give the input up (nothing to do here). */
  releaseLock(): void;
}

/** Bytes a read asks for, as `Deno.stdin.readable` does. */
export const STDIN_CHUNK_BYTES = 64 * 1024;

/** A {@linkcode ChunkReader} of `input` (default `Deno.stdin`). */
export function stdinReader(
  input: Pick<typeof Deno.stdin, "read" | "close"> = Deno.stdin,
): ChunkReader {
  let done = false;
  return {
    async read() {
      if (done) return { done: true, value: undefined };
      // A buffer of its own per chunk: chunks are kept while reading is
      // paused (see PacedReader's read-ahead).
      const buffer = new Uint8Array(STDIN_CHUNK_BYTES);
      let read: number | null;
      try {
        read = await input.read(buffer);
      } catch (error) {
        // Closed by cancel: the end, as a cancelled stream reads.
        if (done) return { done: true, value: undefined };
        throw error;
      }
      if (read === null) {
        done = true;
        return { done: true, value: undefined };
      }
      return { done: false, value: buffer.subarray(0, read) };
    },
    cancel() {
      if (!done) {
        done = true;
        // Closing stdin ends a read still pending, as cancelling
        // `Deno.stdin.readable` does.
        try {
          input.close();
        } catch {
          // Closed already.
        }
      }
      return Promise.resolve();
    },
    releaseLock() {},
  };
}
