/**
 * Framing of newline-delimited JSON: bytes in, one message text per line
 * out. Lines are split as bytes (`../line_stream.ts`) so that each line is
 * decoded on its own: an invalid UTF-8 sequence fails that line alone (a
 * -32700 answer), a line over the cap is skipped without being held whole
 * (a -32600 answer), and a byte order mark before the first line is
 * ignored.
 *
 * The common case, a block of complete lines in valid UTF-8, is decoded in
 * one call and split as text: per-line decoding is the costliest step of a
 * small message.
 *
 * @module
 */

import { ErrorCode } from "../jsonrpc.ts";
import {
  DEFAULT_MAX_LINE_BYTES,
  type Line,
  LineSplitter,
  OversizedLine,
  startsWithBom,
} from "../line_stream.ts";

/** Where a {@linkcode LineDecoder} delivers lines; a subset of a `Receiver`. */
export interface LineSink {
  /** One line's text, line end removed; never empty. */
  receive(text: string): void;
  /** A line that is no message: answer error `code` (id null), in its place. */
  reject(code: number, detail: string): void;
}

/** Options for a {@linkcode LineDecoder}. */
export interface LineDecoderOptions {
  /** Longest accepted line in bytes; default 8 MiB. */
  maxLineBytes?: number;
  /** Called with the length of every line skipped as too long. */
  onOversized?: (bytes: number) => void;
}

/** Turns chunks of bytes into message texts; see the module documentation. */
export class LineDecoder {
  readonly #sink: LineSink;
  readonly #max: number;
  readonly #onOversized: ((bytes: number) => void) | undefined;
  readonly #splitter: LineSplitter;
  readonly #strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  readonly #lenient = new TextDecoder("utf-8", { ignoreBOM: true });
  #first = true;
  // Bound once: the splitter calls them for every chunk.
  readonly #line = (line: Line) => this.#onLine(line);
  readonly #block = (block: Uint8Array) => this.#onBlock(block);

  /** Deliver the lines of what is pushed to `sink`. */
  constructor(sink: LineSink, options: LineDecoderOptions = {}) {
    this.#sink = sink;
    this.#max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.#onOversized = options.onOversized;
    this.#splitter = new LineSplitter({ maxLineBytes: this.#max });
  }

  /** Deliver every line `chunk` completes. */
  push(chunk: Uint8Array): void {
    this.#splitter.push(chunk, this.#line, this.#block);
  }

  /** The input ended: deliver its last line if it had no line end. */
  end(): void {
    this.#splitter.end(this.#line);
  }

  #onLine(line: Line): void {
    if (line instanceof OversizedLine) {
      this.#first = false;
      this.#onOversized?.(line.bytes);
      this.#sink.reject(
        ErrorCode.InvalidRequest,
        `the message is ${line.bytes} bytes long and the limit is ${this.#max} bytes per line; send a smaller message (the server skipped this one).`,
      );
      return;
    }
    if (this.#first) {
      this.#first = false;
      if (startsWithBom(line)) line = line.subarray(3);
    }
    if (line.length === 0) return;
    let text: string;
    try {
      text = this.#strict.decode(line);
    } catch {
      this.#sink.reject(
        ErrorCode.ParseError,
        "the line is not valid UTF-8; send messages as UTF-8 JSON text.",
      );
      return;
    }
    this.#sink.receive(text);
  }

  // If any line in the block is not valid UTF-8, returning false makes the
  // splitter hand the lines over one by one, so that only that line fails.
  #onBlock(block: Uint8Array): boolean {
    // The lenient decoder is several times faster than the strict one; only
    // a block that shows U+FFFD (an invalid sequence, or a real U+FFFD)
    // needs the strict check.
    let text = this.#lenient.decode(block);
    if (text.includes("\uFFFD")) {
      try {
        text = this.#strict.decode(block);
      } catch {
        return false;
      }
    }
    // The block ends with "\n", so the last piece is always empty.
    const lines = text.split("\n");
    const sink = this.#sink;
    for (let i = 0, n = lines.length - 1; i < n; i++) {
      let line = lines[i];
      if (line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
      if (line.length > 0) sink.receive(line);
    }
    return true;
  }
}
