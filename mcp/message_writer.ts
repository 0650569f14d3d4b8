/**
 * Writes whole messages to a byte stream, one `\n`-terminated line each.
 * Messages queued while a write is under way go out together in the next
 * write (up to a batch size), so no message is ever split across writers or
 * interleaved with another, and a flood of small answers costs few writes.
 *
 * @module
 */

import { idKey, type RequestId } from "./jsonrpc.ts";
import type { OutputBudget } from "./output_budget.ts";
import { writeAll } from "./write_all.ts";

/** Something bytes can be written to, such as `Deno.stdout`. */
export interface ByteWriter {
  /** Write some of `bytes`; resolves to how many were written. */
  write(bytes: Uint8Array): Promise<number>;
}

/**
 * Characters gathered into one write. A batch is encoded as one buffer, so
 * this bounds the bytes copied at a time; a single longer message still
 * goes out whole, in one buffer of its own.
 */
const BATCH_CHARS = 64 * 1024;

/** A queue of outgoing messages in front of a {@linkcode ByteWriter}. */
export class MessageWriter {
  readonly #output: ByteWriter;
  readonly #budget: OutputBudget | undefined;
  readonly #encoder = new TextEncoder();
  // Two parallel arrays rather than an object per message: this is the path
  // every answer takes. A dropped message leaves "" in its place.
  #lines: string[] = [];
  #ids: (RequestId | undefined)[] = [];
  #dropped = 0;
  /** Characters queued and not taken for writing yet. */
  #queuedChars = 0;
  /** Characters taken for the write under way. */
  #writingChars = 0;
  #writing: Promise<void> | undefined;
  #written = 0;
  /** Set once the other end stopped reading; nothing is written after. */
  broken = false;
  /** Called once when the output breaks, so reading can stop at once. */
  onBroken: (() => void) | undefined;

  /**
   * Write to `output`. Queued characters are counted in `budget`, when
   * given, until they are written.
   */
  constructor(output: ByteWriter, budget?: OutputBudget) {
    this.#output = output;
    this.#budget = budget;
  }

  /** Characters queued or being written, not yet handed to the output. */
  get backlog(): number {
    return this.#queuedChars + this.#writingChars;
  }

  /** How many writes have completed: grows while the client reads. */
  get progress(): number {
    return this.#written;
  }

  /**
   * Queue one message. `id` names the request it answers, so that
   * {@linkcode MessageWriter.drop} can take it back until it is written.
   */
  write(line: string, id?: RequestId): void {
    if (this.broken) return;
    this.#lines.push(line);
    this.#ids.push(id);
    this.#queuedChars += line.length;
    this.#budget?.add(line.length);
    // Start writing once the current task is done, so that every response
    // produced from one input chunk leaves in a single write.
    this.#writing ??= Promise.resolve().then(() => this.#flush());
  }

  /**
   * Take back the queued answer to the request whose `idKey` is `key`, if
   * it is not being written yet. Returns whether one was dropped.
   */
  drop(key: string): boolean {
    // Rare (a cancellation), so the keys are worked out here, not per write.
    let at = -1;
    for (let i = 0; i < this.#ids.length; i++) {
      const id = this.#ids[i];
      if (id !== undefined && this.#lines[i] !== "" && idKey(id) === key) {
        at = i;
        break;
      }
    }
    if (at < 0) return false;
    const chars = this.#lines[at].length;
    this.#lines[at] = "";
    this.#dropped++;
    this.#queuedChars -= chars;
    this.#budget?.remove(chars);
    return true;
  }

  /** Resolves when everything queued so far is written (or cannot be). */
  async idle(): Promise<void> {
    while (this.#writing) await this.#writing;
  }

  /** The next batch of queued lines as one text; counts it as being written. */
  #take(): string {
    let batch: string[];
    if (this.#queuedChars <= BATCH_CHARS) {
      // The usual case: everything queued fits one batch.
      batch = this.#lines;
      this.#lines = [];
      this.#ids = [];
      this.#writingChars = this.#queuedChars;
    } else {
      // A long message is not glued to what came before it: it would only
      // copy that into a larger buffer.
      let chars = this.#lines[0].length;
      let n = 1;
      while (
        n < this.#lines.length && chars + this.#lines[n].length <= BATCH_CHARS
      ) chars += this.#lines[n++].length;
      batch = this.#lines.splice(0, n);
      this.#ids.splice(0, n);
      this.#writingChars = chars;
    }
    this.#queuedChars -= this.#writingChars;
    if (this.#dropped > 0) {
      batch = batch.filter((line) => line !== "");
      this.#dropped = this.#lines.reduce((n, l) => l === "" ? n + 1 : n, 0);
    }
    if (batch.length === 0) return "";
    return batch.length === 1 ? batch[0] + "\n" : batch.join("\n") + "\n";
  }

  async #flush(): Promise<void> {
    try {
      while (this.#lines.length > 0 && !this.broken) {
        const text = this.#take();
        if (text !== "") {
          await writeAll(this.#output, this.#encoder.encode(text));
          this.#written++;
        }
        this.#budget?.remove(this.#writingChars);
        this.#writingChars = 0;
      }
    } catch {
      // The client closed our output: there is no one left to talk to.
      this.broken = true;
      this.#budget?.remove(this.#queuedChars + this.#writingChars);
      this.#lines = [];
      this.#ids = [];
      this.#queuedChars = 0;
      this.#writingChars = 0;
      this.onBroken?.();
    } finally {
      this.#writing = undefined;
    }
  }
}
