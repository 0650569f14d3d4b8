/**
 * The stdio transport: newline-delimited JSON-RPC on a byte stream in and a
 * byte stream out, one session per connection.
 *
 * Requests are dispatched as they arrive, so the reader never waits on a
 * handler. Answers leave in request order where it costs little (see
 * `../response_order.ts`): no answer waits long behind a slower one, and a
 * handler that starts waiting on the client stops holding later answers
 * back at once.
 *
 * Memory is bounded whatever the client does: at most
 * {@linkcode MAX_CONCURRENT_REQUESTS} handlers run at once; reading pauses
 * while too many requests wait, and while the answers finished but not yet
 * written exceed a character budget (see `../output_budget.ts`), in which
 * case no waiting request starts either, until the client reads.
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
} from "../jsonrpc.ts";
import {
  DEFAULT_MAX_LINE_BYTES,
  type Line,
  LineSplitter,
  OversizedLine,
  startsWithBom,
} from "../line_stream.ts";
import { Fifo } from "../fifo.ts";
import { allowsBatches } from "../protocol_versions.ts";
import { loadingSettled } from "../loading.ts";
import { type ByteWriter, MessageWriter } from "../message_writer.ts";
import { DEFAULT_OUTPUT_BUDGET_CHARS, OutputBudget } from "../output_budget.ts";
import { type Place, ResponseOrder } from "../response_order.ts";
import type { DispatchResult, McpServer } from "../server.ts";
import { Session } from "../session.ts";

export type { ByteWriter } from "../message_writer.ts";

/** Options for {@linkcode serveStdio}. */
export interface StdioOptions {
  /** Where messages come from; default `Deno.stdin.readable`. */
  input?: ReadableStream<Uint8Array>;
  /** Where messages go; default `Deno.stdout`. */
  output?: ByteWriter;
  /** Longest accepted line in bytes; default 8 MiB. */
  maxLineBytes?: number;
  /**
   * Stop reading when aborted, then finish as at end of input, but give up
   * on what is left after `stopGraceMs`.
   */
  signal?: AbortSignal;
  /**
   * After `signal` aborts, how long work in flight and unwritten answers
   * get before `serveStdio` resolves anyway; default 2,000 ms.
   */
  stopGraceMs?: number;
  /**
   * After the input ends, how long unwritten answers may wait for the
   * client to read (no write completing) before `serveStdio` gives up on
   * them and resolves; default 5,000 ms. Handlers still running get six
   * times as long without one finishing.
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
 * Unwritten output beyond which the reader pauses until it is written.
 * Small on purpose: a client that sends faster than it reads should not
 * make the server hold megabytes of answers. In `deno task bench`, 64 Ki
 * chars keeps the throughput of a larger buffer at a lower peak memory.
 */
const HIGH_WATER_CHARS = 64 * 1024;

/** How often the end-of-input wait checks for progress (ms). */
const DRAIN_TICK_MS = 100;

/** Default of {@linkcode StdioOptions.drainTimeoutMs}. */
const DEFAULT_DRAIN_TIMEOUT_MS = 5_000;

/**
 * Input read ahead (kept for later) while reading is paused, to notice the
 * end of input: about one chunk. More costs memory in every flood (chunks
 * read early are held until their turn); a client that sends more than this
 * beyond the pause and then never reads is waited for, as its input is
 * still open as far as the server can tell.
 */
const READ_AHEAD_BYTES = 64 * 1024;

interface Waiting {
  readonly message: RequestMessage;
  readonly key: string;
  readonly place: Place;
  cancelled: boolean;
}

/** A timer that can be cleared, as a promise. */
function sleep(ms: number): { promise: Promise<void>; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
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
  const budget = new OutputBudget(
    options.outputBudgetChars ?? DEFAULT_OUTPUT_BUDGET_CHARS,
  );
  const writer = new MessageWriter(options.output ?? Deno.stdout, budget);
  const order = new ResponseOrder((line, id) => writer.write(line, id), {
    budget,
    maxWaitMs: options.maxWaitMs,
    loading: loadingSettled,
  });
  const session = new Session((line) => writer.write(line));
  session.onWaitingForClient = (key) => order.release(key);
  options.onSession?.(session);

  // At most MAX_CONCURRENT_REQUESTS handlers run at once, and none starts
  // while the output budget is spent; later requests wait their turn in
  // arrival order (their place in the output is kept), while notifications
  // and the client's responses are handled at once.
  let running = 0;
  /** Handlers finished so far: progress, for the end-of-input wait. */
  let finishedCount = 0;
  let allFinished: PromiseWithResolvers<void> | undefined;
  const waiting = new Fifo<Waiting>();
  const waitingByKey = new Map<string, Waiting>();
  let waitingForRoom = false;

  session.onCancelled = (key) => {
    // Not started yet: it never starts. Ready and held back, or queued for
    // output: taken back. Running: its handler was aborted, and whatever
    // it still returns is dropped with its place.
    const queued = waitingByKey.get(key);
    if (queued !== undefined) queued.cancelled = true;
    order.cancel(key);
    writer.drop(key);
  };

  const dispatch = (message: IncomingMessage): DispatchResult => {
    try {
      return server.dispatch(message, session);
    } catch (error) {
      // dispatch catches handler errors itself; this is a bug in the core.
      server.logger.log("error", "dispatch failed:", error);
      return message.kind === "request" ? internalError(message) : undefined;
    }
  };

  const internalError = (message: RequestMessage): string =>
    encodeError(
      message.id,
      ErrorCode.InternalError,
      describeError(
        ErrorCode.InternalError,
        `the server failed while handling "${message.method}"; its log (stderr) has the details.`,
      ),
    );

  const pump = (): void => {
    while (
      waiting.size > 0 && running < MAX_CONCURRENT_REQUESTS && !budget.over
    ) {
      const next = waiting.shift()!;
      if (waitingByKey.get(next.key) === next) waitingByKey.delete(next.key);
      if (next.cancelled) order.complete(next.place, undefined);
      else start(next.message, next.place);
    }
    if (waiting.size > 0 && budget.over && !waitingForRoom) {
      waitingForRoom = true;
      budget.room().then(() => {
        waitingForRoom = false;
        pump();
      });
    }
  };

  const start = (message: RequestMessage, place: Place): void => {
    const response = dispatch(message);
    if (response instanceof Promise) track(response, place, message);
    else order.complete(place, response ?? internalError(message));
  };

  const track = (
    response: Promise<string | undefined>,
    place: Place,
    message: RequestMessage,
  ): void => {
    running++;
    response.then(
      (line) => order.complete(place, line),
      (error) => {
        server.logger.log("error", "dispatch failed:", error);
        order.complete(place, internalError(message));
      },
    ).finally(settled);
  };

  // One running handler (or batch) is done: start what waits.
  const settled = (): void => {
    running--;
    finishedCount++;
    pump();
    if (running === 0 && waiting.size === 0 && allFinished !== undefined) {
      allFinished.resolve();
      allFinished = undefined;
    }
  };

  // An Invalid Request error for a line that carried no usable id.
  const invalidRequest = (detail: string): void =>
    order.now(
      encodeError(
        null,
        ErrorCode.InvalidRequest,
        describeError(ErrorCode.InvalidRequest, detail),
      ),
      undefined,
    );

  // A batch (only where the session's version allows one): its members
  // are handled together and answered in one array, in the place of the
  // line that carried them; a batch of notifications is answered by
  // nothing. Anything that is not a usable batch is decoded as one
  // message, which answers it with the right error.
  const onBatch = (text: string): boolean => {
    let items: unknown;
    try {
      items = JSON.parse(text);
    } catch {
      return false;
    }
    if (!Array.isArray(items)) return false;
    if (items.length === 0 || items.length > MAX_BATCH_MESSAGES) {
      invalidRequest(
        items.length === 0
          ? "the batch is empty; put at least one message in it."
          : `a batch of ${items.length} messages is over the limit of ${MAX_BATCH_MESSAGES}; send smaller batches.`,
      );
      return true;
    }
    const answers = items.map((item) => {
      const message = classify(item);
      const response = dispatch(message);
      if (message.kind !== "request") {
        return typeof response === "string" ? response : undefined;
      }
      if (response instanceof Promise) {
        return response.then(
          (line) => line,
          () => internalError(message),
        );
      }
      return response ?? internalError(message);
    });
    const place = order.add(undefined);
    running++;
    Promise.all(answers).then((lines) => {
      const sent = lines.filter((line) => line !== undefined);
      order.complete(
        place,
        sent.length === 0 ? undefined : `[${sent.join(",")}]`,
      );
    }).finally(settled);
    return true;
  };

  const onText = (text: string): void => {
    if (text.charCodeAt(0) <= 32 && text.trim().length === 0) return;
    if (
      text.charCodeAt(0) === 91 /* [ */ &&
      allowsBatches(session.protocolVersion) && onBatch(text)
    ) return;
    const message = decode(text);
    if (message.kind === "request") {
      // Requests answered at once (ping) never queue behind slow ones.
      if (
        (waiting.size > 0 || running >= MAX_CONCURRENT_REQUESTS ||
          budget.over) && !server.answersAtOnce(message.method)
      ) {
        const place = order.add(message.id);
        const key = place.key;
        const queued: Waiting = { message, key, place, cancelled: false };
        waiting.push(queued);
        waitingByKey.set(key, queued);
        pump();
        return;
      }
      const response = dispatch(message);
      if (response instanceof Promise) {
        track(response, order.add(message.id), message);
      } else order.now(response ?? internalError(message), message.id);
      return;
    }
    const response = dispatch(message);
    // Only invalid messages are answered, and at once; a notification's
    // handler never answers (the server ignores what it returns).
    if (typeof response === "string") order.now(response, undefined);
  };

  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const splitter = new LineSplitter({ maxLineBytes });
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const lenient = new TextDecoder("utf-8", { ignoreBOM: true });
  let first = true;

  const onLine = (line: Line): void => {
    if (line instanceof OversizedLine) {
      first = false;
      server.logger.log("info", `skipped a line of ${line.bytes} bytes`);
      invalidRequest(
        `the message is ${line.bytes} bytes long and the limit is ${maxLineBytes} bytes per line; send a smaller message (the server skipped this one).`,
      );
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
      order.now(
        encodeError(
          null,
          ErrorCode.ParseError,
          describeError(
            ErrorCode.ParseError,
            "the line is not valid UTF-8; send messages as UTF-8 JSON text.",
          ),
        ),
        undefined,
      );
      return;
    }
    onText(text);
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
  /** Set when reading must stop: a stop signal, or a broken output. */
  let stopped = false;
  /** Wakes a pause early (a stop, or the end of input). */
  let wake: (() => void) | undefined;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    wake?.();
    reader.cancel().catch(() => {});
  };
  // Without stdout there is no one to answer: stop waiting for input.
  writer.onBroken = stop;
  options.signal?.addEventListener("abort", stop, { once: true });
  if (options.signal?.aborted) stop();
  // While reading is paused, a little input is still read ahead (and kept
  // for later), so that the end of input is seen even when the client
  // never reads our output: the server must not outlive its client.
  const ahead = new Fifo<Uint8Array>();
  let aheadBytes = 0;
  let ended = false;
  let readError: unknown;
  const end = () => {
    ended = true;
    wake?.();
  };
  let pendingRead: Promise<void> | undefined;
  /** Read one chunk into `ahead` (or note the end); one read at a time. */
  const readOne = (): Promise<void> =>
    pendingRead ??= reader.read().then(({ value, done }) => {
      if (done) end();
      else {
        ahead.push(value);
        aheadBytes += value.length;
      }
    }, (error) => {
      readError ??= error;
      end();
    }).finally(() => pendingRead = undefined);
  const nextChunk = async (): Promise<Uint8Array | undefined> => {
    for (;;) {
      const chunk = ahead.shift();
      if (chunk !== undefined) {
        aheadBytes -= chunk.length;
        return chunk;
      }
      if (readError !== undefined) throw readError;
      if (ended) return undefined;
      await readOne();
    }
  };
  let paused = false;
  const readAhead = async (): Promise<void> => {
    while (paused && !ended && !stopped && aheadBytes < READ_AHEAD_BYTES) {
      await readOne();
    }
  };
  /** Set when the input ended and the client stopped reading for good. */
  let abandoned = false;
  const drainTimeout = options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
  /**
   * Wait for `until` unless reading stops first, reading ahead meanwhile;
   * once the input has ended, give up when the output makes no progress
   * for `drainTimeoutMs`.
   */
  const pause = async (until: Promise<void>): Promise<void> => {
    // One promise per pause, woken by `until`, a stop or the end of input:
    // racing the long-lived stop and end promises instead would leave a
    // reaction on them per pause, thousands under a flood.
    if (stopped || abandoned) return;
    let resumed = false;
    const woken = Promise.withResolvers<void>();
    const resume = until.then(() => {
      resumed = true;
      woken.resolve();
    });
    wake = woken.resolve;
    if (ended) woken.resolve();
    paused = true;
    readAhead();
    await woken.promise;
    wake = undefined;
    if (!resumed && !stopped) {
      // The input ended while the client does not read: wait as long as
      // the output moves.
      let progress = writer.progress;
      let lastMove = performance.now();
      while (!resumed) {
        const tick = sleep(DRAIN_TICK_MS);
        await Promise.race([resume, tick.promise]);
        tick.cancel();
        if (resumed) break;
        const now = performance.now();
        if (writer.progress !== progress) {
          progress = writer.progress;
          lastMove = now;
        } else if (now - lastMove >= drainTimeout) {
          abandoned = true;
          break;
        }
      }
    }
    paused = false;
  };
  try {
    while (!stopped && !abandoned) {
      const chunk = await nextChunk();
      if (chunk === undefined) break;
      splitter.push(chunk, onLine, onBlock);
      // Reading pauses while the client does not read what it asked for,
      // and while too many requests are held back: a flood costs bounded
      // memory. (Were all handlers waiting on the client with thousands of
      // requests behind them, the pause would stall them; this server's
      // handlers never wait on the client.)
      if (writer.backlog > HIGH_WATER_CHARS) await pause(writer.idle());
      if (budget.over && !abandoned) await pause(budget.room());
      if (order.size >= MAX_HELD_RESPONSES && !abandoned) {
        await pause(order.room(MAX_HELD_RESPONSES / 2));
      }
    }
    if (!stopped && !abandoned) splitter.end(onLine);
  } catch (error) {
    if (!stopped) server.logger.log("warn", "reading input failed:", error);
  } finally {
    options.signal?.removeEventListener("abort", stop);
    if (!stopped) reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  if (abandoned) {
    server.logger.log(
      "warn",
      `the input ended and the client has not read for ${drainTimeout} ms: giving up on ${writer.backlog} characters unwritten`,
    );
    session.close();
    order.close();
    return;
  }
  session.close();
  if (options.signal?.aborted) {
    // Stopped: requests that have not started will not.
    for (let next = waiting.shift(); next; next = waiting.shift()) {
      order.complete(next.place, undefined);
    }
    waitingByKey.clear();
  }
  await finish(options, {
    running: () => running,
    progress: () => finishedCount + writer.progress,
    settled: () => {
      if (running === 0 && waiting.size === 0) return Promise.resolve();
      return (allFinished ??= Promise.withResolvers<void>()).promise;
    },
    writer,
    log: (text) => server.logger.log("warn", text),
  });
  order.close();
}

/**
 * After reading stops: wait for handlers in flight and for the output, as
 * long as something moves (and, after a stop signal, no longer than the
 * grace period), so that a client that never reads cannot keep the
 * process alive.
 */
async function finish(
  options: StdioOptions,
  state: {
    running(): number;
    progress(): number;
    settled(): Promise<void>;
    writer: MessageWriter;
    log(text: string): void;
  },
): Promise<void> {
  const { writer } = state;
  const drainTimeout = options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
  const grace = options.stopGraceMs ?? 2_000;
  let done = false;
  const all = (async () => {
    await state.settled();
    await writer.idle();
    done = true;
  })();
  let progress = state.progress();
  let lastMove = performance.now();
  let deadline = options.signal?.aborted ? lastMove + grace : Infinity;
  while (!done && !writer.broken) {
    const tick = sleep(DRAIN_TICK_MS);
    await Promise.race([all, tick.promise]);
    tick.cancel();
    if (done || writer.broken) return;
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
        `gave up waiting: ${state.running()} requests still running, ${writer.backlog} characters unwritten (${
          now >= deadline
            ? "stop signal"
            : "the client stopped reading or a handler stalled"
        })`,
      );
      return;
    }
  }
}
