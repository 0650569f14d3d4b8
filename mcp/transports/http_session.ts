/**
 * One Streamable HTTP session's side of the wire: the {@linkcode Transport}
 * that `serve` (see `../connection.ts`) drives for it. Each POST's requests
 * are answered on that POST's response (JSON, or an SSE stream carrying
 * also what the server sends while handling them); what relates to no
 * request goes on the standalone stream a GET opens.
 *
 * @module
 */

import {
  encodeError,
  ErrorCode,
  idKey,
  type IncomingMessage,
  type RequestId,
} from "../jsonrpc.ts";
import type { Session } from "../session.ts";
import type { InputEnd, Receiver, Transport } from "../transport.ts";
import { KeptBudget } from "./kept_budget.ts";
import { SseStream } from "./sse.ts";

/** How a POST's answers are written. */
export type ReplyMode =
  /** One `application/json` body once every request is answered. */
  | "json"
  /** A `text/event-stream` opened at once. */
  | "sse"
  /**
   * JSON when the answers are all there is; an SSE stream as soon as
   * anything else (a notification, a request to the client) comes first.
   */
  | "auto";

/** The standalone stream's id (POST streams are numbered from 1). */
export const STANDALONE_STREAM = "0";

/** Streams cut off before their end, kept per session for resumption. */
const MAX_RESUMABLE_STREAMS = 64;

const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
};

/** The requests of one POST, and how their answers go back. */
class Exchange {
  mode: ReplyMode;
  readonly batch: boolean;
  readonly pending = new Set<string>();
  readonly answers: string[] = [];
  stream: SseStream | undefined;
  readonly reply = Promise.withResolvers<Response>();
  replied = false;

  constructor(mode: ReplyMode, batch: boolean) {
    this.mode = mode;
    this.batch = batch;
  }
}

/** Options for an {@linkcode HttpSessionTransport}. */
export interface HttpSessionOptions {
  /** The session's id, sent in `Mcp-Session-Id`. */
  id: string;
  /** The `retry` (ms) told to a client whose stream is closed for polling. */
  retryMs: number;
  /**
   * What the session's streams keep (replay buffers, streams kept for a
   * resume, queued events) is charged to; default: one of its own.
   */
  budget?: KeptBudget;
}

/** One HTTP session's transport; see the module documentation. */
export class HttpSessionTransport implements Transport {
  /** The session's id. */
  readonly id: string;
  /** The connection's session, once `serve` announced it. */
  session: Session | undefined;
  /**
   * When a request of this session last came or went, or one of its
   * streams' clients last took what it was sent (performance.now).
   */
  lastActive: number = performance.now();
  /** When the session was made (performance.now). */
  readonly createdAt: number = performance.now();
  /** Whether a request came for it after its `initialize`. */
  used = false;
  readonly #retryMs: number;
  readonly #budget: KeptBudget;
  #receiver: Receiver | undefined;
  readonly #ended = Promise.withResolvers<InputEnd>();
  #stopped = false;
  #closed = false;
  #progress = 0;
  #nextStream = 1;
  /** Unanswered requests by key, and the POST each came in. */
  readonly #requests = new Map<string, Exchange>();
  /** Streams a client may resume with `Last-Event-ID`, by id. */
  readonly #streams = new Map<string, SseStream>();
  /** POST streams ended before all they carried was delivered, oldest first. */
  readonly #resumable: string[] = [];
  readonly #standalone: SseStream;

  /** A transport for the session `options.id`. */
  constructor(options: HttpSessionOptions) {
    this.id = options.id;
    this.#retryMs = options.retryMs;
    this.#budget = options.budget ?? new KeptBudget();
    this.#standalone = new SseStream(STANDALONE_STREAM, {
      budget: this.#budget,
    });
    this.#streams.set(STANDALONE_STREAM, this.#standalone);
  }

  /** The headers every response of this session carries. */
  get headers(): Record<string, string> {
    return { "mcp-session-id": this.id };
  }

  /**
   * Whether the session is busy: requests unanswered. An open stream does
   * not make it busy: it counts as use only while its client takes what
   * it is sent (see {@linkcode HttpSessionTransport.keepAlive}).
   */
  get busy(): boolean {
    return this.#requests.size > 0;
  }

  /**
   * A keep-alive tick: each attached stream that carried nothing since the
   * last tick gets an SSE comment; a stream whose client took everything
   * it was sent before counts as use of the session.
   */
  keepAlive(): void {
    let taking = false;
    for (const stream of this.#streams.values()) {
      if (stream.keepAlive()) taking = true;
    }
    if (taking) this.lastActive = performance.now();
  }

  /** Characters sent and not written yet: writes are immediate. */
  get backlog(): number {
    return 0;
  }

  /** Messages written so far. */
  get progress(): number {
    return this.#progress;
  }

  /** Whether the session's output is gone. */
  get broken(): boolean {
    return this.#closed;
  }

  /** Wait for the session to end; messages arrive through `post`. */
  start(receiver: Receiver): Promise<InputEnd> {
    this.#receiver = receiver;
    if (this.#stopped) this.#ended.resolve("stopped");
    return this.#ended.promise;
  }

  /** The session ends: no more messages are read. */
  stop(): void {
    this.#stopped = true;
    this.#ended.resolve("stopped");
  }

  /** Whether {@linkcode HttpSessionTransport.stop} was called. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /**
   * Whether request `key` is unanswered in this session (a new request
   * with its id would be ambiguous).
   */
  has(key: string): boolean {
    return this.#requests.has(key);
  }

  /**
   * Hand the messages of one POST (decoded, and the keys of the requests
   * among them) to the connection; resolves with the response to send.
   * Without requests, nothing is awaited.
   */
  async post(
    messages: readonly IncomingMessage[],
    keys: readonly string[],
    mode: ReplyMode,
    batch: boolean,
  ): Promise<Response> {
    const receiver = this.#receiver;
    if (receiver === undefined || this.#stopped) {
      throw new Error("the session has ended");
    }
    this.lastActive = performance.now();
    // While the connection holds too much, wait for room (a handler
    // waiting on the client never makes it wait: its answer must come in).
    for (let wait = receiver.pressure(); wait; wait = receiver.pressure()) {
      await wait;
      if (this.#stopped) throw new Error("the session has ended");
    }
    let exchange: Exchange | undefined;
    if (keys.length > 0) {
      exchange = new Exchange(mode, batch);
      for (const key of keys) {
        exchange.pending.add(key);
        this.#requests.set(key, exchange);
      }
      if (mode === "sse") this.#openStream(exchange);
    }
    for (const message of messages) receiver.accept(message);
    if (exchange === undefined) {
      return new Response(null, { status: 202, headers: this.headers });
    }
    const response = await exchange.reply.promise;
    this.lastActive = performance.now();
    return response;
  }

  /**
   * Open (or resume) a stream for a GET: with `lastEventId`'s stream and
   * sequence number, what it missed is replayed and it goes on; without,
   * the standalone stream. Returns undefined when the standalone stream
   * is open already.
   */
  resume(
    resumeAt: { stream: string; seq: number } | undefined,
  ): Response | undefined {
    this.lastActive = performance.now();
    const stream = resumeAt === undefined
      ? undefined
      : this.#streams.get(resumeAt.stream);
    if (stream !== undefined && resumeAt !== undefined) {
      // A client that resumes lost its old connection (perhaps before we
      // noticed): the new one takes its place.
      const body = stream.attach({ after: resumeAt.seq, resumed: true });
      if (stream.ended && stream !== this.#standalone) this.#forget(stream.id);
      return new Response(body, {
        headers: { ...SSE_HEADERS, ...this.headers },
      });
    }
    if (this.#standalone.attached) return undefined;
    const body = this.#standalone.attach({
      undelivered: true,
      prime: this.#primes(),
      retryMs: this.#primes() ? this.#retryMs : undefined,
    });
    return new Response(body, { headers: { ...SSE_HEADERS, ...this.headers } });
  }

  /**
   * Route one outgoing message: an answer to its POST; a message sent
   * while handling a request to that request's stream (or, when that POST
   * is answered with JSON, the standalone stream); anything else to the
   * standalone stream.
   */
  send(text: string, answers?: RequestId, related?: RequestId): void {
    if (this.#closed) return;
    this.#progress++;
    if (answers !== undefined) {
      const key = idKey(answers);
      const exchange = this.#requests.get(key);
      if (exchange !== undefined) {
        this.#requests.delete(key);
        exchange.pending.delete(key);
        this.#deliver(exchange, text, true);
      }
      // An answer never goes on the standalone stream (the specification
      // forbids it): with its POST gone, there is nowhere left for it.
      return;
    } else if (related !== undefined) {
      const exchange = this.#requests.get(idKey(related));
      if (exchange !== undefined && exchange.mode !== "json") {
        this.#deliver(exchange, text, false);
        return;
      }
    }
    this.#standalone.write(text);
  }

  /**
   * The client cancelled request `key`: no answer will come, so its POST
   * stops waiting for one. Nothing is queued here to take back.
   */
  drop(key: string): boolean {
    const exchange = this.#requests.get(key);
    if (exchange !== undefined) {
      this.#requests.delete(key);
      exchange.pending.delete(key);
      if (exchange.pending.size === 0) this.#finish(exchange);
    }
    return false;
  }

  /**
   * End the stream carrying the answer to `related` now, telling the
   * client (2025-11-25 and later) when to reconnect; what follows is kept
   * for it. False when that request has no stream (answered with JSON).
   */
  closeStream(related: RequestId): boolean {
    const exchange = this.#requests.get(idKey(related));
    if (exchange === undefined || exchange.mode === "json") return false;
    if (exchange.stream === undefined) this.#openStream(exchange);
    exchange.stream!.disconnect(this.#primes() ? this.#retryMs : undefined);
    return true;
  }

  /** Everything is written at once. */
  flush(): Promise<void> {
    return Promise.resolve();
  }

  /** The session is over: every stream ends, waiting POSTs are answered. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.stop();
    const exchanges = new Set(this.#requests.values());
    this.#requests.clear();
    for (const exchange of exchanges) {
      exchange.pending.clear();
      this.#finish(exchange);
    }
    for (const stream of this.#streams.values()) {
      stream.end();
      stream.forget();
    }
    this.#streams.clear();
  }

  // Priming events (an id, no data) are understood from 2025-11-25 on;
  // older clients would try to parse the empty data.
  #primes(): boolean {
    const version = this.session?.protocolVersion;
    return version !== undefined && version >= "2025-11-25";
  }

  #deliver(exchange: Exchange, text: string, answer: boolean): void {
    if (exchange.mode === "sse") {
      exchange.stream!.write(text);
    } else if (!answer) {
      // "auto": something besides answers comes, so the reply is a stream.
      this.#openStream(exchange);
      exchange.stream!.write(text);
    } else exchange.answers.push(text);
    if (exchange.pending.size === 0) this.#finish(exchange);
  }

  #openStream(exchange: Exchange): void {
    const stream = new SseStream(String(this.#nextStream++), {
      budget: this.#budget,
    });
    // Its kept events taken back by the budget: once it has ended, there
    // is nothing left to resume.
    stream.onEvicted = () => {
      if (stream.ended && !stream.attached) this.#forget(stream.id);
    };
    this.#streams.set(stream.id, stream);
    exchange.stream = stream;
    exchange.mode = "sse";
    const prime = this.#primes();
    const body = stream.attach({
      prime,
      retryMs: prime ? this.#retryMs : undefined,
    });
    for (const text of exchange.answers.splice(0)) stream.write(text);
    exchange.replied = true;
    exchange.reply.resolve(
      new Response(body, { headers: { ...SSE_HEADERS, ...this.headers } }),
    );
  }

  // Every request of the POST is answered (or cancelled, or the session
  // is over): a stream ends, a JSON reply is sent.
  #finish(exchange: Exchange): void {
    const stream = exchange.stream;
    if (stream !== undefined) {
      stream.end();
      if (stream.delivered) this.#forget(stream.id);
      else this.#keep(stream.id);
      return;
    }
    if (exchange.replied) return;
    exchange.replied = true;
    const answers = exchange.answers;
    if (answers.length === 0) {
      // Cancelled by the client: nothing is due. Cut off by the end of
      // the session: say so.
      exchange.reply.resolve(
        this.#closed
          ? new Response(
            encodeError(
              null,
              ErrorCode.ServerError,
              "Service Unavailable: the session ended before this request was answered; initialize a new session and send it again.",
            ),
            {
              status: 503,
              headers: { "content-type": "application/json", ...this.headers },
            },
          )
          : new Response(null, { status: 202, headers: this.headers }),
      );
      return;
    }
    const body = exchange.batch ? `[${answers.join(",")}]` : answers[0];
    exchange.reply.resolve(
      new Response(body, {
        headers: { "content-type": "application/json", ...this.headers },
      }),
    );
  }

  #keep(id: string): void {
    this.#resumable.push(id);
    while (this.#resumable.length > MAX_RESUMABLE_STREAMS) {
      this.#forget(this.#resumable[0]);
    }
  }

  #forget(id: string): void {
    this.#streams.get(id)?.forget();
    this.#streams.delete(id);
    const at = this.#resumable.indexOf(id);
    if (at >= 0) this.#resumable.splice(at, 1);
  }
}
