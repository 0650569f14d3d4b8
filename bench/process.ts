/**
 * A server process under measurement: spawned with piped stdio, fed bytes,
 * its stdout counted line by line as it arrives. Counting newlines is all
 * the reader does while the clock runs, so the bench client stays cheap; the
 * responses are parsed and checked after the clock stops.
 *
 * @module
 */

/** How to start a server: program, arguments, working directory. */
export interface CommandSpec {
  /** The program. */
  command: string;
  /** Its arguments. */
  args: string[];
  /** Working directory; default the current one. */
  cwd?: string;
}

const LF = 10;

/** A running server with helpers to write input and wait for output lines. */
export class ServerProcess {
  /** The child process. */
  readonly child: Deno.ChildProcess;
  /** Its process id (for `/proc/<pid>/status`). */
  readonly pid: number;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #chunks: Uint8Array[] = [];
  readonly #stderr: Uint8Array[] = [];
  #lines = 0;
  // Where `nextLine` resumes: a chunk index and a byte offset in it.
  #taken = { lines: 0, chunk: 0, offset: 0 };
  #waiting: { count: number; resolve: (at: number) => void } | undefined;
  #closed = false;
  #killed = false;
  readonly #reading: Promise<void>;

  /** Spawn `spec` with piped stdin, stdout and stderr. */
  constructor(spec: CommandSpec) {
    this.child = new Deno.Command(spec.command, {
      args: spec.args,
      cwd: spec.cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.pid = this.child.pid;
    this.#writer = this.child.stdin.getWriter();
    this.#reading = Promise.all([this.#readStdout(), this.#readStderr()])
      .then(() => {});
  }

  /** Lines of stdout received so far. */
  get lines(): number {
    return this.#lines;
  }

  /** Write `bytes` to stdin, in slices of `chunkBytes` (default all at once). */
  async write(bytes: Uint8Array, chunkBytes = bytes.length): Promise<void> {
    for (let at = 0; at < bytes.length; at += chunkBytes) {
      await this.#writer.write(bytes.subarray(at, at + chunkBytes));
    }
  }

  /**
   * Resolves with `performance.now()` at the moment the `count`th stdout
   * line (counted from the start) arrived; rejects if stdout ends first.
   */
  waitForLines(count: number): Promise<number> {
    if (this.#lines >= count) return Promise.resolve(performance.now());
    if (this.#closed) {
      return Promise.reject(
        new Error(`stdout ended after ${this.#lines} of ${count} lines`),
      );
    }
    return new Promise((resolve, reject) => {
      this.#waiting = {
        count,
        resolve: (at) =>
          at < 0
            ? reject(
              new Error(`stdout ended after ${this.#lines} of ${count} lines`),
            )
            : resolve(at),
      };
    });
  }

  /**
   * The next stdout line not yet returned by `nextLine` (counted from the
   * start, without its "\n"), once it has arrived, with `performance.now()`
   * at its arrival. For clients that answer each response with a request;
   * the bytes are found only when asked, so the reader stays cheap.
   */
  async nextLine(): Promise<{ text: string; at: number }> {
    const at = await this.waitForLines(this.#taken.lines + 1);
    const taken = this.#taken;
    taken.lines++;
    const parts: Uint8Array[] = [];
    for (;;) {
      const chunk = this.#chunks[taken.chunk];
      const end = chunk.indexOf(LF, taken.offset);
      if (end < 0) {
        parts.push(chunk.subarray(taken.offset));
        taken.chunk++;
        taken.offset = 0;
        continue;
      }
      parts.push(chunk.subarray(taken.offset, end));
      taken.offset = end + 1;
      if (taken.offset === chunk.length) {
        taken.chunk++;
        taken.offset = 0;
      }
      return { text: new TextDecoder().decode(concat(parts)), at };
    }
  }

  /** Everything written to stdout so far, as text lines. */
  outputLines(): string[] {
    const text = new TextDecoder().decode(concat(this.#chunks));
    const lines = text.split("\n");
    if (lines.at(-1) === "") lines.pop();
    return lines;
  }

  /** Everything written to stderr so far. */
  stderrText(): string {
    return new TextDecoder().decode(concat(this.#stderr));
  }

  /** Whether `close` had to kill the process (it outlived the timeout). */
  get killed(): boolean {
    return this.#killed;
  }

  /**
   * Close stdin and wait for the process to exit; kill it if it takes longer
   * than `timeoutMs` (then {@linkcode ServerProcess.killed} is true).
   * Resolves with its exit code.
   */
  async close(timeoutMs = 10_000): Promise<number> {
    await this.#writer.close().catch(() => {});
    const timer = setTimeout(() => {
      try {
        this.child.kill("SIGKILL");
        this.#killed = true;
      } catch {
        // Already gone.
      }
    }, timeoutMs);
    const status = await this.child.status;
    clearTimeout(timer);
    await this.#reading;
    return status.code;
  }

  async #readStdout(): Promise<void> {
    for await (const chunk of this.child.stdout) {
      this.#chunks.push(chunk);
      let at = chunk.indexOf(LF);
      while (at >= 0) {
        this.#lines++;
        at = chunk.indexOf(LF, at + 1);
      }
      const waiting = this.#waiting;
      if (waiting !== undefined && this.#lines >= waiting.count) {
        this.#waiting = undefined;
        waiting.resolve(performance.now());
      }
    }
    this.#closed = true;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.resolve(-1);
  }

  async #readStderr(): Promise<void> {
    for await (const chunk of this.child.stderr) this.#stderr.push(chunk);
  }
}

/** `chunks` joined into one array (the chunk itself when there is one). */
export function concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  let length = 0;
  for (const chunk of chunks) length += chunk.length;
  const all = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return all;
}
