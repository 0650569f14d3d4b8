/**
 * The stdio transport: newline-delimited JSON-RPC on a byte stream in and a
 * byte stream out, one session per connection.
 *
 * Requests are dispatched as they arrive, so the reader never waits on a
 * handler. Responses still leave in request order, so that transcripts are
 * deterministic; a handler that starts waiting on the client stops holding
 * later responses back.
 *
 * @module
 */

import {
  decode,
  encodeError,
  ErrorCode,
  idKey,
  type IncomingMessage,
} from "../jsonrpc.ts";
import {
  DEFAULT_MAX_LINE_BYTES,
  type Line,
  LineSplitter,
  OversizedLine,
  startsWithBom,
} from "../line_stream.ts";
import type { DispatchResult, McpServer } from "../server.ts";
import { Session } from "../session.ts";

/** Something bytes can be written to, such as `Deno.stdout`. */
export interface ByteWriter {
  /** Write some of `bytes`; resolves to how many were written. */
  write(bytes: Uint8Array): Promise<number>;
}

/** Options for {@linkcode serveStdio}. */
export interface StdioOptions {
  /** Where messages come from; default `Deno.stdin.readable`. */
  input?: ReadableStream<Uint8Array>;
  /** Where messages go; default `Deno.stdout`. */
  output?: ByteWriter;
  /** Longest accepted line in bytes; default 8 MiB. */
  maxLineBytes?: number;
  /** Stop reading when aborted, then finish as at end of input. */
  signal?: AbortSignal;
  /** Called with the session once it exists (to attach watchers and such). */
  onSession?: (session: Session) => void;
}

/** Requests handled at once on one connection; more wait their turn. */
const MAX_CONCURRENT_REQUESTS = 64;

/**
 * Responses held back (requests waiting or running, and answers waiting
 * for an earlier one) at which reading pauses until half have gone out.
 */
const MAX_HELD_RESPONSES = 4096;

/** A first-in first-out queue whose shift does not move the rest. */
class Queue<T> {
  #items: (T | undefined)[] = [];
  #head = 0;

  get size(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  peek(): T | undefined {
    return this.#items[this.#head];
  }

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
}

/**
 * Unwritten output beyond which the reader pauses until the client reads.
 * Small on purpose: a client that sends faster than it reads should not
 * make the server hold megabytes of answers. In `deno task bench`, 64 Ki
 * chars keeps the throughput of a larger buffer at a lower peak memory.
 */
const HIGH_WATER_CHARS = 64 * 1024;

/**
 * Writes whole messages, one `\n`-terminated line each. Messages queued
 * while a write is under way go out together in the next write, so no
 * message is ever split or interleaved with another.
 */
class MessageWriter {
  readonly #output: ByteWriter;
  readonly #encoder = new TextEncoder();
  #queue: string[] = [];
  #queuedChars = 0;
  #writing: Promise<void> | undefined;
  /** Set once the other end stopped reading; nothing is written after. */
  broken = false;
  /** Called once when the output breaks, so reading can stop at once. */
  onBroken: (() => void) | undefined;

  constructor(output: ByteWriter) {
    this.#output = output;
  }

  get backlog(): number {
    return this.#queuedChars;
  }

  write(line: string): void {
    if (this.broken) return;
    this.#queue.push(line);
    this.#queuedChars += line.length;
    // Start writing once the current task is done, so that every response
    // produced from one input chunk leaves in a single write.
    this.#writing ??= Promise.resolve().then(() => this.#flush());
  }

  /** Resolves when everything queued so far is written (or cannot be). */
  async idle(): Promise<void> {
    while (this.#writing) await this.#writing;
  }

  async #flush(): Promise<void> {
    try {
      while (this.#queue.length > 0 && !this.broken) {
        const text = this.#queue.length === 1
          ? this.#queue[0] + "\n"
          : this.#queue.join("\n") + "\n";
        this.#queue = [];
        this.#queuedChars = 0;
        let bytes = this.#encoder.encode(text);
        while (bytes.length > 0) {
          bytes = bytes.subarray(await this.#output.write(bytes));
        }
      }
    } catch {
      // The client closed our stdout: there is no one left to talk to.
      this.broken = true;
      this.#queue = [];
      this.#queuedChars = 0;
      this.onBroken?.();
    } finally {
      this.#writing = undefined;
    }
  }
}

interface Slot {
  key: string;
  done: boolean;
  /** Taken out of the order: written as soon as it is done. */
  released: boolean;
  line: string | undefined;
}

/** Keeps responses in request order; see the module documentation. */
class OrderedResponses {
  readonly #writer: MessageWriter;
  readonly #slots = new Queue<Slot>();
  /** Slots not done yet, by request key, for {@linkcode release}. */
  readonly #open = new Map<string, Slot>();
  readonly #pending = new Set<Promise<void>>();
  #onRoom: (() => void) | undefined;

  constructor(writer: MessageWriter) {
    this.#writer = writer;
  }

  /** How many responses are held back, in order. */
  get size(): number {
    return this.#slots.size;
  }

  /** Resolves once at most half of MAX_HELD_RESPONSES are held. */
  room(): Promise<void> {
    return new Promise((resolve) => this.#onRoom = resolve);
  }

  now(line: string): void {
    if (this.#slots.size === 0) this.#writer.write(line);
    else this.#slots.push({ key: "", done: true, released: false, line });
  }

  later(response: Promise<string | undefined>, key: string): void {
    const slot: Slot = { key, done: false, released: false, line: undefined };
    this.#slots.push(slot);
    if (key !== "") this.#open.set(key, slot);
    const settled = response.then((line) => {
      slot.line = line;
      slot.done = true;
      if (this.#open.get(key) === slot) this.#open.delete(key);
      if (!slot.released) this.#drain();
      else if (line !== undefined) this.#writer.write(line);
    });
    this.#pending.add(settled);
    settled.finally(() => this.#pending.delete(settled));
  }

  /** The request `key` waits on the client: stop holding others behind it. */
  release(key: string): void {
    const slot = this.#open.get(key);
    if (slot === undefined || slot.done) return;
    slot.released = true;
    this.#drain();
  }

  async settle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending);
  }

  #drain(): void {
    for (let head = this.#slots.peek(); head !== undefined;) {
      // A released slot is written when it is done, out of order.
      if (!head.released) {
        if (!head.done) break;
        if (head.line !== undefined) this.#writer.write(head.line);
      }
      this.#slots.shift();
      head = this.#slots.peek();
    }
    if (this.#onRoom && this.#slots.size <= MAX_HELD_RESPONSES / 2) {
      this.#onRoom();
      this.#onRoom = undefined;
    }
  }
}

/**
 * Serve one client over a pair of byte streams until end of input (or
 * `signal`), then finish in-flight requests, flush, and resolve.
 * Never rejects because of anything the client sent.
 */
export async function serveStdio(
  server: McpServer,
  options: StdioOptions = {},
): Promise<void> {
  const input = options.input ?? Deno.stdin.readable;
  const writer = new MessageWriter(options.output ?? Deno.stdout);
  const responses = new OrderedResponses(writer);
  const session = new Session((line) => writer.write(line));
  session.onWaitingForClient = (key) => responses.release(key);
  options.onSession?.(session);

  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const splitter = new LineSplitter({ maxLineBytes });
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const lenient = new TextDecoder("utf-8", { ignoreBOM: true });
  let first = true;

  const onLine = (line: Line): void => {
    if (line instanceof OversizedLine) {
      first = false;
      server.logger.log("info", `skipped a line of ${line.bytes} bytes`);
      responses.now(encodeError(
        null,
        ErrorCode.InvalidRequest,
        "Invalid Request",
        `The message is ${line.bytes} bytes long; the limit is ${maxLineBytes} bytes per line.`,
      ));
      return;
    }
    if (first) {
      first = false;
      if (startsWithBom(line)) line = line.subarray(3);
    }
    if (line.length === 0) return;
    let text: string;
    try {
      text = decoder.decode(line);
    } catch {
      responses.now(encodeError(
        null,
        ErrorCode.ParseError,
        "Parse error",
        "The line is not valid UTF-8.",
      ));
      return;
    }
    onText(text);
  };

  // At most MAX_CONCURRENT_REQUESTS handlers run at once; later requests
  // wait their turn in arrival order (their place in the output is kept),
  // while notifications and the client's responses are handled at once.
  let running = 0;
  const waiting = new Queue<{
    message: IncomingMessage;
    resolve: (response: DispatchResult) => void;
  }>();

  const finished = (): void => {
    running--;
    while (running < MAX_CONCURRENT_REQUESTS && waiting.size > 0) {
      const next = waiting.shift()!;
      next.resolve(start(next.message));
    }
  };

  const start = (message: IncomingMessage): DispatchResult => {
    let response: DispatchResult;
    try {
      response = server.dispatch(message, session);
    } catch (error) {
      // dispatch catches handler errors itself; this is a bug in the core.
      server.logger.log("error", "dispatch failed:", error);
      return undefined;
    }
    if (!(response instanceof Promise)) return response;
    running++;
    return response.finally(finished);
  };

  const onText = (text: string): void => {
    if (text.charCodeAt(0) <= 32 && text.trim().length === 0) return;
    const message = decode(text);
    if (
      message.kind === "request" &&
      (running >= MAX_CONCURRENT_REQUESTS || waiting.size > 0)
    ) {
      const { promise, resolve } = Promise.withResolvers<
        string | undefined
      >();
      responses.later(promise, idKey(message.id));
      waiting.push({ message, resolve });
      return;
    }
    const response = start(message);
    if (response === undefined) return;
    if (typeof response === "string") responses.now(response);
    else if (message.kind === "request") {
      responses.later(response, idKey(message.id));
    } else responses.later(response, "");
  };

  // The common case, a block of complete lines in valid UTF-8, is decoded
  // in one call and split as text: per-line decoding is the costliest step
  // of a small message. If any line in the block is not valid UTF-8, the
  // splitter hands the lines over one by one so that only that line fails.
  const onBlock = (block: Uint8Array): boolean => {
    // The lenient decoder is several times faster than the strict one; only
    // a block that shows U+FFFD (an invalid sequence, or a real U+FFFD)
    // needs the strict check.
    let text = lenient.decode(block);
    if (text.includes("\uFFFD")) {
      try {
        text = decoder.decode(block);
      } catch {
        return false;
      }
    }
    // The block ends with "\n", so the last piece is always empty.
    const lines = text.split("\n");
    for (let i = 0, n = lines.length - 1; i < n; i++) {
      let line = lines[i];
      if (line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
      if (line.length > 0) onText(line);
    }
    return true;
  };

  const reader = input.getReader();
  const stop = () => reader.cancel().catch(() => {});
  // Without stdout there is no one to answer: stop waiting for input.
  writer.onBroken = stop;
  options.signal?.addEventListener("abort", stop, { once: true });
  try {
    while (!writer.broken) {
      const { value, done } = await reader.read();
      if (done) break;
      splitter.push(value, onLine, onBlock);
      if (writer.backlog > HIGH_WATER_CHARS) await writer.idle();
      // Reading pauses while too many responses are held back, so a flood
      // costs bounded memory. (Were 64 handlers all waiting on the client
      // with thousands of requests behind them, the pause would stall them;
      // this server's handlers never wait on the client.)
      if (responses.size >= MAX_HELD_RESPONSES) await responses.room();
    }
    splitter.end(onLine);
  } catch (error) {
    server.logger.log("warn", "reading input failed:", error);
  } finally {
    options.signal?.removeEventListener("abort", stop);
    reader.releaseLock();
  }
  session.close();
  await responses.settle();
  await writer.idle();
}
