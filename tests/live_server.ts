/**
 * A running server process a test talks to line by line: send requests
 * and notifications, wait for the response to one id (or make sure none
 * came), and read the process's CPU time from /proc.
 *
 * @module
 */

import { serverCommand } from "./server_command.ts";

/** One response line, parsed, with the raw line and when it arrived. */
export interface Received {
  /** The parsed message. */
  message: { id?: unknown; result?: unknown; error?: unknown };
  /** The line as written, without its newline. */
  line: string;
  /** `performance.now()` when it was read. */
  at: number;
}

/** A command that starts the server: program and all its arguments. */
export interface LiveLaunch {
  /** The program. */
  command: string;
  /** Its arguments. */
  args: string[];
}

/** A server process started with `args`, initialized and ready. */
export class LiveServer implements AsyncDisposable {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #received: Received[] = [];
  readonly #waiters = new Set<() => void>();
  readonly #reading: Promise<void>;
  readonly #logging: Promise<void>;
  #stderr = "";
  #exit: Deno.CommandStatus | undefined;
  #nextId = 1000;

  private constructor(args: string[], launch?: LiveLaunch) {
    const { command, args: full } = launch ?? serverCommand(args);
    this.#child = new Deno.Command(command, {
      args: full,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#reading = this.#read();
    this.#logging = this.#log();
    this.#child.status.then((status) => this.#exit = status);
  }

  /** Keep the last 4 KiB of stderr, for a failure to show why. */
  async #log(): Promise<void> {
    const text = this.#child.stderr.pipeThrough(new TextDecoderStream());
    for await (const chunk of text) {
      this.#stderr = (this.#stderr + chunk).slice(-4096);
    }
  }

  /** Whether (and how) the process ended, and the end of its stderr. */
  get state(): string {
    const ended = this.#exit === undefined
      ? "running"
      : `exited (code ${this.#exit.code}, signal ${this.#exit.signal})`;
    return `${ended}; stderr ends: ${
      JSON.stringify(this.#stderr.slice(-1024))
    }`;
  }

  /**
   * Start the server with `args` (or exactly the command `launch`) and
   * complete the initialize handshake.
   */
  static async start(
    args: string[],
    launch?: LiveLaunch,
  ): Promise<LiveServer> {
    const server = new LiveServer(args, launch);
    const id = server.send("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "live-test", version: "0" },
    });
    await server.response(id, 30_000);
    await server.notify("notifications/initialized");
    return server;
  }

  async #read(): Promise<void> {
    const lines = this.#child.stdout.pipeThrough(new TextDecoderStream());
    let rest = "";
    for await (const chunk of lines) {
      rest += chunk;
      let newline: number;
      while ((newline = rest.indexOf("\n")) !== -1) {
        const line = rest.slice(0, newline);
        rest = rest.slice(newline + 1);
        this.#received.push({
          message: JSON.parse(line),
          line,
          at: performance.now(),
        });
        for (const wake of this.#waiters) wake();
      }
    }
  }

  /** The process id. */
  get pid(): number {
    return this.#child.pid;
  }

  /** Every response received so far. */
  get received(): readonly Received[] {
    return this.#received;
  }

  /** Write one raw line. */
  async writeLine(line: string): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(line + "\n"));
  }

  /** Send a request; returns its id. */
  send(method: string, params?: unknown, id = ++this.#nextId): number {
    const message: Record<string, unknown> = { jsonrpc: "2.0", id, method };
    if (params !== undefined) message.params = params;
    this.writeLine(JSON.stringify(message)).catch(() => {});
    return id;
  }

  /** Send `tools/call` for `name` with `args`; returns the request id. */
  callTool(name: string, args: unknown): number {
    return this.send("tools/call", { name, arguments: args });
  }

  /** Send a notification. */
  async notify(method: string, params?: unknown): Promise<void> {
    const message: Record<string, unknown> = { jsonrpc: "2.0", method };
    if (params !== undefined) message.params = params;
    await this.writeLine(JSON.stringify(message));
  }

  /** The response to `id`, once it is received (if ever). */
  find(id: number): Received | undefined {
    return this.#received.find((r) => r.message.id === id);
  }

  /** Wait for the response to `id`; throws after `timeoutMs`. */
  async response(id: number, timeoutMs: number): Promise<Received> {
    const deadline = performance.now() + timeoutMs;
    while (true) {
      const found = this.find(id);
      if (found !== undefined) return found;
      const left = deadline - performance.now();
      if (left <= 0) {
        throw new Error(`no response to id ${id} within ${timeoutMs} ms`);
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.#waiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.#waiters.add(wake);
      });
    }
  }

  /** Send a ping and return how long its answer took, in milliseconds. */
  async ping(timeoutMs = 30_000): Promise<number> {
    const started = performance.now();
    const id = this.send("ping");
    const answer = await this.response(id, timeoutMs);
    return answer.at - started;
  }

  /** CPU time (user + system) the process has used so far, in ms. */
  async cpuMs(): Promise<number> {
    // Through cat: Deno grants /proc only to --allow-all, tests have
    // --allow-run.
    const { stdout, stderr } = await new Deno.Command("cat", {
      args: [`/proc/${this.pid}/stat`],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stat = new TextDecoder().decode(stdout);
    // Fields after the command name, which is in parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    if (!Number.isFinite(ticks)) {
      throw new Error(
        `cannot read the CPU time of process ${this.pid} (${
          new TextDecoder().decode(stderr).trim() || JSON.stringify(stat)
        }); the server is ${this.state}`,
      );
    }
    return ticks * 10; // USER_HZ is 100 on Linux.
  }

  /** End input and wait for the process to exit (killing it if it hangs). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.#writer.close().catch(() => {});
    const timer = setTimeout(() => {
      try {
        this.#child.kill("SIGKILL");
      } catch {
        // Already gone.
      }
    }, 10_000);
    await this.#child.status;
    clearTimeout(timer);
    await this.#reading.catch(() => {});
    await this.#logging.catch(() => {});
  }
}

/** CPU the server uses over `windowMs` of wall time, in ms. */
export async function cpuOver(
  server: LiveServer,
  windowMs: number,
): Promise<number> {
  const before = await server.cpuMs();
  await new Promise((resolve) => setTimeout(resolve, windowMs));
  return await server.cpuMs() - before;
}
