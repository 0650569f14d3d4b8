/**
 * The driver of the memory section: floods a server with requests and
 * measures its peak resident memory, bounded in memory and in time so that
 * a run always ends, even against a server that does neither.
 *
 * Unlike the timing driver it keeps no output: answers can add up to
 * gigabytes, so each stdout line is seen once and kept only as its first
 * and last bytes (whole when short), which is what the checks need. It can
 * stop reading stdout for a while (a slow client), and it samples the
 * server's memory as it goes, killing it once the peak passes a limit.
 *
 * @module
 */

import { type MemoryStatus, memoryStatus } from "./measure.ts";
import { type CommandSpec, concat } from "./process.ts";
import type { RunResult } from "./report.ts";
import { HANDSHAKE } from "./workloads.ts";

/** One response line as the flood driver keeps it. */
export interface FloodLine {
  /**
   * The line without its "\n": whole when it is at most the plan's
   * `keepBytes`, otherwise its first and last {@linkcode EDGE_BYTES} bytes
   * joined by "…".
   */
  text: string;
  /** Whether `text` is the whole line. */
  whole: boolean;
  /** The line's length in bytes, without its "\n". */
  bytes: number;
}

/** Bytes kept from each end of a line longer than the plan's `keepBytes`. */
export const EDGE_BYTES = 512;

/** One run of a flood: what to send and how to judge what comes back. */
export interface FloodPlan {
  /** Requests sent at once, right after the handshake. */
  lines: string[];
  /** Stop reading stdout for this long once they are sent (a slow client). */
  pauseMs?: number;
  /** Lines up to this many bytes are kept whole (default 4 KiB). */
  keepBytes?: number;
  /**
   * Judge one response: return what is wrong with it, and optionally a
   * request to send in answer (following a cursor), whose response is then
   * awaited too.
   */
  onResponse(line: FloodLine): { problem?: string; next?: string };
  /** Judge the responses together once all arrived; return what is wrong. */
  finish?(): string | undefined;
  /**
   * How far the run got, for a run cut short (default: responses out of
   * those expected).
   */
  progress?(): string;
}

/** The bounds every flood run is held to. */
export interface FloodLimits {
  /** The run fails if not every response arrived within this. */
  timeoutMs: number;
  /** The server is killed once its peak RSS passes this many bytes. */
  killBytes: number;
  /** How often memory is sampled. */
  sampleMs: number;
}

/** What one flood run measured, and why it failed if it did. */
export interface FloodOutcome {
  /** Time from the first request written to the last response; peak RSS. */
  result: RunResult;
  /** Why the run failed, or undefined. */
  failure?: string;
  /** RSS after the last response arrived (what the server still holds). */
  rssAfter?: number;
  /** The plan's account of how far it got (see `FloodPlan.progress`). */
  note?: string;
}

const LF = 10;

/**
 * Reads a child's stdout line by line without keeping it, and can stop
 * reading for a while (the pipe then fills and the server's writes block).
 */
export class LineReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #keepBytes: number;
  readonly #onLine: (line: FloodLine) => void;
  #gate: Promise<void> = Promise.resolve();
  #open: (() => void) | undefined;
  // The line being read: whole up to keepBytes, else head and tail.
  #parts: Uint8Array[] = [];
  #head: Uint8Array | undefined;
  #tail = new Uint8Array(0);
  #length = 0;
  /** Resolves when stdout ends. */
  readonly done: Promise<void>;

  /**
   * Read `stream` at once, handing each line to `onLine`; lines longer than
   * `keepBytes` are cut to their ends (see {@linkcode FloodLine}).
   */
  constructor(
    stream: ReadableStream<Uint8Array>,
    keepBytes: number,
    onLine: (line: FloodLine) => void,
  ) {
    this.#reader = stream.getReader();
    this.#keepBytes = keepBytes;
    this.#onLine = onLine;
    this.done = this.#run();
  }

  /** Stop reading until `resume`. */
  pause(): void {
    if (this.#open !== undefined) return;
    this.#gate = new Promise((resolve) => this.#open = resolve);
  }

  /** Read again. */
  resume(): void {
    this.#open?.();
    this.#open = undefined;
  }

  /** Stop reading for good. */
  async cancel(): Promise<void> {
    this.resume();
    await this.#reader.cancel().catch(() => {});
  }

  async #run(): Promise<void> {
    for (;;) {
      await this.#gate;
      let chunk;
      try {
        chunk = await this.#reader.read();
      } catch {
        return;
      }
      if (chunk.done) return;
      // A read already under way when `pause` was called may bring a
      // chunk: it waits here, so no line is seen while paused.
      await this.#gate;
      this.#take(chunk.value);
    }
  }

  #take(chunk: Uint8Array): void {
    let from = 0;
    for (;;) {
      const end = chunk.indexOf(LF, from);
      const piece = chunk.subarray(from, end < 0 ? chunk.length : end);
      this.#add(piece);
      if (end < 0) return;
      this.#emit();
      from = end + 1;
    }
  }

  #add(piece: Uint8Array): void {
    if (piece.length === 0) return;
    this.#length += piece.length;
    if (this.#head === undefined) {
      this.#parts.push(piece.slice());
      if (this.#length > this.#keepBytes) {
        const all = concat(this.#parts);
        this.#parts = [];
        this.#head = all.slice(0, EDGE_BYTES);
        this.#tail = all.slice(-EDGE_BYTES);
      }
      return;
    }
    this.#tail = piece.length >= EDGE_BYTES
      ? piece.slice(-EDGE_BYTES)
      : concat([this.#tail, piece]).slice(-EDGE_BYTES);
  }

  #emit(): void {
    const decoder = new TextDecoder();
    const line: FloodLine = this.#head === undefined
      ? { text: decoder.decode(concat(this.#parts)), whole: true, bytes: 0 }
      : {
        text: `${decoder.decode(this.#head)}…${decoder.decode(this.#tail)}`,
        whole: false,
        bytes: 0,
      };
    line.bytes = this.#length;
    this.#parts = [];
    this.#head = undefined;
    this.#tail = new Uint8Array(0);
    this.#length = 0;
    this.#onLine(line);
  }
}

/** The `id` of a JSON-RPC response line from its first bytes, as text. */
export function responseId(text: string): string | undefined {
  return /^\{"jsonrpc":"2\.0","id":("(?:[^"\\]|\\.)*"|-?\d+|null)[,}]/
    .exec(text)?.[1];
}

/**
 * Run one flood: spawn `spec`, shake hands, send the plan's requests (and
 * any follow-ups), pause reading if asked, and wait for every response,
 * until the time limit or the memory limit ends the run. The server's
 * stderr is kept (bounded) for the failure report.
 */
export async function runFlood(
  spec: CommandSpec,
  plan: FloodPlan,
  limits: FloodLimits,
): Promise<FloodOutcome> {
  const child = new Deno.Command(spec.command, {
    args: spec.args,
    cwd: spec.cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  let stderr = "";
  const stderrDone = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      if (stderr.length < 4000) stderr += decoder.decode(chunk);
    }
  })().catch(() => {});

  let peak: number | undefined;
  let killedAt: number | undefined;
  let last: MemoryStatus | undefined;
  let exited = false;
  child.status.then(() => exited = true);
  const kill = () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
  };
  const sample = async () => {
    const status = await memoryStatus(child.pid);
    if (status === undefined) return;
    last = status;
    peak = Math.max(peak ?? 0, status.peak);
    if (status.peak > limits.killBytes && killedAt === undefined) {
      killedAt = status.peak;
      kill();
    }
  };

  let outstanding = 0;
  let answered = 0;
  let problems = 0;
  let firstProblem: string | undefined;
  let wake: (() => void) | undefined;
  const seen = new Set<string>();
  // Writes are chained: two sends must never interleave their slices.
  let writing = Promise.resolve();
  let lastAt = performance.now();
  let handshaken = false;
  let handshakeLine: FloodLine | undefined;

  const send = (text: string) => {
    const bytes = encoder.encode(text);
    writing = writing.then(async () => {
      for (let at = 0; at < bytes.length; at += 64 * 1024) {
        await writer.write(bytes.subarray(at, at + 64 * 1024));
      }
    }).catch(() => {});
  };
  const note = (problem: string) => {
    problems++;
    firstProblem ??= problem;
  };
  const reader = new LineReader(
    child.stdout,
    plan.keepBytes ?? 4096,
    (line) => {
      lastAt = performance.now();
      if (!handshaken) {
        handshaken = true;
        handshakeLine = line;
        wake?.();
        return;
      }
      outstanding--;
      answered++;
      const id = responseId(line.text);
      if (id === undefined) {
        note(`not a JSON-RPC response: ${line.text.slice(0, 200)}`);
      } else if (seen.has(id)) {
        note(`second response to id ${id}`);
      } else {
        seen.add(id);
      }
      const { problem, next } = plan.onResponse(line);
      if (problem !== undefined) note(problem);
      if (next !== undefined) {
        outstanding++;
        send(next + "\n");
      }
      if (outstanding <= 0) wake?.();
    },
  );
  const waitUntil = async (done: () => boolean, deadline: number) => {
    while (!done() && !exited && killedAt === undefined) {
      const left = deadline - performance.now();
      if (left <= 0) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, Math.min(left, limits.sampleMs));
      });
      wake = undefined;
      await sample();
    }
  };

  const start = performance.now();
  const deadline = start + limits.timeoutMs;
  let begin = start;
  let failure: string | undefined;
  let rssAfter: number | undefined;
  try {
    send(HANDSHAKE.lines.join("\n") + "\n");
    await waitUntil(() => handshaken, deadline);
    if (!handshaken) {
      failure = "no answer to initialize";
    } else if (!/"result"/.test(handshakeLine!.text)) {
      failure = `initialize failed: ${handshakeLine!.text.slice(0, 200)}`;
    } else {
      begin = performance.now();
      lastAt = begin;
      if (plan.pauseMs) reader.pause();
      outstanding = plan.lines.length;
      send(plan.lines.map((line) => line + "\n").join(""));
      if (plan.pauseMs) {
        await waitUntil(() => false, Math.min(begin + plan.pauseMs, deadline));
        reader.resume();
      }
      await waitUntil(() => outstanding <= 0, deadline);
      await sample();
      if (killedAt === undefined && !exited) rssAfter = last?.rss;
      failure = verdict();
    }
  } finally {
    kill();
    await reader.cancel();
    await child.status;
    await stderrDone;
  }
  const text = stderr.trim().slice(0, 1500);
  return {
    // No time to report when no response came.
    result: { ms: answered > 0 ? lastAt - begin : NaN, rss: peak },
    failure: failure === undefined
      ? undefined
      : `${failure}${text ? `\nserver stderr:\n${text}` : ""}`,
    rssAfter,
    note: plan.progress?.(),
  };

  function verdict(): string | undefined {
    const progress = plan.progress?.() ??
      `${answered} of ${answered + outstanding} responses`;
    const elapsed = `${((performance.now() - begin) / 1000).toFixed(0)} s`;
    if (killedAt !== undefined) {
      return `killed when its peak RSS passed ${
        Math.round(limits.killBytes / 2 ** 20)
      } MiB, after ${progress} in ${elapsed}`;
    }
    if (outstanding > 0) {
      return exited
        ? `exited after ${progress}`
        : `timed out: ${progress} in ${elapsed}`;
    }
    if (problems > 0) {
      return `${problems} bad responses; the first: ${firstProblem}`;
    }
    return plan.finish?.();
  }
}
