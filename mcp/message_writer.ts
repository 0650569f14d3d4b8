/**
 * Writes whole messages to a byte stream, one `\n`-terminated line each.
 * Messages queued while a write is under way go out together in the next
 * write (up to a batch size), so no message is ever split across writers or
 * interleaved with another, and a flood of small answers costs few writes.
 *
 * @module
 */

import { Fifo } from "./fifo.ts";
import type { OutputBudget } from "./output_budget.ts";

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

interface Queued {
  line: string | undefined;
  readonly key: string;
}

/** A queue of outgoing messages in front of a {@linkcode ByteWriter}. */
export class MessageWriter {
  readonly #output: ByteWriter;
  readonly #budget: OutputBudget | undefined;
  readonly #encoder = new TextEncoder();
  #queue = new Fifo<Queued>();
  #queuedChars = 0;
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

  /** Characters queued and not yet handed to the output. */
  get backlog(): number {
    return this.#queuedChars;
  }

  /** How many writes have completed: grows while the client reads. */
  get progress(): number {
    return this.#written;
  }

  /**
   * Queue one message. `key` names the request it answers, so that
   * {@linkcode MessageWriter.drop} can take it back until it is written.
   */
  write(line: string, key = ""): void {
    if (this.broken) return;
    this.#queue.push({ line, key });
    this.#queuedChars += line.length;
    this.#budget?.add(line.length);
    // Start writing once the current task is done, so that every response
    // produced from one input chunk leaves in a single write.
    this.#writing ??= Promise.resolve().then(() => this.#flush());
  }

  /**
   * Take back the queued answer to request `key`, if it is not being
   * written yet. Returns whether one was dropped.
   */
  drop(key: string): boolean {
    if (key === "") return false;
    for (const entry of this.#queue) {
      if (entry.key === key && entry.line !== undefined) {
        this.#forget(entry.line.length);
        entry.line = undefined;
        return true;
      }
    }
    return false;
  }

  /** Resolves when everything queued so far is written (or cannot be). */
  async idle(): Promise<void> {
    while (this.#writing) await this.#writing;
  }

  #forget(chars: number): void {
    this.#queuedChars -= chars;
    this.#budget?.remove(chars);
  }

  /** The next batch of queued lines as one text, and its characters. */
  #take(): [string, number] {
    let text = "";
    let chars = 0;
    while (this.#queue.size > 0 && (chars === 0 || chars < BATCH_CHARS)) {
      const entry = this.#queue.peek()!;
      const line = entry.line;
      if (line !== undefined) {
        // A long message is not glued to what came before it: it would
        // only copy that into a larger buffer.
        if (chars > 0 && chars + line.length > BATCH_CHARS) break;
        text += line + "\n";
        chars += line.length;
      }
      this.#queue.shift();
    }
    return [text, chars];
  }

  async #flush(): Promise<void> {
    try {
      while (this.#queue.size > 0 && !this.broken) {
        const [text, chars] = this.#take();
        if (text === "") continue;
        let bytes = this.#encoder.encode(text);
        while (bytes.length > 0) {
          bytes = bytes.subarray(await this.#output.write(bytes));
        }
        this.#written++;
        this.#forget(chars);
      }
    } catch {
      // The client closed our output: there is no one left to talk to.
      this.broken = true;
      this.#queue = new Fifo();
      this.#budget?.remove(this.#queuedChars);
      this.#queuedChars = 0;
      this.onBroken?.();
    } finally {
      this.#writing = undefined;
    }
  }
}
