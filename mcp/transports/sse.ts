/**
 * Server-sent events for the Streamable HTTP transport: one
 * {@linkcode SseStream} per stream of a session (the answers to one POST,
 * or the standalone stream a GET opens), with event ids, a bounded buffer
 * of what was sent, and resumption: a client that lost the connection
 * reconnects with `Last-Event-ID` and is sent what it missed.
 *
 * @module
 */

import {
  DEFAULT_MAX_KEPT_BYTES,
  type KeptAccount,
  KeptBudget,
} from "./kept_budget.ts";

/** Events kept per stream for resumption; older ones are forgotten. */
export const DEFAULT_REPLAY_EVENTS = 256;

/** Bytes of events kept per stream for resumption. */
export const DEFAULT_REPLAY_BYTES = 4 * 1024 * 1024;

/**
 * Bytes of events queued for an attached client that is not taking them
 * (its connection's writes wait) before it is detached.
 */
export const DEFAULT_MAX_QUEUED_BYTES = 8 * 1024 * 1024;

const encoder = new TextEncoder();

/** An SSE comment: clients ignore it, proxies and clients see the stream alive. */
export const KEEP_ALIVE_COMMENT = ": keep-alive\n\n";
const KEEP_ALIVE_BYTES = encoder.encode(KEEP_ALIVE_COMMENT);

interface Sent {
  readonly seq: number;
  /** The whole encoded event, as written (shared by every replay). */
  readonly bytes: Uint8Array;
}

// A budget for streams made without one (tests, a lone stream): each its own.
function ownBudget(): KeptBudget {
  return new KeptBudget(DEFAULT_MAX_KEPT_BYTES);
}

/**
 * Split an event id made by {@linkcode SseStream} into its stream id and
 * sequence number; undefined when it is not one of ours.
 */
export function parseEventId(
  eventId: string,
): { stream: string; seq: number } | undefined {
  const at = eventId.lastIndexOf("_");
  if (at <= 0) return undefined;
  const digits = eventId.slice(at + 1);
  if (!/^[0-9]{1,15}$/.test(digits)) return undefined;
  return { stream: eventId.slice(0, at), seq: Number(digits) };
}

/**
 * Encode one SSE event carrying a JSON text: JSON has no raw line breaks
 * (`JSON.stringify` escapes them), so it is one `data` line as it is,
 * with no scan of a text that may be megabytes long.
 */
export function encodeJsonEvent(id: string | undefined, json: string): string {
  return id === undefined
    ? `event: message\ndata: ${json}\n\n`
    : `id: ${id}\nevent: message\ndata: ${json}\n\n`;
}

/** Encode one SSE event: `id`, optional `retry`, and `data` lines. */
export function encodeEvent(
  id: string | undefined,
  data: string,
  retryMs?: number,
): string {
  let text = id === undefined ? "" : `id: ${id}\n`;
  if (retryMs !== undefined) text += `retry: ${Math.max(0, retryMs | 0)}\n`;
  if (data === "") return `${text}data: \n\n`;
  text += "event: message\n";
  // Our JSON has no raw line breaks; anything else is split as SSE wants.
  if (data.indexOf("\n") < 0 && data.indexOf("\r") < 0) {
    return `${text}data: ${data}\n\n`;
  }
  for (const line of data.split(/\r\n|\r|\n/)) text += `data: ${line}\n`;
  return `${text}\n`;
}

/**
 * The body of one client's response: the events queued for it until its
 * connection takes them (one at a time, as it writes them out), charged
 * to a {@linkcode KeptBudget}. The chunks are not copied: one encoded
 * event is shared by every client it is queued for.
 */
export class EventSink {
  /** The response body. */
  readonly body: ReadableStream<Uint8Array>;
  readonly #account: KeptAccount;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #queue: { bytes: Uint8Array; seq: number }[] = [];
  #queued = 0;
  #waiting: (() => void) | undefined;
  #closing = false;
  #done = false;
  #quiet = true;
  /** The sequence number of the last event the connection took. */
  takenSeq: number;
  /**
   * Called when the client goes away (its connection closed) or the
   * budget evicts the queue; not when the owner drops or closes it.
   */
  onGone: (() => void) | undefined;

  /** A sink charging `budget`; `takenSeq` starts at `takenSeq`. */
  constructor(budget: KeptBudget, takenSeq = 0) {
    this.takenSeq = takenSeq;
    this.#account = budget.open(() => {
      if (this.#fail("the server's memory budget for kept events ran out")) {
        this.onGone?.();
      }
    });
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      pull: (controller) => this.#pull(controller),
      cancel: () => {
        if (this.#finish()) this.onGone?.();
      },
    }, { highWaterMark: 0 });
  }

  /** Bytes queued and not taken yet. */
  get queuedBytes(): number {
    return this.#queued;
  }

  /** Whether the sink still takes events (not closed, dropped or gone). */
  get open(): boolean {
    return !this.#done && !this.#closing;
  }

  /**
   * Queue `bytes` (an event with sequence number `seq`, or 0 for a
   * comment); false when the sink is closed or gone.
   */
  push(bytes: Uint8Array, seq = 0): boolean {
    if (!this.open) return false;
    this.#quiet = false;
    this.#queue.push({ bytes, seq });
    this.#queued += bytes.byteLength;
    this.#wake();
    this.#account.charge(bytes.byteLength);
    return !this.#done;
  }

  /**
   * A keep-alive tick: a comment is queued when nothing was since the
   * last tick. Returns whether the client took everything before it.
   */
  keepAlive(): boolean {
    const taking = this.#queued === 0;
    if (this.#quiet) this.push(KEEP_ALIVE_BYTES);
    this.#quiet = true;
    return taking;
  }

  /** No more events: the response ends once the client took the queue. */
  close(): void {
    if (!this.open) return;
    this.#closing = true;
    this.#wake();
  }

  /**
   * Fail the response now (its connection closes) and drop the queue:
   * `reason` says why. False when it was over already.
   */
  drop(reason: string): boolean {
    return this.#fail(reason);
  }

  #fail(reason: string): boolean {
    if (!this.#finish()) return false;
    try {
      this.#controller.error(new Error(reason));
    } catch {
      // Closed already.
    }
    return true;
  }

  // The sink is over: its queue is let go. False when it was already.
  #finish(): boolean {
    if (this.#done) return false;
    this.#done = true;
    this.#queue = [];
    this.#queued = 0;
    this.#account.close();
    this.#wake();
    return true;
  }

  #wake(): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.();
  }

  // The connection asks for the next chunk (it wrote the last one out).
  async #pull(
    controller: ReadableStreamDefaultController<Uint8Array>,
  ): Promise<void> {
    while (this.#queue.length === 0 && !this.#closing && !this.#done) {
      await new Promise<void>((resolve) => this.#waiting = resolve);
    }
    if (this.#done) return;
    const next = this.#queue.shift();
    if (next === undefined) {
      this.#finish();
      controller.close();
      return;
    }
    this.#queued -= next.bytes.byteLength;
    if (next.seq > 0) this.takenSeq = next.seq;
    this.#account.release(next.bytes.byteLength);
    controller.enqueue(next.bytes);
  }
}

/**
 * One SSE stream of a session. Events written while no client is attached
 * are kept (within bounds, and within the {@linkcode KeptBudget} shared by
 * every stream of the server) until one reconnects with `Last-Event-ID`.
 */
export class SseStream {
  /** The stream's id, the prefix of its event ids. */
  readonly id: string;
  readonly #maxEvents: number;
  readonly #maxBytes: number;
  readonly #maxQueued: number;
  readonly #budget: KeptBudget;
  readonly #replay: KeptAccount;
  #sent: Sent[] = [];
  #sentBytes = 0;
  #seq = 0;
  #sink: EventSink | undefined;
  #ended = false;
  /** The last sequence number written to an attached client. */
  #deliveredSeq = 0;
  /** Whether every event written so far has reached an attached client. */
  #delivered = true;
  /** Called when the attached client goes away (or is detached). */
  onDetach: (() => void) | undefined;
  /** Called when the budget took back the events kept for replay. */
  onEvicted: (() => void) | undefined;

  /**
   * A stream with id `id`; events kept for replay are bounded (`maxEvents`,
   * `maxBytes`), and so are the bytes queued for a client that does not
   * read (`maxQueuedBytes`); all of them are charged to `budget`.
   */
  constructor(
    id: string,
    options: {
      maxEvents?: number;
      maxBytes?: number;
      maxQueuedBytes?: number;
      budget?: KeptBudget;
    } = {},
  ) {
    this.id = id;
    this.#maxEvents = options.maxEvents ?? DEFAULT_REPLAY_EVENTS;
    this.#maxBytes = options.maxBytes ?? DEFAULT_REPLAY_BYTES;
    this.#maxQueued = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
    this.#budget = options.budget ?? ownBudget();
    this.#replay = this.#budget.open(() => {
      this.#sent = [];
      this.#sentBytes = 0;
      this.onEvicted?.();
    });
  }

  /** Whether a client is attached now. */
  get attached(): boolean {
    return this.#sink !== undefined;
  }

  /** Whether {@linkcode SseStream.end} was called. */
  get ended(): boolean {
    return this.#ended;
  }

  /**
   * Whether everything written reached a client that was attached at the
   * time (nothing to resume).
   */
  get delivered(): boolean {
    return this.#delivered;
  }

  /** Bytes kept for replay. */
  get keptBytes(): number {
    return this.#sentBytes;
  }

  /**
   * Attach a new client: returns the body of its response, starting with
   * the events after sequence number `after` still kept (none when
   * `after` is undefined, or, with `undelivered`, those that reached no
   * client), and `prime` (an event with an id and no data,
   * and a `retry` field when `retryMs` is given) when asked. A client
   * attached before is cut off, what was queued for it dropped at once.
   * An ended stream closes after the replay. `resumed` marks the stream
   * as one a client came back for (its kept events are evicted last).
   */
  attach(
    options: {
      after?: number;
      undelivered?: boolean;
      prime?: boolean;
      retryMs?: number;
      resumed?: boolean;
    } = {},
  ): ReadableStream<Uint8Array> {
    const old = this.#sink;
    if (old !== undefined) {
      this.#sink = undefined;
      old.drop("a newer connection took over this stream (Last-Event-ID)");
      this.onDetach?.();
    }
    if (options.resumed) this.#replay.markResumed();
    const after = options.after ??
      (options.undelivered ? this.#deliveredSeq : undefined);
    const sink = new EventSink(this.#budget, after ?? this.#deliveredSeq);
    sink.onGone = () => {
      if (this.#sink === sink) this.#lost();
    };
    this.#sink = sink;
    this.#delivered = true;
    if (after !== undefined) {
      for (const event of this.#sent) {
        if (event.seq > after && sink.push(event.bytes, event.seq)) {
          this.#deliveredSeq = event.seq;
        }
      }
    }
    if (options.prime) {
      sink.push(
        encoder.encode(encodeEvent(this.#nextId(), "", options.retryMs)),
      );
    }
    if (this.#ended) this.#closeSink();
    return sink.body;
  }

  /**
   * Send `data`, one JSON text (an encoded message), as the next event
   * (kept for replay).
   */
  write(data: string): void {
    if (this.#ended) return;
    const seq = ++this.#seq;
    const bytes = encoder.encode(encodeJsonEvent(`${this.id}_${seq}`, data));
    this.#sent.push({ seq, bytes });
    this.#sentBytes += bytes.byteLength;
    while (
      this.#sent.length > this.#maxEvents ||
      (this.#sentBytes > this.#maxBytes && this.#sent.length > 1)
    ) {
      this.#sentBytes -= this.#sent.shift()!.bytes.byteLength;
    }
    this.#replay.set(this.#sentBytes);
    const sink = this.#sink;
    if (sink === undefined) this.#delivered = false;
    else if (
      sink.queuedBytes > 0 &&
      sink.queuedBytes + bytes.byteLength > this.#maxQueued
    ) this.#tooSlow(sink);
    else if (sink.push(bytes, seq)) this.#deliveredSeq = seq;
  }

  /**
   * A keep-alive tick (see {@linkcode EventSink.keepAlive}): whether an
   * attached client takes what it is sent (false when none is attached).
   */
  keepAlive(): boolean {
    return this.#sink?.keepAlive() ?? false;
  }

  // The attached client takes nothing (its connection's writes wait):
  // its response fails, so that its connection closes, and what was
  // queued for it counts as undelivered, to be replayed on its resume.
  #tooSlow(sink: EventSink): void {
    this.#deliveredSeq = sink.takenSeq;
    this.#lost();
    sink.drop(
      `the client took none of the last ${this.#maxQueued} bytes of events`,
    );
  }

  /**
   * Close the attached client's connection now (the stream goes on): with
   * `retryMs`, it is first told how long to wait before reconnecting.
   */
  disconnect(retryMs?: number): void {
    const sink = this.#sink;
    if (sink === undefined) return;
    if (retryMs !== undefined) {
      sink.push(encoder.encode(encodeEvent(this.#nextId(), "", retryMs)));
    }
    this.#closeSink();
    this.onDetach?.();
  }

  /** Detach the attached client without closing the stream for good. */
  detach(): void {
    if (this.#sink === undefined) return;
    this.#closeSink();
    this.onDetach?.();
  }

  /** No more events: the attached client's response ends. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#closeSink();
  }

  /**
   * Let go of the events kept for replay (the stream cannot be resumed any
   * more); an attached client still gets what was queued for it.
   */
  forget(): void {
    this.#sent = [];
    this.#sentBytes = 0;
    this.#replay.close();
  }

  // An id for an event that carries no data: it takes a sequence number,
  // so a reconnect after it replays only what came later.
  #nextId(): string {
    return `${this.id}_${++this.#seq}`;
  }

  #lost(): void {
    this.#sink = undefined;
    this.#delivered = false;
    this.onDetach?.();
  }

  #closeSink(): void {
    const sink = this.#sink;
    this.#sink = undefined;
    sink?.close();
  }
}
