/**
 * Newline framing for a byte stream: `\n` and `\r\n` line ends, a final line
 * without a newline, and a cap on line length that skips an oversized line
 * without ever holding it whole ({@linkcode LineSplitter}); then one message
 * text per line ({@linkcode LineDecoder}).
 *
 * It splits bytes rather than decoded text so that each line can be decoded
 * on its own: an invalid UTF-8 sequence then fails that one line (a -32700
 * answer) instead of being silently replaced or failing the whole stream; a
 * line over the cap is a -32600 answer; a byte order mark before the first
 * line is ignored. The common case, a block of complete lines in valid
 * UTF-8, is decoded in one call and split as text: per-line decoding is the
 * costliest step of a small message.
 *
 * @module
 */

import { ErrorCode } from "./jsonrpc.ts";

/** Default cap on one line: 8 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024;

/** Stands in for a line that was longer than the cap; its bytes are gone. */
export class OversizedLine {
  /** How many bytes the line had (without its line end). */
  readonly bytes: number;
  /** Make a marker for a dropped line of `bytes` bytes. */
  constructor(bytes: number) {
    this.bytes = bytes;
  }
}

/** One framed line: its bytes, or a marker when it was too long. */
export type Line = Uint8Array | OversizedLine;

/** Options for a {@linkcode LineSplitter}. */
export interface LineOptions {
  /** Lines longer than this many bytes become {@linkcode OversizedLine}. */
  maxLineBytes?: number;
}

const LF = 10;
const CR = 13;

/**
 * Incremental line splitter: feed chunks with {@linkcode LineSplitter.push},
 * then call {@linkcode LineSplitter.end} once at end of input.
 */
export class LineSplitter {
  readonly #max: number;
  #parts: Uint8Array[] = [];
  #pending = 0;
  /** Bytes seen of a line already known to be too long; -1 when none. */
  #skipped = -1;
  /** Whether the last byte skipped so far was `\r` (maybe a `\r\n` split). */
  #skippedCr = false;

  /** Make a splitter with the given cap. */
  constructor(options: LineOptions = {}) {
    this.#max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  }

  /**
   * Split `chunk`, calling `emit` for every line it completes.
   *
   * With `emitBlock`, the complete lines after the chunk's first line end
   * are offered as one block instead (the bytes up to and including the
   * chunk's last `\n`; each line in it within the cap). When `emitBlock`
   * returns false the splitter emits those lines one by one after all, so a
   * caller can take the common case in bulk and still fall back per line.
   */
  push(
    chunk: Uint8Array,
    emit: (line: Line) => void,
    emitBlock?: (block: Uint8Array) => boolean,
  ): void {
    let start = 0;
    if (emitBlock !== undefined) {
      const first = chunk.indexOf(LF);
      if (first < 0) {
        this.#hold(chunk);
        return;
      }
      this.#finish(chunk.subarray(0, first), emit);
      start = first + 1;
      const last = chunk.lastIndexOf(LF);
      // No line in the block is longer than the block without its last `\n`.
      if (
        last >= start && last - start <= this.#max &&
        emitBlock(chunk.subarray(start, last + 1))
      ) {
        start = last + 1;
      }
    }
    while (start <= chunk.length) {
      const end = chunk.indexOf(LF, start);
      if (end < 0) {
        this.#hold(chunk.subarray(start));
        return;
      }
      this.#finish(chunk.subarray(start, end), emit);
      start = end + 1;
    }
  }

  /** Flush the last line, if the input did not end with a newline. */
  end(emit: (line: Line) => void): void {
    if (this.#pending > 0 || this.#skipped >= 0) {
      this.#finish(new Uint8Array(0), emit);
    }
  }

  #hold(part: Uint8Array): void {
    if (part.length === 0) return;
    if (this.#skipped >= 0) {
      this.#skipped += part.length;
      this.#skippedCr = endsWithCr(part);
      return;
    }
    if (this.#pending + part.length > this.#max + 1) {
      // One byte of slack leaves room for a `\r` before the `\n`.
      this.#skipped = this.#pending + part.length;
      this.#skippedCr = endsWithCr(part);
      this.#parts = [];
      this.#pending = 0;
      return;
    }
    // Copy: the reader may reuse the chunk's buffer.
    this.#parts.push(part.slice());
    this.#pending += part.length;
  }

  #finish(tail: Uint8Array, emit: (line: Line) => void): void {
    if (this.#skipped >= 0) {
      const total = this.#skipped + tail.length;
      // The line end's `\r` is not part of the line, wherever the chunk
      // boundary fell.
      const cr = tail.length > 0 ? endsWithCr(tail) : this.#skippedCr;
      this.#skipped = -1;
      emit(new OversizedLine(total - (cr ? 1 : 0)));
      return;
    }
    let line: Uint8Array;
    if (this.#pending === 0) {
      line = tail;
    } else {
      line = new Uint8Array(this.#pending + tail.length);
      let at = 0;
      for (const part of this.#parts) {
        line.set(part, at);
        at += part.length;
      }
      line.set(tail, at);
      this.#parts = [];
      this.#pending = 0;
    }
    if (endsWithCr(line)) line = line.subarray(0, line.length - 1);
    if (line.length > this.#max) emit(new OversizedLine(line.length));
    else emit(line);
  }
}

function endsWithCr(bytes: Uint8Array): boolean {
  return bytes.length > 0 && bytes[bytes.length - 1] === CR;
}

const UTF8_BOM = [0xef, 0xbb, 0xbf];

/** Whether `bytes` starts with a UTF-8 byte order mark. */
export function startsWithBom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === UTF8_BOM[0] &&
    bytes[1] === UTF8_BOM[1] && bytes[2] === UTF8_BOM[2];
}

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
