/**
 * The official SDK client connected to a server process over either of
 * its transports, so that one end-to-end suite runs over both: `stdio`
 * (`StdioClientTransport` spawns the server and speaks on its pipes) and
 * `http` (the server is started with `--http 127.0.0.1:0`, prints its URL
 * on stderr, and `StreamableHTTPClientTransport` speaks to it).
 *
 * The test files declare their tests with {@linkcode sdkTest}, which runs
 * each over every one of {@linkcode LAUNCHES}: every build target over
 * stdio, plus the source over HTTP, named `http` in test names.
 *
 * @module
 */

import {
  Client,
  StdioClientTransport,
  StreamableHTTPClientTransport,
} from "./sdk.ts";
import { type ListeningProcess, startListening } from "./process.ts";
import { serverCommand, type Target, targetStatus } from "./server_command.ts";

/** How the client reaches the server. */
export type Wire = "stdio" | "http";

/** One way to start the server and reach it: a build target and a wire. */
export interface Launch {
  /** The name in test names: the target's over stdio, `http` over HTTP. */
  name: string;
  /** Which build of the server runs. */
  target: Target;
  /** How the client reaches it. */
  wire: Wire;
}

/** Every launch the end-to-end suites run, in order. */
export const LAUNCHES: readonly Launch[] = [
  { name: "source", target: "source", wire: "stdio" },
  { name: "bundle", target: "bundle", wire: "stdio" },
  { name: "binary", target: "binary", wire: "stdio" },
  { name: "http", target: "source", wire: "http" },
];

/** Whether `launch` can run here; see `targetStatus`. */
export function launchStatus(
  launch: Launch,
): { available: boolean; reason?: string } {
  return targetStatus(launch.target);
}

/** What an {@linkcode sdkTest} body gets: the connection, and for what. */
export interface SdkTestContext extends Connection {
  /** The launch this run of the test is for. */
  launch: Launch;
  /** The server's own arguments in this run. */
  args: readonly string[];
}

/** Options of {@linkcode sdkTest}. */
export interface SdkTestOptions<T> {
  /**
   * Set the new client up before it connects (notification handlers);
   * what it returns is the body's second argument.
   */
  prepare?(client: Client): T;
  /**
   * Run once the connection is closed (checks on what the server wrote,
   * clean-up). After a failed body it still runs, its own failure ignored.
   */
  after?(context: SdkTestContext): void | Promise<void>;
}

/**
 * One Deno test per launch of {@linkcode LAUNCHES}, named `name` with its
 * `[launch]` replaced by the launch's name in brackets; a launch that
 * cannot run here is an ignored test that says why. Each run starts the
 * server with `args` (or what `args(launch)` gives, for arguments made per
 * run such as a temporary root), connects a fresh SDK client, runs `fn`
 * and closes the connection, whether `fn` passes or fails.
 *
 * @example
 * ```ts ignore
 * sdkTest("sdk ping [launch] answers", [], async ({ client }) => {
 *   assert.deepEqual(await client.ping(), {});
 * });
 * ```
 */
export function sdkTest<T = undefined>(
  name: string,
  args:
    | readonly string[]
    | ((launch: Launch) => readonly string[] | Promise<readonly string[]>),
  fn: (context: SdkTestContext, prepared: T) => Promise<void>,
  options: SdkTestOptions<T> = {},
): void {
  if (!name.includes("[launch]")) {
    throw new TypeError(`sdkTest: "${name}" has no [launch] to fill in`);
  }
  for (const launch of LAUNCHES) {
    const title = name.replace("[launch]", `[${launch.name}]`);
    const status = launchStatus(launch);
    if (!status.available) {
      Deno.test({
        ignore: true,
        name: `${title} skipped: ${status.reason}`,
        fn() {},
      });
      continue;
    }
    Deno.test(title, async () => {
      const serverArgs = typeof args === "function" ? await args(launch) : args;
      const client = new Client({ name: "shipcode-tests", version: "0.0.1" });
      const prepared = options.prepare?.(client) as T;
      const connection = await connectSdk(
        client,
        launch.wire,
        launchCommand(launch, [...serverArgs]),
      );
      const context = { ...connection, launch, args: serverArgs };
      let passed = false;
      try {
        await fn(context, prepared);
        passed = true;
      } finally {
        await connection.close();
        if (options.after !== undefined) {
          if (passed) await options.after(context);
          else await Promise.resolve(options.after(context)).catch(() => {});
        }
      }
    });
  }
}

/** A program and its arguments, as `serverCommand` gives them. */
export interface ServerSpec {
  /** The program. */
  command: string;
  /** Its arguments (for Deno: `run`, flags, the script, the server's own). */
  args: string[];
  /** Its working directory. */
  cwd?: string;
}

/** A client connected to a server process it owns. */
export interface Connection {
  /** The client, connected. */
  client: Client;
  /** The client's transport (to send raw messages or watch them). */
  transport: StdioClientTransport | StreamableHTTPClientTransport;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  /** The protocol version the client settled on, once known. */
  negotiated(): string | undefined;
  /** Close the client, end the session and stop the server. */
  close(): Promise<void>;
}

/** How long a server may take to print the URL it serves. */
const STARTUP_MS = 30_000;

/**
 * The command that starts `target` with `args` (the server's own
 * arguments) reachable over `wire`: over HTTP, with `--http 127.0.0.1:0`
 * and network access limited to 127.0.0.1.
 */
export function launchCommand(
  launch: Pick<Launch, "target" | "wire">,
  args: string[] = [],
): ServerSpec {
  if (launch.wire === "stdio") return serverCommand(args, launch.target);
  return httpCommand(serverCommand(args, launch.target));
}

/**
 * `spec` (a Deno program, `run …`) turned into its HTTP form: network
 * access to 127.0.0.1 added to Deno's flags, `--http 127.0.0.1:0` to the
 * program's.
 */
export function httpCommand(spec: ServerSpec): ServerSpec {
  const args = spec.args[0] === "run"
    ? ["run", "--allow-net=127.0.0.1", ...spec.args.slice(1)]
    : [...spec.args];
  return { ...spec, args: [...args, "--http", "127.0.0.1:0"] };
}

/**
 * Connect `client` (its handlers already set) to a server started by
 * `spec` over `wire`. Over HTTP, `spec` must already carry `--http` (see
 * {@linkcode launchCommand} and {@linkcode httpCommand}).
 */
export async function connectSdk(
  client: Client,
  wire: Wire,
  spec: ServerSpec,
): Promise<Connection> {
  return wire === "stdio"
    ? await connectStdio(client, spec)
    : await connectHttp(client, spec);
}

async function connectStdio(
  client: Client,
  spec: ServerSpec,
): Promise<Connection> {
  const transport = new StdioClientTransport({
    command: spec.command,
    args: spec.args,
    cwd: spec.cwd,
    stderr: "pipe",
    env: { NO_COLOR: "1" },
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array | string) => {
    stderr += typeof chunk === "string"
      ? chunk
      : new TextDecoder().decode(chunk);
  });
  // The client reports the version it settled on to a transport that wants
  // it (the HTTP transport does); giving stdio the hook lets us observe it.
  let negotiated: string | undefined;
  Object.assign(transport, {
    setProtocolVersion(version: string) {
      negotiated = version;
    },
  });
  await client.connect(transport);
  return {
    client,
    transport,
    stderr: () => stderr,
    negotiated: () => negotiated,
    close: () => client.close(),
  };
}

/** A server process serving HTTP, and where. */
export type HttpProcess = ListeningProcess;

/**
 * Start `spec` (which must carry `--http`; see {@linkcode httpCommand}) and
 * wait for the URL it prints on stderr.
 */
export function startHttpServer(spec: ServerSpec): Promise<HttpProcess> {
  return startListening(spec, STARTUP_MS);
}

async function connectHttp(
  client: Client,
  spec: ServerSpec,
): Promise<Connection> {
  const server = await startHttpServer(spec);
  const transport = new StreamableHTTPClientTransport(new URL(server.url));
  try {
    await client.connect(transport);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return {
    client,
    transport,
    stderr: server.stderr,
    negotiated: () => transport.protocolVersion,
    async close() {
      // DELETE ends the session on the server, as a well-behaved client
      // does; then the server is stopped like a service (SIGTERM).
      await transport.terminateSession().catch(() => {});
      await client.close();
      await server.stop();
    },
  };
}
