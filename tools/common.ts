/**
 * What the workspace tools share: their caps, annotations, the pacing that
 * keeps long calls cancellable, and how their text shows counts, paths and
 * what a walk left out.
 *
 * @module
 */

import type { ToolAnnotations } from "../mcp/tool.ts";
import type { WalkSkips } from "../workspace/workspace.ts";
import { yieldToEventLoop } from "../workspace/secure_fs.ts";

/** Limits on what one tool call returns; each is settable by flag. */
export interface ToolCaps {
  /** Most entries `list_directory` and `find_files` return. */
  maxEntries: number;
  /** Most matches `search_text` returns. */
  maxMatches: number;
  /** Most bytes of file content one call reads or returns. */
  maxReadBytes: number;
  /** Deepest level `list_directory` descends to. */
  maxDepth: number;
  /** The `rg` program `search_text` may run (`--rg`); none if left out. */
  rgPath?: string;
}

/** Every workspace tool only reads, repeatably, inside the root. */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  idempotentHint: true,
  openWorldHint: false,
};

/**
 * Most time a tool's loop runs before it yields to the event loop, in
 * milliseconds: long enough to cost little, short enough that other
 * requests waiting for their turn get it promptly (input is read at every
 * {@linkcode INPUT_EVERY_MS}).
 */
export const SLICE_MS = 10;

/**
 * Resolve after a real turn of the event loop, one in which the runtime
 * waits for I/O, so input waiting on stdin (a cancel, a ping) is read. A
 * timer does that; a message on a MessageChannel or an already-settled
 * operation does not (the runtime does not poll I/O when work is ready).
 */
export function macrotask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Longest a paced call goes between two {@linkcode macrotask} turns, the
 * turns in which input is read (ms). Such a turn costs a millisecond or
 * two (the runtime clamps a timer's zero delay; 2.2 ms measured under
 * load), a fifth of a 10 ms slice, so the pauses in between take a turn
 * that runs the work already waiting (other requests, replies) but does
 * not wait for I/O: a cancel is still read within this, well inside the
 * 100 ms a cancel may take.
 */
export const INPUT_EVERY_MS = 40;

/**
 * Least time between two progress reports of one tool call (ms): a fast
 * call sends none, a long one about ten a second.
 */
export const PROGRESS_INTERVAL_MS = 100;

/**
 * Paces a long-running tool call: {@linkcode Pacer.due} says (cheaply)
 * when the current slice of work is used up, and {@linkcode Pacer.pause}
 * then yields to the event loop: a real macrotask, so that input (a
 * cancel, a ping) is read, at least every {@linkcode INPUT_EVERY_MS}.
 * Both throw the abort reason once the call is cancelled, so a loop that
 * paces itself also stops with it. `onPause`, when given, runs at a pause
 * at most every {@linkcode PROGRESS_INTERVAL_MS}: where a long call reports
 * its progress.
 */
export class Pacer {
  readonly #signal: AbortSignal;
  readonly #onPause: (() => void) | undefined;
  #sliceEnd: number;
  #reportAt: number;
  #inputAt: number;

  /**
   * A pacer for the call whose cancellation `signal` carries; `onPause`
   * (a progress report) runs at a pause at most every
   * {@linkcode PROGRESS_INTERVAL_MS}, the first that long after the start.
   */
  constructor(signal: AbortSignal, onPause?: () => void) {
    this.#signal = signal;
    this.#onPause = onPause;
    const now = performance.now();
    this.#sliceEnd = now + SLICE_MS;
    this.#reportAt = now + PROGRESS_INTERVAL_MS;
    this.#inputAt = now + INPUT_EVERY_MS;
  }

  /** Whether the slice is used up (throws when the call was cancelled). */
  due(): boolean {
    this.#signal.throwIfAborted();
    return performance.now() >= this.#sliceEnd;
  }

  /** Yield to the event loop, then start a new slice. */
  async pause(): Promise<void> {
    if (this.#onPause !== undefined) {
      const now = performance.now();
      if (now >= this.#reportAt) {
        this.#reportAt = now + PROGRESS_INTERVAL_MS;
        this.#onPause();
      }
    }
    if (performance.now() >= this.#inputAt) {
      await macrotask();
      this.#inputAt = performance.now() + INPUT_EVERY_MS;
    } else await yieldToEventLoop();
    this.#signal.throwIfAborted();
    this.#sliceEnd = performance.now() + SLICE_MS;
  }

  /** Yield when the slice is used up; a no-op (but a check) otherwise. */
  async tick(): Promise<void> {
    if (this.due()) await this.pause();
  }
}

/** "1 entry" / "2 entries". */
export function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/**
 * One sentence saying what a walk left out (entries it could not read,
 * entries that vanished while it ran, names that are not valid UTF-8,
 * paths past the length limits), or undefined when it left nothing out.
 */
export function skippedNote(skips: WalkSkips): string | undefined {
  const parts: string[] = [];
  if (skips.unreadable > 0) parts.push(`${skips.unreadable} unreadable`);
  if (skips.vanished > 0) {
    parts.push(`${skips.vanished} changed or vanished during the walk`);
  }
  if (skips.badNames > 0) {
    parts.push(`${skips.badNames} with a name that is not valid UTF-8`);
  }
  if (skips.tooDeep > 0) {
    parts.push(`${skips.tooDeep} past the path length limits`);
  }
  if (parts.length === 0) return undefined;
  const total = skips.unreadable + skips.vanished + skips.badNames +
    skips.tooDeep;
  return `${plural(total, "entry was", "entries were")} left out (${
    parts.join(", ")
  }).`;
}

// C0 controls, DEL and C1 controls, line and paragraph separators.
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * A path as one line of tool text: as it is, unless it holds a control
 * character (a newline in a file name would otherwise make one entry read
 * as two, and could forge entries); then as a JSON string, quotes and
 * escapes included, which a model reads back to the exact name.
 */
export function displayPath(path: string): string {
  return CONTROL.test(path) || path.startsWith('"')
    ? JSON.stringify(path)
    : path;
}
