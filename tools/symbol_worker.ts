/**
 * The symbol parser's worker entry: parses texts the main thread read
 * (through the workspace's confined reads) and posts back their
 * definitions, so that a slow or hostile file never holds the thread that
 * answers requests. It reads no file of the workspace: only the
 * tree-sitter WebAssembly files, as `symbols/runtime.ts` finds them.
 *
 * - receives first a {@linkcode WarmUp}: loads the runtime and the
 *   grammar named, and posts `{ id: -1, ready: true }`;
 * - then receives {@linkcode ParseJob}s, one at a time, and posts a
 *   {@linkcode ParseReply} with the same id: the definitions, or the error
 *   that kept it from parsing.
 *
 * The job's `stop` flag, shared with the main thread, ends a parse early
 * (a cancelled call); its result is then dropped there.
 *
 * @module
 */

import { loadLanguage } from "../symbols/runtime.ts";
import {
  definitionsOf,
  type DefinitionsResult,
} from "../symbols/definitions.ts";
import { LANGUAGES } from "../symbols/languages.ts";

/** What the main thread sends: one text to parse. */
export interface ParseJob {
  /** Its id, echoed in the reply. */
  id: number;
  /** The name of its language (a key of `LANGUAGES`). */
  language: string;
  /** The source text. */
  text: string;
  /** Longest the parse may take (ms). */
  timeoutMs: number;
  /** Shared flag: non-zero stops the parse. */
  stop: Int32Array;
}

/** What the main thread sends first: the grammar to load before any job. */
export interface WarmUp {
  /** The name of a language (a key of `LANGUAGES`). */
  warm: string;
}

/** What the worker posts back: ready after the warm-up, or a job's answer. */
export type ParseReply =
  | { id: -1; ready: true }
  | { id: number; result: DefinitionsResult }
  | { id: number; error: string };

interface Scope {
  onmessage: ((event: MessageEvent<ParseJob | WarmUp>) => void) | null;
  postMessage(message: ParseReply): void;
}

const scope = globalThis as unknown as Scope;

async function run(job: ParseJob): Promise<ParseReply> {
  const language = LANGUAGES[job.language];
  if (language === undefined) {
    return { id: job.id, error: `no language named ${job.language}` };
  }
  try {
    const loaded = await loadLanguage(language);
    const result = definitionsOf(loaded, job.text, {
      timeoutMs: job.timeoutMs,
      stop: job.stop,
    });
    return { id: job.id, result };
  } catch (error) {
    return {
      id: job.id,
      error: String(error instanceof Error ? error.message : error),
    };
  }
}

async function warm(name: string): Promise<void> {
  const language = LANGUAGES[name];
  try {
    if (language !== undefined) await loadLanguage(language);
  } catch {
    // The first job meets the same error, and reports it.
  }
  scope.postMessage({ id: -1, ready: true });
}

// Jobs come one at a time (the main thread sends the next after the
// reply), so no queue is kept here.
scope.onmessage = (event) => {
  const message = event.data;
  if ("warm" in message) warm(message.warm);
  else run(message).then((reply) => scope.postMessage(reply));
};
