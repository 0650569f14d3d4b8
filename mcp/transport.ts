/**
 * What a transport is to the server: something that reads messages from one
 * client and writes messages back. {@linkcode serve} (in `connection.ts`)
 * drives one; the stdio transport (`transports/stdio.ts`) is one.
 *
 * The transport owns the wire (framing, decoding, reading and writing
 * bytes); the connection owns everything else (the session, dispatch,
 * the order of answers, cancellation, draining at the end), so a new
 * transport is written without touching the server.
 *
 * @module
 */

import type { IncomingMessage, RequestId } from "./jsonrpc.ts";
import type { Logger } from "./log.ts";
import type { OutputBudget } from "./output_budget.ts";

/** How a transport's input came to an end; see {@linkcode Transport.start}. */
export type InputEnd =
  /** The client closed its input (or reading it failed). */
  | "ended"
  /** {@linkcode Transport.stop} was called, or the output broke. */
  | "stopped"
  /**
   * The input ended while reading was paused and the client then read
   * nothing for the drain timeout: answers still unwritten are given up.
   */
  | "abandoned";

/**
 * The connection's side, handed to {@linkcode Transport.start}: where the
 * transport delivers what it reads.
 */
export interface Receiver {
  /**
   * One message (or, where the session allows them, one batch) as JSON
   * text, framing removed. Called synchronously for every message of a
   * chunk; check {@linkcode Receiver.pressure} between chunks.
   */
  receive(text: string): void;
  /**
   * One message already decoded: a transport that had to look into the
   * message to route it (HTTP) hands over what it decoded, so that a body
   * is parsed once.
   */
  accept(message: IncomingMessage): void;
  /**
   * Input that cannot be a message at all (too long, not UTF-8): answered
   * with a JSON-RPC error of `code` and id null, in its place in the order.
   */
  reject(code: number, detail: string): void;
  /**
   * A promise to wait on before reading more input (too many requests held,
   * too much output unwritten), or undefined to read on.
   */
  pressure(): Promise<void> | undefined;
  /**
   * Characters of answers finished but not yet written, shared with the
   * connection: the transport counts its queued output here until it is
   * written (or dropped).
   */
  readonly budget: OutputBudget;
  /** Where the transport logs. */
  readonly logger: Logger;
  /**
   * How long output may stand still, once the input has ended, before
   * the client counts as gone (ms): a transport whose reading is paused
   * when its input ends gives up after this long ("abandoned").
   */
  readonly drainTimeoutMs: number;
}

/**
 * One client connection's wire. {@linkcode serve} calls
 * {@linkcode Transport.start} once, {@linkcode Transport.send} for every
 * outgoing message, and {@linkcode Transport.close} at the end.
 *
 * @example A transport over an in-memory list of messages
 * ```ts
 * import type { Receiver, Transport } from "./transport.ts";
 *
 * class ArrayTransport implements Transport {
 *   sent: string[] = [];
 *   backlog = 0;
 *   progress = 0;
 *   broken = false;
 *   constructor(readonly input: string[]) {}
 *   async start(receiver: Receiver) {
 *     await Promise.resolve(); // nothing is delivered synchronously
 *     for (const text of this.input) receiver.receive(text);
 *     return "ended" as const;
 *   }
 *   stop() {}
 *   send(text: string) {
 *     this.sent.push(text);
 *     this.progress++;
 *   }
 *   drop() {
 *     return false;
 *   }
 *   flush() {
 *     return Promise.resolve();
 *   }
 *   close() {}
 * }
 * ```
 */
export interface Transport {
  /**
   * Read the client's messages into `receiver` until the input ends or
   * reading stops. Resolves (never rejects) with how it ended. The
   * transport can {@linkcode Transport.send} as soon as this is called,
   * and delivers nothing before its first `await` (the connection
   * announces its session in between).
   */
  start(receiver: Receiver): Promise<InputEnd>;
  /** Stop reading at once (also before `start`): `start` resolves soon. */
  stop(): void;
  /**
   * Queue one encoded message for the client. `answers`, the id of the
   * request it answers, lets {@linkcode Transport.drop} take it back, and
   * lets a transport with a stream per request route it there. `related`,
   * for a notification or request the server sends while handling a
   * request (progress, a log record, a sampling request), is the id of
   * that request: a transport with a stream per request sends it on that
   * request's stream; others ignore it.
   */
  send(text: string, answers?: RequestId, related?: RequestId): void;
  /**
   * Take back the queued answer to the request whose `idKey` is `key`, if
   * it is not being written yet. Returns whether one was dropped.
   */
  drop(key: string): boolean;
  /** Resolves when everything sent so far is written (or cannot be). */
  flush(): Promise<void>;
  /** Characters sent and not written yet. */
  readonly backlog: number;
  /** A count that grows while the client reads (writes completed). */
  readonly progress: number;
  /** Whether the output is gone: nothing sent is written any more. */
  readonly broken: boolean;
  /** End the connection: stop reading, release the input. */
  close(): void;
}
