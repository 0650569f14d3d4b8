/**
 * Server-sent events for the Streamable HTTP transport: one
 * {@linkcode SseStream} per stream of a session (the answers to one POST,
 * or the standalone stream a GET opens), with event ids, a bounded buffer
 * of what was sent, and resumption: a client that lost the connection
 * reconnects with `Last-Event-ID` and is sent what it missed.
 *
 * @module
 */

/** Events kept per stream for resumption; older ones are forgotten. */
export const DEFAULT_REPLAY_EVENTS = 256;

/** Characters of event data kept per stream for resumption. */
export const DEFAULT_REPLAY_CHARS = 4 * 1024 * 1024;

/**
 * Bytes of events queued for an attached client that is not taking them
 * (its connection's writes wait) before it is detached.
 */
export const DEFAULT_MAX_QUEUED_BYTES = 8 * 1024 * 1024;

const encoder = new TextEncoder();

interface Sent {
  readonly seq: number;
  /** The whole encoded event, as written. */
  readonly text: string;
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
 * One SSE stream of a session. Events written while no client is attached
 * are kept (within bounds) until one reconnects with `Last-Event-ID`.
 */
export class SseStream {
  /** The stream's id, the prefix of its event ids. */
  readonly id: string;
  readonly #maxEvents: number;
  readonly #maxChars: number;
  readonly #maxQueued: number;
  readonly #sent: Sent[] = [];
  #sentChars = 0;
  #seq = 0;
  #sink: ReadableStreamDefaultController<Uint8Array> | undefined;
  #ended = false;
  /** The last sequence number written to an attached client. */
  #deliveredSeq = 0;
  /** The last sequence number the attached client has taken for sure. */
  #takenSeq = 0;
  /** Whether every event written so far has reached an attached client. */
  #delivered = true;
  /** Called when the attached client goes away (or is detached). */
  onDetach: (() => void) | undefined;

  /**
   * A stream with id `id`; events kept for replay are bounded, and so are
   * the bytes queued for a client that does not read (`maxQueuedBytes`).
   */
  constructor(
    id: string,
    options: {
      maxEvents?: number;
      maxChars?: number;
      maxQueuedBytes?: number;
    } = {},
  ) {
    this.id = id;
    this.#maxEvents = options.maxEvents ?? DEFAULT_REPLAY_EVENTS;
    this.#maxChars = options.maxChars ?? DEFAULT_REPLAY_CHARS;
    this.#maxQueued = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
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

  /**
   * Attach a new client: returns the body of its response, starting with
   * the events after sequence number `after` still kept (none when
   * `after` is undefined, or, with `undelivered`, those that reached no
   * client), and `prime` (an event with an id and no data,
   * and a `retry` field when `retryMs` is given) when asked. A client
   * attached before is detached. An ended stream closes after the replay.
   */
  attach(
    options: {
      after?: number;
      undelivered?: boolean;
      prime?: boolean;
      retryMs?: number;
    } = {},
  ): ReadableStream<Uint8Array> {
    this.detach();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
      },
      cancel: () => {
        if (this.#sink === controller) this.#lost();
      },
    }, {
      highWaterMark: this.#maxQueued,
      size: (chunk) => chunk.byteLength,
    });
    this.#sink = controller;
    this.#delivered = true;
    const after = options.after ??
      (options.undelivered ? this.#deliveredSeq : undefined);
    if (after !== undefined) {
      for (const event of this.#sent) {
        if (event.seq > after && this.#enqueue(event.text)) {
          this.#deliveredSeq = event.seq;
        }
      }
    }
    if (options.prime) {
      this.#enqueue(encodeEvent(this.#nextId(), "", options.retryMs));
    }
    if (this.#ended) this.#closeSink();
    return body;
  }

  /** Send `data` as the next event (kept for replay). */
  write(data: string): void {
    if (this.#ended) return;
    const seq = ++this.#seq;
    const text = encodeEvent(`${this.id}_${seq}`, data);
    this.#sent.push({ seq, text });
    this.#sentChars += text.length;
    while (
      this.#sent.length > this.#maxEvents ||
      (this.#sentChars > this.#maxChars && this.#sent.length > 1)
    ) {
      this.#sentChars -= this.#sent.shift()!.text.length;
    }
    if (this.#sink === undefined) this.#delivered = false;
    else if (this.#overflows(text)) this.#tooSlow();
    else if (this.#enqueue(text)) this.#deliveredSeq = seq;
  }

  // Whether `text` would take the attached client's queue past its bound.
  // An empty queue takes any event: everything before it was taken.
  #overflows(text: string): boolean {
    const room = this.#sink?.desiredSize ?? 0;
    if (room >= this.#maxQueued) {
      this.#takenSeq = this.#deliveredSeq;
      return false;
    }
    return room < text.length * 3 && room < encoder.encode(text).byteLength;
  }

  // The attached client takes nothing (its connection's writes wait):
  // its response fails, so that its connection closes, and what was
  // queued for it counts as undelivered, to be replayed on its resume.
  #tooSlow(): void {
    const sink = this.#sink!;
    this.#deliveredSeq = this.#takenSeq;
    this.#lost();
    try {
      sink.error(
        new Error(
          `the client took none of the last ${this.#maxQueued} bytes of events`,
        ),
      );
    } catch {
      // Gone already.
    }
  }

  /**
   * Close the attached client's connection now (the stream goes on): with
   * `retryMs`, it is first told how long to wait before reconnecting.
   */
  disconnect(retryMs?: number): void {
    if (this.#sink === undefined) return;
    if (retryMs !== undefined) {
      this.#enqueue(encodeEvent(this.#nextId(), "", retryMs));
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

  // An id for an event that carries no data: it takes a sequence number,
  // so a reconnect after it replays only what came later.
  #nextId(): string {
    return `${this.id}_${++this.#seq}`;
  }

  #enqueue(text: string): boolean {
    const sink = this.#sink;
    if (sink === undefined) return false;
    try {
      sink.enqueue(encoder.encode(text));
      return true;
    } catch {
      // The client went away between our check and the write.
      this.#lost();
      return false;
    }
  }

  #lost(): void {
    this.#sink = undefined;
    this.#delivered = false;
    this.onDetach?.();
  }

  #closeSink(): void {
    const sink = this.#sink;
    this.#sink = undefined;
    if (sink === undefined) return;
    try {
      sink.close();
    } catch {
      // Already closed or errored by the client going away.
    }
  }
}
