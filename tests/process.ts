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

/** A process that serves on a URL it printed on stderr. */
export interface ListeningProcess {
  /** The URL it printed. */
  url: string;
  /** Its process id (to read its memory use, say). */
  pid: number;
  /** What it wrote to stderr so far (the first 64 KiB). */
  stderr(): string;
  /** Stop it as a service is stopped: SIGTERM, then SIGKILL after 10 s. */
  stop(): Promise<void>;
  /** Send it `signal` at once (SIGKILL: a crash); resolves once it exited. */
  kill(signal: Deno.Signal): Promise<Deno.CommandStatus>;
}

/** What {@linkcode startListening} runs. */
export interface ListeningCommand {
  /** The program. */
  command: string;
  /** Its arguments. */
  args: string[];
  /** Where it runs; default: here. */
  cwd?: string;
  /** Environment variables to set besides this process's. */
  env?: Record<string, string>;
}

/**
 * Start `spec`, a server that prints the URL it serves on stderr, and wait
 * (at most `timeoutMs`) for that URL. Fails, with what it printed, when the
 * process exits first or prints none in time; it is stopped then.
 */
export async function startListening(
  spec: ListeningCommand,
  timeoutMs = 30_000,
): Promise<ListeningProcess> {
  const child = new Deno.Command(spec.command, {
    args: spec.args,
    cwd: spec.cwd,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "1", ...spec.env },
  }).spawn();
  let stderr = "";
  const url = Promise.withResolvers<string>();
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      // Keep the start (the URL, the first error), not a flood of logs.
      if (stderr.length < 64 * 1024) {
        stderr += decoder.decode(chunk, { stream: true });
      }
      const match = stderr.match(/http:\/\/[^\s"']+/);
      if (match) url.resolve(match[0]);
    }
  })();
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
    const killer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
    }, 10_000);
    await child.status;
    clearTimeout(killer);
    await reading.catch(() => {});
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const served = await Promise.race([
      url.promise,
      child.status.then((status): never => {
        throw new Error(
          `the server exited (code ${status.code}) before it printed a URL:\n${stderr}`,
        );
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(
                `the server printed no URL within ${
                  timeoutMs / 1000
                } s:\n${stderr}`,
              ),
            ),
          timeoutMs,
        );
      }),
    ]);
    const kill = async (signal: Deno.Signal) => {
      try {
        child.kill(signal);
      } catch { /* already gone */ }
      return await child.status;
    };
    return { url: served, pid: child.pid, stderr: () => stderr, stop, kill };
  } catch (error) {
    await stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
