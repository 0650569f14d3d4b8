/**
 * One client connection, whatever its transport: a session, dispatch of
 * what the transport reads, answers written back in request order where it
 * costs little, cancellation, and the drain at the end.
 *
 * Requests are dispatched as they arrive, so the reader never waits on a
 * handler. Answers leave in request order where it costs little (see
 * `response_order.ts`): no answer waits long behind a slower one, and a
 * handler that starts waiting on the client stops holding later answers
 * back at once.
 *
 * Memory is bounded whatever the client does: at most
 * {@linkcode MAX_CONCURRENT_REQUESTS} handlers run at once; the transport
 * pauses reading while too many requests wait, and while the answers
 * finished but not yet written exceed a character budget (see
 * `output_budget.ts`), in which case no waiting request starts either,
 * until the client reads. A request beyond
 * {@linkcode DEFAULT_MAX_REQUESTS_IN_FLIGHT} unanswered ones (what arrives
 * in one chunk before a pause, or on a transport that cannot pause) is
 * answered at once with an error instead of waiting.
 *
 * A handler waiting on the client (a sampling request, say) holds no slot
 * while it waits, and while one waits reading never pauses for held
 * requests: the client's answer has to be read. The limit on requests in
 * flight bounds what is held meanwhile.
 *
 * @module
 */

import {
  classify,
  decode,
  describeError,
  encodeError,
  ErrorCode,
  type IncomingMessage,
  type RequestMessage,
} from "./jsonrpc.ts";
import { Fifo } from "./fifo.ts";
import { notifyListChanged } from "./list_changed.ts";
import { loadingSettled } from "./loading.ts";
import type { Logger } from "./log.ts";
import { DEFAULT_OUTPUT_BUDGET_CHARS, OutputBudget } from "./output_budget.ts";
import { allowsBatches } from "./protocol_versions.ts";
import { type Place, ResponseOrder } from "./response_order.ts";
import {
  type DispatchResult,
  encodeInternalError,
  type McpServer,
} from "./server.ts";
import { Session } from "./session.ts";
import type { InputEnd, Receiver, Transport } from "./transport.ts";

/** Options for {@linkcode serve}. */
export interface ConnectionOptions {
  /**
   * Stop reading when aborted, then finish as at end of input, but give up
   * on what is left after `stopGraceMs`.
   */
  signal?: AbortSignal;
  /**
   * After `signal` aborts, how long work in flight and unwritten answers
   * get before `serve` resolves anyway; default 2,000 ms.
   */
  stopGraceMs?: number;
  /**
   * After the input ends, how long unwritten answers may wait for the
   * client to read (no write completing) before `serve` gives up on them
   * and resolves; default 5,000 ms. Handlers still running get six times
   * as long without one finishing.
   */
  drainTimeoutMs?: number;
  /**
   * Characters of answers finished but not yet written above which no new
   * request starts and reading pauses; default 8 Mi.
   */
  outputBudgetChars?: number;
  /** How long a ready answer may wait behind a slower one; default 200 ms. */
  maxWaitMs?: number;
  /** Called with the session once it exists (to attach watchers and such). */
  onSession?: (session: Session) => void;
  /**
   * Requests unanswered at once (waiting to start, running, or waiting on
   * the client) beyond which a new one is refused with
   * {@linkcode BUSY_CODE}; default {@linkcode DEFAULT_MAX_REQUESTS_IN_FLIGHT}.
   */
  maxRequestsInFlight?: number;
}

/** Most messages one batch may carry (batches exist only in 2025-03-26). */
export const MAX_BATCH_MESSAGES = 100;

/**
 * Requests handled at once on one connection; more wait their turn. Eight
 * keep file I/O overlapped; more only raise peak memory when every handler
 * builds a large answer (16 peaked near 300 MB in `deno task bench`'s
 * slow-reader flood, 8 at about 220 MB).
 */
export const MAX_CONCURRENT_REQUESTS = 8;

/**
 * Places held in the order of answers (requests waiting or running, and
 * answers waiting for an earlier one) at which reading pauses until half
 * have gone out: a flood of requests costs bounded memory.
 */
export const MAX_HELD_RESPONSES = 4096;

/**
 * Default of {@linkcode ConnectionOptions.maxRequestsInFlight}: the
 * requests one connection may have unanswered. Reading pauses at half of
 * it ({@linkcode MAX_HELD_RESPONSES}, where held answers pause it too)
 * until a quarter is left, so a client over a transport that pauses meets
 * it only when one chunk of input carries thousands of requests, or while
 * a handler waits on the client (reading cannot pause then).
 */
export const DEFAULT_MAX_REQUESTS_IN_FLIGHT = 2 * MAX_HELD_RESPONSES;

/**
 * The JSON-RPC error code of a request refused because the connection has
 * too many in flight (a server error, in JSON-RPC's reserved range).
 */
export const BUSY_CODE: number = ErrorCode.ServerError;

/**
 * Default of {@linkcode ConnectionOptions.drainTimeoutMs}: how long
 * unwritten output may stand still after the input ends (ms).
 */
export const DEFAULT_DRAIN_TIMEOUT_MS = 5_000;

/**
 * How often a wait on a client that may never read again checks the
 * output for progress (ms): the drain after the input ends, and a
 * transport's paused reader once the input has ended behind the pause.
 */
export const DRAIN_TICK_MS = 100;

/** Default of {@linkcode ConnectionOptions.stopGraceMs}. */
const DEFAULT_STOP_GRACE_MS = 2_000;

/** A timer that can be cleared, as a promise. */
export function sleep(ms: number): { promise: Promise<void>; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

interface Waiting {
  readonly message: RequestMessage;
  readonly key: string;
  readonly place: Place;
  cancelled: boolean;
}

/** A running handler: how many of its requests to the client are pending. */
interface Running {
  waits: number;
}

/**
 * Serve one client over `transport` until its input ends (or `signal`),
 * then finish in-flight requests, flush, and resolve. Never rejects
 * because of anything the client sent.
 *
 * @example Serve one connection over stdio
 * ```ts ignore
 * import { handlers } from "../handlers/mod.ts";
 * import { serve } from "./connection.ts";
 * import { McpServer } from "./server.ts";
 * import { StdioTransport } from "./transports/stdio.ts";
 *
 * const server = new McpServer({
 *   handlers,
 *   info: { name: "example-mcp", version: "1.0.0" },
 * });
 * await serve(server, new StdioTransport());
 * ```
 */
export async function serve(
  server: McpServer,
  transport: Transport,
  options: ConnectionOptions = {},
): Promise<void> {
  const connection = new Connection(server, transport, options);
  const signal = options.signal;
  const stop = () => transport.stop();
  signal?.addEventListener("abort", stop, { once: true });
  if (signal?.aborted) stop();
  let end: InputEnd;
  try {
    // The transport can send once `start` has been called, and delivers
    // no message before the session is announced.
    const started = transport.start(connection);
    try {
      options.onSession?.(connection.session);
    } catch (error) {
      // The caller's hook is not the client's fault: serve on without it.
      server.logger.log("error", "onSession failed:", error);
    }
    end = await started;
  } finally {
    signal?.removeEventListener("abort", stop);
  }
  await connection.end(end);
  transport.close();
}

/** The state of one connection; the transport's {@linkcode Receiver}. */
class Connection implements Receiver {
  readonly budget: OutputBudget;
  readonly #server: McpServer;
  readonly #transport: Transport;
  readonly #options: ConnectionOptions;
  readonly #order: ResponseOrder;
  readonly #session: Session;
  readonly #stopListening: () => void;
  // At most MAX_CONCURRENT_REQUESTS handlers run at once, and none starts
  // while the output budget is spent; later requests wait their turn in
  // arrival order (their place in the output is kept), while notifications
  // and the client's responses are handled at once.
  #running = 0;
  // Handlers started and not finished, by request key: those waiting on
  // the client (waits > 0) are not counted in #running.
  readonly #active = new Map<string, Running>();
  /** Handlers waiting on the client. */
  #parked = 0;
  // Requests to the client made by a request not tracked yet (during its
  // dispatch, or by a batch's member), by its key.
  readonly #early = new Map<string, number>();
  /** Resolved when a handler starts waiting on the client. */
  #onParked: PromiseWithResolvers<void> | undefined;
  /** Resolved once at most `below` requests are in flight. */
  #onInFlightRoom: { below: number; resolve: () => void } | undefined;
  readonly #maxInFlight: number;
  /** Handlers finished so far: progress, for the end-of-input wait. */
  #finishedCount = 0;
  #allFinished: PromiseWithResolvers<void> | undefined;
  readonly #waiting = new Fifo<Waiting>();
  readonly #waitingByKey = new Map<string, Waiting>();
  #waitingForRoom = false;
  // Bound once: they are called for every request that runs or waits.
  readonly #settled = () => this.#onSettled();
  readonly #pump = () => {
    this.#waitingForRoom = false;
    this.#pumpWaiting();
  };

  constructor(
    server: McpServer,
    transport: Transport,
    options: ConnectionOptions,
  ) {
    this.#server = server;
    this.#transport = transport;
    this.#options = options;
    this.budget = new OutputBudget(
      options.outputBudgetChars ?? DEFAULT_OUTPUT_BUDGET_CHARS,
    );
    this.#order = new ResponseOrder(
      (line, id) => transport.send(line, id),
      {
        budget: this.budget,
        maxWaitMs: options.maxWaitMs,
        loading: loadingSettled,
      },
    );
    this.#maxInFlight = options.maxRequestsInFlight ??
      DEFAULT_MAX_REQUESTS_IN_FLIGHT;
    const session = new Session((line, related) =>
      transport.send(line, undefined, related)
    );
    this.#session = session;
    session.onWaitingForClient = (key) => {
      this.#order.release(key);
      this.#park(key);
    };
    session.onClientAnswered = (key) => this.#unpark(key);
    session.onCancelled = (key) => {
      // Not started yet: it never starts. Ready and held back, or queued
      // for output: taken back. Running: its handler was aborted, and
      // whatever it still returns is dropped with its place.
      const queued = this.#waitingByKey.get(key);
      if (queued !== undefined) queued.cancelled = true;
      this.#order.cancel(key);
      transport.drop(key);
    };
    // The server's lists changed: tell this session, if it was promised.
    this.#stopListening = server.onListChanged((kind) =>
      notifyListChanged(server.capabilities, session, kind)
    );
  }

  /** The connection's session. */
  get session(): Session {
    return this.#session;
  }

  // What the transport logs (a line too long, input that failed)
  // concerns this connection's session alone.
  get logger(): Logger {
    return this.#server.loggerFor(this.#session);
  }

  /** See {@linkcode Receiver.drainTimeoutMs}. */
  get drainTimeoutMs(): number {
    return this.#options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
  }

  receive(text: string): void {
    if (text.charCodeAt(0) <= 32 && text.trim().length === 0) return;
    if (
      text.charCodeAt(0) === 91 /* [ */ &&
      allowsBatches(this.#session.protocolVersion) && this.#batch(text)
    ) return;
    this.accept(decode(text));
  }

  accept(message: IncomingMessage): void {
    if (message.kind === "request") {
      // Requests answered at once (ping) never queue behind slow ones.
      if (
        (this.#waiting.size > 0 || this.#running >= MAX_CONCURRENT_REQUESTS ||
          this.budget.over || this.#active.size >= this.#maxInFlight) &&
        !this.#server.answersAtOnce(message.method)
      ) {
        if (this.#inFlight >= this.#maxInFlight) {
          this.#order.now(this.#busy(message), message.id);
          return;
        }
        const place = this.#order.add(message.id);
        const key = place.key;
        const queued: Waiting = { message, key, place, cancelled: false };
        this.#waiting.push(queued);
        this.#waitingByKey.set(key, queued);
        this.#pumpWaiting();
        return;
      }
      const response = this.#dispatchRequest(message);
      if (response instanceof Promise) {
        this.#track(response, this.#order.add(message.id), message);
      } else this.#order.now(response, message.id);
      return;
    }
    const response = this.#dispatchOther(message);
    // Only invalid messages are answered, and at once; a notification's
    // handler never answers (the server ignores what it returns).
    if (typeof response === "string") this.#order.now(response, undefined);
  }

  reject(code: number, detail: string): void {
    this.#order.now(
      encodeError(null, code, describeError(code, detail)),
      undefined,
    );
  }

  pressure(): Promise<void> | undefined {
    if (this.budget.over) return this.budget.room();
    // While a handler waits on the client, its answer must be read: the
    // limit on requests in flight bounds what is held meanwhile.
    if (this.#parked > 0) return undefined;
    let room: Promise<void> | undefined;
    if (this.#order.size >= MAX_HELD_RESPONSES) {
      room = this.#order.room(MAX_HELD_RESPONSES / 2);
    } else if (this.#inFlight >= this.#maxInFlight / 2) {
      const below = Math.floor(this.#maxInFlight / 4);
      room = new Promise((resolve) =>
        this.#onInFlightRoom = { below, resolve }
      );
    }
    if (room === undefined) return undefined;
    return Promise.race([
      room,
      (this.#onParked ??= Promise.withResolvers<void>()).promise,
    ]);
  }

  /** Requests not answered yet: waiting to start, running, or parked. */
  get #inFlight(): number {
    return this.#waiting.size + this.#active.size;
  }

  #busy(message: RequestMessage): string {
    return encodeError(
      message.id,
      BUSY_CODE,
      `Server busy: this connection already has ${this.#maxInFlight} requests in flight; wait for their answers (or cancel some) before sending more.`,
    );
  }

  // A running handler waits on the client: it gives up its slot, so
  // requests behind it start.
  #park(key: string): void {
    const running = this.#active.get(key);
    if (running === undefined) {
      this.#early.set(key, (this.#early.get(key) ?? 0) + 1);
      return;
    }
    if (running.waits++ > 0) return;
    this.#running--;
    this.#addParked();
    this.#pumpWaiting();
  }

  #addParked(): void {
    this.#parked++;
    if (this.#onParked !== undefined) {
      this.#onParked.resolve();
      this.#onParked = undefined;
    }
  }

  // The client answered: the handler runs again (possibly above the cap
  // for a while: it cannot be made to wait its turn mid-call).
  #unpark(key: string): void {
    const running = this.#active.get(key);
    if (running === undefined) {
      const early = this.#early.get(key);
      if (early === undefined) return;
      if (early > 1) this.#early.set(key, early - 1);
      else this.#early.delete(key);
      return;
    }
    if (running.waits === 0) return;
    if (--running.waits > 0) return;
    this.#running++;
    this.#parked--;
  }

  /** Reading is over: finish what is in flight (see {@linkcode serve}). */
  async end(end: InputEnd): Promise<void> {
    const session = this.#session;
    const transport = this.#transport;
    this.#stopListening();
    if (end === "abandoned") {
      session.close();
      this.#order.close();
      return;
    }
    // Work in flight may still send notifications ahead of its answer;
    // only requests to the client are over.
    session.endInput();
    if (this.#options.signal?.aborted) {
      // Stopped: requests that have not started will not.
      const waiting = this.#waiting;
      for (let next = waiting.shift(); next; next = waiting.shift()) {
        this.#order.complete(next.place, undefined);
      }
      this.#waitingByKey.clear();
    }
    await drain(this.#options, {
      running: () => this.#running + this.#parked,
      progress: () => this.#finishedCount + transport.progress,
      settled: () => {
        if (this.#running + this.#parked === 0 && this.#waiting.size === 0) {
          return Promise.resolve();
        }
        return (this.#allFinished ??= Promise.withResolvers<void>()).promise;
      },
      transport,
      log: (text) => this.#server.logger.log("warn", text),
    });
    session.close();
    this.#order.close();
  }

  // dispatch catches handler errors itself; what it throws is a bug in
  // the core, logged, and answered with -32603 for a request.
  #dispatchRequest(
    message: RequestMessage,
  ): string | Promise<string | undefined> {
    try {
      return this.#server.dispatch(message, this.#session);
    } catch (error) {
      this.logger.log("error", "dispatch failed:", error);
      return this.#internalError(message);
    }
  }

  #dispatchOther(message: IncomingMessage): DispatchResult {
    try {
      return this.#server.dispatch(message, this.#session);
    } catch (error) {
      this.logger.log("error", "dispatch failed:", error);
      return undefined;
    }
  }

  #internalError(message: RequestMessage): string {
    return encodeInternalError(message.id, message.method);
  }

  #pumpWaiting(): void {
    const waiting = this.#waiting;
    while (
      waiting.size > 0 && this.#running < MAX_CONCURRENT_REQUESTS &&
      !this.budget.over
    ) {
      const next = waiting.shift()!;
      if (this.#waitingByKey.get(next.key) === next) {
        this.#waitingByKey.delete(next.key);
      }
      if (next.cancelled) this.#order.complete(next.place, undefined);
      else this.#start(next.message, next.place);
    }
    if (waiting.size > 0 && this.budget.over && !this.#waitingForRoom) {
      this.#waitingForRoom = true;
      this.budget.room().then(this.#pump);
    }
  }

  #start(message: RequestMessage, place: Place): void {
    const response = this.#dispatchRequest(message);
    if (response instanceof Promise) this.#track(response, place, message);
    else this.#order.complete(place, response);
  }

  #track(
    response: Promise<string | undefined>,
    place: Place,
    message: RequestMessage,
  ): void {
    const key = place.key;
    const running: Running = { waits: 0 };
    this.#active.set(key, running);
    // A handler that asked the client something before dispatch returned
    // is waiting already (and its place, taken after dispatch, was not
    // there to be released).
    const early = this.#early.get(key);
    if (early === undefined) this.#running++;
    else {
      this.#early.delete(key);
      running.waits = early;
      this.#addParked();
      this.#order.release(key);
    }
    response.then(
      (line) => this.#order.complete(place, line),
      (error) => {
        this.logger.log("error", "dispatch failed:", error);
        this.#order.complete(place, this.#internalError(message));
      },
    ).finally(() => {
      this.#finish(place.key, running);
      this.#onSettled();
    });
  }

  // A handler is done: if it still waited on the client, it gave up its
  // slot then, so #onSettled must not give it up again.
  #finish(key: string, running: Running): void {
    if (this.#active.get(key) === running) this.#active.delete(key);
    if (running.waits > 0) {
      running.waits = 0;
      this.#parked--;
      this.#running++;
    }
  }

  // One running handler (or batch) is done: start what waits.
  #onSettled(): void {
    this.#running--;
    this.#finishedCount++;
    this.#pumpWaiting();
    const room = this.#onInFlightRoom;
    if (room !== undefined && this.#inFlight <= room.below) {
      this.#onInFlightRoom = undefined;
      room.resolve();
    }
    if (
      this.#running + this.#parked === 0 && this.#waiting.size === 0 &&
      this.#allFinished !== undefined
    ) {
      this.#allFinished.resolve();
      this.#allFinished = undefined;
    }
  }

  // A batch (only where the session's version allows one): its members
  // are handled together and answered in one array, in the place of the
  // text that carried them; a batch of notifications is answered by
  // nothing. Anything that is not a usable batch is decoded as one
  // message, which answers it with the right error.
  #batch(text: string): boolean {
    let items: unknown;
    try {
      items = JSON.parse(text);
    } catch {
      return false;
    }
    if (!Array.isArray(items)) return false;
    if (items.length === 0 || items.length > MAX_BATCH_MESSAGES) {
      this.reject(
        ErrorCode.InvalidRequest,
        items.length === 0
          ? "the batch is empty; put at least one message in it."
          : `a batch of ${items.length} messages is over the limit of ${MAX_BATCH_MESSAGES}; send smaller batches.`,
      );
      return true;
    }
    const answers = items.map((item) => {
      const message = classify(item);
      if (message.kind !== "request") {
        const response = this.#dispatchOther(message);
        return typeof response === "string" ? response : undefined;
      }
      const response = this.#dispatchRequest(message);
      return response instanceof Promise
        ? response.catch(() => this.#internalError(message))
        : response;
    });
    const place = this.#order.add(undefined);
    this.#running++;
    Promise.all(answers).then((lines) => {
      const sent = lines.filter((line) => line !== undefined);
      this.#order.complete(
        place,
        sent.length === 0 ? undefined : `[${sent.join(",")}]`,
      );
    }).finally(this.#settled);
    return true;
  }
}

/**
 * After reading stops: wait for handlers in flight and for the output, as
 * long as something moves (and, after a stop signal, no longer than the
 * grace period), so that a client that never reads cannot keep the
 * process alive.
 */
async function drain(
  options: ConnectionOptions,
  state: {
    running(): number;
    progress(): number;
    settled(): Promise<void>;
    transport: Transport;
    log(text: string): void;
  },
): Promise<void> {
  const { transport } = state;
  const drainTimeout = options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
  const grace = options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS;
  let done = false;
  const all = (async () => {
    await state.settled();
    await transport.flush();
    done = true;
  })();
  let progress = state.progress();
  let lastMove = performance.now();
  let deadline = options.signal?.aborted ? lastMove + grace : Infinity;
  while (!done && !transport.broken) {
    const tick = sleep(DRAIN_TICK_MS);
    await Promise.race([all, tick.promise]);
    tick.cancel();
    if (done || transport.broken) return;
    const now = performance.now();
    if (deadline === Infinity && options.signal?.aborted) {
      deadline = now + grace;
    }
    const moved = state.progress();
    if (moved !== progress) {
      progress = moved;
      lastMove = now;
    }
    // Stuck output is the client's doing; a running handler is bounded by
    // its own limits and gets longer.
    const patience = state.running() === 0 ? drainTimeout : drainTimeout * 6;
    if (now >= deadline || now - lastMove >= patience) {
      state.log(
        `gave up waiting: ${state.running()} requests still running, ${transport.backlog} characters unwritten (${
          now >= deadline
            ? "stop signal"
            : "the client stopped reading or a handler stalled"
        })`,
      );
      return;
    }
  }
}
