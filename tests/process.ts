/**
 * Test helpers that run the real server process: feed it exact bytes on
 * stdin, collect stdout and stderr as bytes, and report how it exited.
 *
 * @module
 */

import { serverCommand, type Target } from "./server_command.ts";

/** How one run of the server went. */
export interface RunResult {
  /** The exit code. */
  code: number;
  /** The signal that ended it, if one did. */
  signal: Deno.Signal | null;
  /** Everything written to stdout. */
  stdout: Uint8Array;
  /** Everything written to stderr. */
  stderr: Uint8Array;
}

/** Start the server for `target` with `args`, all three stdio streams piped. */
export function spawnServer(
  args: string[],
  target: Target,
  options: { stdout?: "piped" | "null" } = {},
): Deno.ChildProcess {
  const { command, args: fullArgs } = serverCommand(args, target);
  return new Deno.Command(command, {
    args: fullArgs,
    stdin: "piped",
    stdout: options.stdout ?? "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
}

/**
 * Run the server once: write `input` to its stdin, close it (end of input),
 * and wait for it to exit. Writing and reading overlap, so a large input
 * cannot deadlock against a full stdout pipe.
 */
export async function runServer(
  input: Uint8Array,
  args: string[],
  target: Target,
): Promise<RunResult> {
  const child = spawnServer(args, target);
  const writing = (async () => {
    const writer = child.stdin.getWriter();
    try {
      await writer.write(input);
      await writer.close();
    } catch {
      // The server may exit before reading everything; its exit code and
      // output tell the story.
    }
  })();
  const [output] = await Promise.all([child.output(), writing]);
  return {
    code: output.code,
    signal: output.signal,
    stdout: output.stdout,
    stderr: output.stderr,
  };
}

/** Read a child stream until `predicate` holds for all bytes read so far. */
export async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  predicate: (text: string) => boolean,
  sofar = "",
): Promise<string> {
  const decoder = new TextDecoder();
  let text = sofar;
  while (!predicate(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

/** Read what remains of a stream to its end. */
export async function readAll(
  reader: ReadableStreamDefaultReader<Uint8Array>,
): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let length = 0;
  while (true) {
    const { value, done } = await reader.read();
    if (done) break;
    parts.push(value);
    length += value.length;
  }
  const all = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return all;
}

/**
 * Whether `text` (typically stderr) holds anything shaped like a JSON-RPC
 * message, which belongs on stdout only.
 */
export function looksLikeJsonRpc(text: string): boolean {
  return /"jsonrpc"\s*:/.test(text);
}

/**
 * The id, as JSON text, of `text` when it is one JSON-RPC request (`key`
 * "method") or one answer (`key` "answer"); else undefined.
 */
function idOf(text: string, key: "method" | "answer"): string | undefined {
  let message: unknown;
  try {
    message = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    return undefined;
  }
  if (typeof message !== "object" || message === null) return undefined;
  if (Array.isArray(message) || !("id" in message)) return undefined;
  const fits = key === "method"
    ? "method" in message
    : "result" in message || "error" in message;
  return fits ? JSON.stringify(message.id) : undefined;
}

/**
 * Run the server as {@linkcode runServer} does, but one input line at a
 * time: a request that `expected` (a whole stdout) answers is followed by
 * the next line only once its answer is out. Then no answer is ever ready
 * behind a slower request, so the order of the answers is request order
 * however slow the machine (written all at once, an answer held behind a
 * request still running after 200 ms goes out first, by design). Each wait
 * is at most `waitMs`; a request left unanswered then fails the run.
 */
export async function runServerStepwise(
  input: Uint8Array,
  args: string[],
  target: Target,
  expected: Uint8Array,
  waitMs = 30_000,
): Promise<RunResult> {
  const decoder = new TextDecoder();
  const owed = new Map<string, number>();
  for (const line of decoder.decode(expected).split("\n")) {
    const id = idOf(line, "answer");
    if (id !== undefined) owed.set(id, (owed.get(id) ?? 0) + 1);
  }
  const child = spawnServer(args, target);
  const chunks: Uint8Array[] = [];
  const answered = new Map<string, number>();
  let wake: (() => void) | undefined;
  let ended = false;
  const reading = (async () => {
    let partial = "";
    for await (const chunk of child.stdout) {
      chunks.push(chunk);
      partial += decoder.decode(chunk, { stream: true });
      const lines = partial.split("\n");
      partial = lines.pop()!;
      for (const line of lines) {
        const id = idOf(line, "answer");
        if (id !== undefined) answered.set(id, (answered.get(id) ?? 0) + 1);
      }
      wake?.();
    }
  })().finally(() => {
    ended = true;
    wake?.();
  });
  const stderr = new Response(child.stderr).arrayBuffer();
  const writer = child.stdin.getWriter();
  const sent = new Map<string, number>();
  try {
    let start = 0;
    while (start < input.length) {
      const newline = input.indexOf(0x0a, start);
      const end = newline === -1 ? input.length : newline + 1;
      const line = input.subarray(start, end);
      start = end;
      await writer.write(line);
      // A last line with no newline is read only at the end of input.
      if (newline === -1) continue;
      const id = idOf(decoder.decode(line).trim(), "method");
      if (id === undefined) continue;
      const nth = (sent.get(id) ?? 0) + 1;
      sent.set(id, nth);
      // Only requests the transcript answers (a cancelled one is not).
      if (nth > (owed.get(id) ?? 0)) continue;
      const deadline = performance.now() + waitMs;
      // (A server that exited answers no more: its output tells.)
      while ((answered.get(id) ?? 0) < nth && !ended) {
        const left = deadline - performance.now();
        if (left <= 0) {
          throw new Error(`no answer to request ${id} in ${waitMs} ms`);
        }
        const timer = Promise.withResolvers<void>();
        wake = timer.resolve;
        const timeout = setTimeout(timer.resolve, Math.min(left, 100));
        await timer.promise;
        clearTimeout(timeout);
      }
    }
    await writer.close();
  } catch (error) {
    // The server may exit before reading everything (its output tells);
    // an unanswered request is the test's failure.
    if (error instanceof Error && error.message.startsWith("no answer")) {
      child.kill("SIGKILL");
      throw error;
    }
  }
  const status = await child.status;
  await reading;
  const stdout = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    stdout.set(chunk, at);
    at += chunk.length;
  }
  return {
    code: status.code,
    signal: status.signal,
    stdout,
    stderr: new Uint8Array(await stderr),
  };
}
