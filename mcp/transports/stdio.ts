/**
 * The stdio transport: newline-delimited JSON-RPC on a byte stream in and a
 * byte stream out, one session per connection. Framing is
 * `../line_stream.ts`, pausing the input `paced_reader.ts`, the output queue
 * `../message_writer.ts`; the session, dispatch and the order of answers
 * are the connection's (`../connection.ts`).
 *
 * @module
 */

import { type ConnectionOptions, serve } from "../connection.ts";
import type { RequestId } from "../jsonrpc.ts";
import { LineDecoder } from "../line_stream.ts";
import { type ByteWriter, MessageWriter } from "../message_writer.ts";
import type { McpServer } from "../server.ts";
import type { InputEnd, Receiver, Transport } from "../transport.ts";
import { PacedReader } from "./paced_reader.ts";
import { stdinReader } from "./stdin_reader.ts";

export type { ByteWriter } from "../message_writer.ts";

/** Options for a {@linkcode StdioTransport}. */
export interface StdioTransportOptions {
  /** Where messages come from; default standard input (`stdin_reader.ts`). */
  input?: ReadableStream<Uint8Array>;
  /** Where messages go; default `Deno.stdout`. */
  output?: ByteWriter;
  /** Longest accepted line in bytes; default 8 MiB. */
  maxLineBytes?: number;
}

/** Options for {@linkcode serveStdio}: the transport's and the connection's. */
export interface StdioOptions
  extends StdioTransportOptions, ConnectionOptions {}

/**
 * Unwritten output beyond which the reader pauses until it is written.
 * Small on purpose: a client that sends faster than it reads should not
 * make the server hold megabytes of answers. In `deno task bench`, 64 Ki
 * chars keeps the throughput of a larger buffer at a lower peak memory.
 */
const HIGH_WATER_CHARS = 64 * 1024;

/**
 * Newline-delimited JSON-RPC over a pair of byte streams (stdin and stdout
 * by default).
 *
 * @example Serve on stdio with options of both kinds
 * ```ts ignore
 * import { handlers } from "../../handlers/mod.ts";
 * import { serve } from "../connection.ts";
 * import { McpServer } from "../server.ts";
 * import { StdioTransport } from "./stdio.ts";
 *
 * const server = new McpServer({
 *   handlers,
 *   info: { name: "example-mcp", version: "1.0.0" },
 * });
 * await serve(server, new StdioTransport({ maxLineBytes: 1 << 20 }), {
 *   signal: AbortSignal.timeout(60_000),
 * });
 * ```
 */
export class StdioTransport implements Transport {
  readonly #options: StdioTransportOptions;
  #writer: MessageWriter | undefined;
  #reader: PacedReader | undefined;
  #stopped = false;

  /** A transport over `options.input` and `options.output`. */
  constructor(options: StdioTransportOptions = {}) {
    this.#options = options;
  }

  /** Characters sent and not written yet. */
  get backlog(): number {
    return this.#writer?.backlog ?? 0;
  }

  /** How many writes have completed. */
  get progress(): number {
    return this.#writer?.progress ?? 0;
  }

  /** Whether the output is gone. */
  get broken(): boolean {
    return this.#writer?.broken ?? false;
  }

  /** Read lines into `receiver` until the input ends or reading stops. */
  async start(receiver: Receiver): Promise<InputEnd> {
    const options = this.#options;
    const writer = new MessageWriter(
      options.output ?? Deno.stdout,
      receiver.budget,
    );
    this.#writer = writer;
    const reader = new PacedReader(options.input ?? stdinReader(), {
      drainTimeoutMs: receiver.drainTimeoutMs,
      progress: () => writer.progress,
    });
    this.#reader = reader;
    // Without stdout there is no one to answer: stop waiting for input.
    writer.onBroken = () => this.stop();
    if (this.#stopped) reader.stop();
    const logger = receiver.logger;
    const decoder = new LineDecoder(receiver, {
      maxLineBytes: options.maxLineBytes,
      onOversized: (bytes) =>
        logger.log("info", `skipped a line of ${bytes} bytes`),
    });
    try {
      while (!reader.stopped && !reader.abandoned) {
        const chunk = await reader.next();
        if (chunk === undefined) break;
        decoder.push(chunk);
        // Reading pauses while the client does not read what it asked for,
        // and while the connection holds too much: a flood costs bounded
        // memory. (The connection does not ask for a pause while a handler
        // waits on the client, whose answer must be read.)
        if (writer.backlog > HIGH_WATER_CHARS) {
          await reader.pause(writer.idle());
        }
        for (
          let wait = receiver.pressure();
          wait !== undefined && !reader.stopped && !reader.abandoned;
          wait = receiver.pressure()
        ) await reader.pause(wait);
      }
      if (!reader.stopped && !reader.abandoned) decoder.end();
    } catch (error) {
      if (!reader.stopped) logger.log("warn", "reading input failed:", error);
    } finally {
      reader.release();
    }
    if (reader.abandoned) {
      logger.log(
        "warn",
        `the input ended and the client has not read for ${receiver.drainTimeoutMs} ms: giving up on ${writer.backlog} characters unwritten`,
      );
      return "abandoned";
    }
    return reader.stopped ? "stopped" : "ended";
  }

  /** Stop reading now. */
  stop(): void {
    this.#stopped = true;
    this.#reader?.stop();
  }

  /** Queue one message line for the output. */
  send(text: string, answers?: RequestId): void {
    this.#writer!.write(text, answers);
  }

  /** Take back a queued answer that is not being written yet. */
  drop(key: string): boolean {
    return this.#writer?.drop(key) ?? false;
  }

  /** Resolves once everything sent so far is written (or cannot be). */
  flush(): Promise<void> {
    return this.#writer?.idle() ?? Promise.resolve();
  }

  /** Stop reading; what is still queued keeps being written. */
  close(): void {
    this.stop();
  }
}

/**
 * Serve one client over a pair of byte streams (stdin and stdout by
 * default) until end of input (or `signal`), then finish in-flight
 * requests, flush, and resolve. Never rejects because of anything the
 * client sent.
 *
 * @example
 * ```ts ignore
 * import { handlers } from "../../handlers/mod.ts";
 * import { McpServer } from "../server.ts";
 * import { serveStdio } from "./stdio.ts";
 *
 * const server = new McpServer({
 *   handlers,
 *   info: { name: "example-mcp", version: "1.0.0" },
 * });
 * await serveStdio(server);
 * ```
 */
export function serveStdio(
  server: McpServer,
  options: StdioOptions = {},
): Promise<void> {
  return serve(server, new StdioTransport(options), options);
}
