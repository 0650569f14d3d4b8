/**
 * `shipcode-mcp`: an MCP server for a read-only code workspace, on stdio.
 *
 * This is where the layers meet: the command line (`cli/`) configures the
 * protocol library (`mcp/`, `handlers/`), and the workspace (`workspace/`)
 * with its tools (`tools/`) and resources (`resources/`) is opened and
 * registered when a request first needs it. Run as a program it serves
 * stdio; imported, it gives {@linkcode createServer}.
 *
 * @module
 */

import {
  type Config,
  type Feature,
  parseAddress,
  parseFlags,
  UsageError,
  VERSION,
} from "./cli/flags.ts";
import {
  type Invocation,
  renameCommand,
  takeInvocation,
} from "./cli/invocation.ts";
import {
  completionHandlers,
  handlers,
  loggingHandlers,
  modernHandlers,
  promptHandlers,
} from "./handlers/mod.ts";
import { listClientRoots, rootsHandlers } from "./handlers/roots.ts";
import { isObject, type JsonObject } from "./mcp/jsonrpc.ts";
import { stderrLogger } from "./mcp/log.ts";
import { isModernVersion } from "./mcp/protocol_versions.ts";
import {
  capabilitiesOf,
  type Handler,
  type HandlerContext,
  type HandlerMap,
  McpServer,
  type MethodSpec,
  specOf,
} from "./mcp/server.ts";
import { serveStdio } from "./mcp/transports/stdio.ts";
import { writeAll } from "./mcp/write_all.ts";
import type { ToolCaps } from "./tools/mod.ts";
import type {
  ClientRoots,
  RootsConfinement,
  ServeOptions,
} from "./app/roots.ts";

/**
 * Make the server `shipcode-mcp` runs for `config`. Nothing of the
 * workspace is loaded here: its modules (and their npm dependencies) load
 * in the server's `setup`, when a method first needs them, so a client
 * gets its `initialize` and `ping` answers without waiting for code those
 * never use.
 */
export function createServer(config: Config): McpServer {
  // Without --root, each session is served its client's roots, when it
  // gives some (set up with the workspace, which the first call awaits).
  let clientRoots: ClientRoots | undefined;
  const followRoots = (ctx: HandlerContext) => {
    ctx.server.ready().then(() => clientRoots?.refresh(ctx)).catch((error) =>
      ctx.server.loggerFor(ctx.session).log(
        "error",
        "cannot follow the client's roots:",
        error,
      )
    );
  };
  const features = handlerMap(config);
  const map: HandlerMap = config.root.length > 0
    ? features
    : { ...features, ...rootsHandlers(followRoots) };
  if (
    config.root.length === 0 && config.protocolVersions.some(isModernVersion)
  ) {
    // The methods that may ask the client for input (their registry rows
    // say so) may ask it for its roots.
    for (const [method, entry] of Object.entries(map)) {
      const spec = specOf(entry);
      if (spec.asksInput !== true) continue;
      (map as Record<string, MethodSpec>)[method] = {
        ...spec,
        handler: withRequestRoots(spec.handler, () => clientRoots),
      };
    }
  }
  return new McpServer({
    handlers: map,
    info: { name: "shipcode-mcp", version: VERSION },
    protocolVersions: config.protocolVersions,
    capabilities: capabilities(config, map),
    pageSize: config.pageSize,
    logger: stderrLogger(config.logLevel, "shipcode-mcp"),
    setup: async (server) => {
      clientRoots = await openWorkspace(server, config);
    },
  });
}

/**
 * `handler` for a server that follows its clients' roots, made to serve a
 * stateless request (MCP 2026-07-28) whose client declares `roots` the
 * roots it gives for that request: asked for with an input_required round
 * (there is no `initialize` after which to ask), opened for the one request
 * and forgotten after it. Requests of the handshake era go straight to
 * `handler`.
 */
function withRequestRoots(
  handler: Handler,
  roots: () => ClientRoots | undefined,
): Handler {
  return async (params, ctx) => {
    const clientRoots = roots();
    const session = ctx.session;
    if (
      clientRoots === undefined ||
      !isModernVersion(session.protocolVersion ?? "") ||
      !isObject(session.clientCapabilities?.roots)
    ) return await handler(params, ctx);
    clientRoots.refresh(ctx);
    try {
      return await handler(params, ctx);
    } finally {
      clientRoots.forget(session);
    }
  };
}

/**
 * The methods the server answers: the default map, plus those of each
 * feature `--features` turns on (which the capabilities then declare).
 */
export function handlerMap(config: Config): HandlerMap {
  const on = (feature: Feature) => config.features.includes(feature);
  return {
    ...handlers,
    ...(on("prompts") ? promptHandlers : {}),
    ...(on("completion") ? completionHandlers : {}),
    ...(on("logging") ? loggingHandlers : {}),
    // 2026-07-28 is offered like any version: by --protocol-versions.
    ...(config.protocolVersions.includes("2026-07-28") ? modernHandlers : {}),
  };
}

/**
 * The initialize `capabilities` beyond what the handler map implies:
 * --watch adds subscriptions and list_changed for resources, and the
 * `list-changed` feature declares `listChanged` on every list. Undefined
 * when neither is on (the handler map decides).
 */
function capabilities(
  config: Config,
  map: HandlerMap,
): JsonObject | undefined {
  const listChanged = config.features.includes("list-changed");
  if (!config.watch && !listChanged) return undefined;
  const capabilities = capabilitiesOf(map, { listChanged });
  if (config.watch) {
    capabilities.resources = { subscribe: true, listChanged: true };
  }
  return capabilities;
}

/** The limits the tools work within, from the flags. */
export function toolCaps(config: Config): ToolCaps {
  return {
    maxEntries: config.maxEntries,
    maxMatches: config.maxMatches,
    maxReadBytes: config.maxReadBytes,
    maxDepth: config.maxDepth,
    ...(config.rg === "" ? {} : { rgPath: config.rg }),
  };
}

/**
 * Open the roots (`--root`, each; else the current directory) and register
 * their tools, resources and (with the `prompts` feature) prompts on
 * `server`. Without --root, returns what follows each session's client
 * roots, its tools and prompts registered instead.
 */
async function openWorkspace(
  server: McpServer,
  config: Config,
): Promise<ClientRoots | undefined> {
  const { ClientRoots, openServed } = await import("./app/roots.ts");
  const options: ServeOptions = {
    workspace: { includeIgnored: config.includeIgnored },
    resources: {
      maxReadBytes: config.maxReadBytes,
      maxResources: config.maxResources,
      watch: config.watch,
      watchOptions: {
        // Watching is a convenience: a failure is logged, never fatal.
        onError: (error) =>
          server.logger.log("warn", "watching the root failed:", error),
      },
    },
    caps: toolCaps(config),
  };
  const given = config.root.length > 0;
  if (config.index && config.root.length === 1) {
    options.index = {
      ...(config.indexCache === "" ? {} : { cacheDir: config.indexCache }),
      onReady: (stats) =>
        server.logger.log(
          "info",
          `index ready: ${stats.files} files (${stats.textFiles} text), ${stats.postings} postings in ${
            (stats.bytes / 1048576).toFixed(0)
          } MiB, built in ${(stats.buildMs / 1000).toFixed(1)} s${
            stats.piped ? " on two workers" : ""
          }, ${stats.read} files read${
            stats.cache.length === 0 ? "" : `; cache: ${stats.cache.join(", ")}`
          }`,
        ),
      onError: (error) =>
        server.logger.log("warn", "the index stopped; searches scan:", error),
    };
  } else if (config.index) {
    server.logger.log(
      "warn",
      "--index keeps an index of one --root only; searches scan",
    );
  }
  const served = await openServed(given ? config.root : [Deno.cwd()], options);
  server.resources = served.resources;
  const prompts = config.features.includes("prompts")
    ? await import("./prompts/mod.ts")
    : undefined;
  if (given) {
    for (const tool of served.tools) server.tools.register(tool);
    for (const prompt of prompts?.servedPrompts(served, options.caps) ?? []) {
      server.prompts.register(prompt);
    }
    return undefined;
  }
  const clientRoots = new ClientRoots({
    ...options,
    ...await rootsConfinement(config),
    fallback: served,
    list: listClientRoots,
    logger: server.logger,
    server,
  });
  for (const tool of clientRoots.tools()) server.tools.register(tool);
  // The prompts, like the tools, serve each session its client's roots.
  const sessionPrompts =
    prompts?.sessionPrompts(clientRoots, served, options.caps) ?? [];
  for (const prompt of sessionPrompts) server.prompts.register(prompt);
  return clientRoots;
}

/**
 * How far a client's roots are trusted. Over HTTP the client is a remote
 * party, not the user who started the server: its roots are served only
 * inside the `--allow-roots` directories (their real paths), and refused
 * without any. On stdio the client is the user: any root it gives, unless
 * `--allow-roots` confines them there too.
 */
async function rootsConfinement(
  config: Config,
): Promise<{ confine?: RootsConfinement }> {
  const dirs = config.allowRoots;
  if (config.http === "" && dirs.length === 0) return {};
  const allowed = await Promise.all(dirs.map((dir) => Deno.realPath(dir)));
  const advice = dirs.length === 0
    ? "Over HTTP, the server serves a client's roots only inside directories its operator allows: start it with --allow-roots DIR (a directory holding the roots; give it again for more), or with --root DIR to serve DIR to every client."
    : "Give roots inside the allowed directories, or have the server started with --allow-roots DIR for another directory (real paths are compared: a link does not lead out).";
  return { confine: { allowed, advice } };
}

const encoder = new TextEncoder();

/**
 * Why `root` cannot be served (given to `--root`, or to `flag`), as a
 * one-line usage error; or undefined.
 */
function rootProblem(root: string, flag = "--root"): string | undefined {
  try {
    // Synchronous on purpose: the first asynchronous file operation of a
    // process starts a worker thread, about a millisecond of start-up.
    if (Deno.statSync(root).isDirectory) return undefined;
    return `${flag} ${root} is not a directory; pass a directory, for example ${flag} .`;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return `${flag} ${root} does not exist; pass an existing directory, for example ${flag} .`;
    }
    return `${flag} ${root} cannot be read (${
      (error as Error).message
    }); pass a readable directory.`;
  }
}

/**
 * Whether the server runs from a clone of the repository: `main.ts`, or
 * the bundle `deno task start` builds in its `dist/` (beside which the
 * npm package, say, has no `main.ts`).
 */
function fromRepository(): boolean {
  const entry = Deno.mainModule;
  if (entry.endsWith("/main.ts")) return true;
  if (!entry.startsWith("file:") || !entry.endsWith("/dist/shipcode-mcp.js")) {
    return false;
  }
  try {
    return Deno.statSync(new URL("../main.ts", entry)).isFile;
  } catch {
    return false;
  }
}

/** The entry script's path, for the `deno run` command line `config` prints. */
async function mainScript(): Promise<string> {
  const url = new URL(Deno.mainModule);
  if (url.protocol !== "file:") return url.href;
  const { fileURLToPath } = await import("node:url");
  return fileURLToPath(url);
}

async function main(
  args: string[],
  invocation: Invocation,
): Promise<number> {
  // Help, errors and hints name the command as the user runs it.
  const named = (text: string) => renameCommand(text, invocation.name);
  let command;
  try {
    command = parseFlags(args, Deno.cwd());
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`shipcode-mcp: ${named(error.message)}`);
    return 2;
  }
  if (command.kind === "serve" || command.kind === "config") {
    const dirs = [
      ...command.config.root.map((dir) => [dir, "--root"]),
      ...command.config.allowRoots.map((dir) => [dir, "--allow-roots"]),
    ];
    for (const [root, flag] of dirs) {
      const problem = rootProblem(root, flag);
      if (problem !== undefined) {
        console.error(`shipcode-mcp: ${problem}`);
        return 2;
      }
    }
  }
  switch (command.kind) {
    case "help": {
      const { helpText } = await import("./cli/help.ts");
      await writeAll(Deno.stdout, encoder.encode(named(helpText())));
      return 0;
    }
    case "version": {
      await writeAll(Deno.stdout, encoder.encode(`shipcode-mcp ${VERSION}\n`));
      return 0;
    }
    case "config": {
      // Loaded here only: start-up of the server never pays for it.
      const {
        clientConfig,
        clientListText,
        httpClientConfig,
        isClient,
        launchCommand,
        unknownClientMessage,
        unreachableAddressProblem,
      } = await import("./cli/config.ts");
      // Configuration text on stdout is the point of this command (it can
      // be redirected into the client's file); the hint goes to stderr.
      if (command.client === undefined) {
        await writeAll(Deno.stdout, encoder.encode(named(clientListText())));
        return 0;
      }
      if (!isClient(command.client)) {
        console.error(
          `shipcode-mcp: ${named(unknownClientMessage(command.client))}`,
        );
        return 2;
      }
      // With --http the client connects to a URL: the address must be one
      // it can connect to.
      const http = command.config.http;
      const problem = http === "" ? undefined : unreachableAddressProblem(http);
      if (problem !== undefined) {
        console.error(`shipcode-mcp: ${problem}`);
        return 2;
      }
      const launch = launchCommand({
        standalone: Deno.build.standalone,
        execPath: Deno.execPath(),
        mainScript: await mainScript(),
        denoVersion: Deno.version.deno,
        windows: Deno.build.os === "windows",
        exists: isFile,
        invocation,
      }, command.config);
      // A compiled binary has the permissions it was built with: reading.
      const { text, hint } = http === ""
        ? clientConfig(command.client, launch)
        : httpClientConfig(
          command.client,
          Deno.build.standalone ? undefined : launch,
          command.config,
        );
      await writeAll(Deno.stdout, encoder.encode(text));
      console.error(hint);
      return 0;
    }
    case "serve": {
      // Loaded only with --state-key-env, like what follows.
      if (command.config.stateKeyEnv !== "") {
        const problem = (await import("./cli/state_key.ts")).useStateKey(
          command.config.stateKeyEnv,
        );
        if (problem !== undefined) {
          console.error(`shipcode-mcp: ${problem}`);
          return 2;
        }
      }
      // Loaded only with --http: stdio's start-up never pays for it.
      if (command.config.http !== "") {
        return await serveOverHttp(command.config);
      }
      if (Deno.stdin.isTerminal() && command.config.logLevel !== "silent") {
        await writeAll(
          Deno.stderr,
          encoder.encode(
            named(
              (await import("./cli/help.ts")).terminalNote(
                command.config.root.length > 0
                  ? command.config.root
                  : Deno.cwd(),
              ),
            ),
          ),
        );
      }
      const server = createServer(command.config);
      // The first signal stops reading and gives work in flight a short
      // grace period (serveStdio's stopGraceMs), even when the client no
      // longer reads our output; a second one ends the process at once.
      const stop = stopOnSignals();
      let watch: { close(): void } | undefined;
      let done = false;
      await serveStdio(server, {
        maxLineBytes: command.config.maxLineBytes,
        maxWaitMs: command.config.orderWait,
        signal: stop.signal,
        // With --watch: resource change notifications for this client, as
        // soon as the resources are loaded (which --watch starts at once).
        onSession: (session) => {
          // With --index: open the workspace now, which starts the index.
          if (command.config.index) {
            server.ready().catch((error) =>
              server.logger.log("error", "cannot open the workspace:", error)
            );
          }
          if (!command.config.watch) return;
          // Any failure, including one thrown while the watch starts, is
          // logged: watching never ends the process.
          Promise.all([server.ready(), import("./mcp/watch.ts")]).then(
            ([, { watchResources }]) => {
              // A session given its client's roots already has its own
              // watch (app/roots.ts); the server's stops reaching it.
              if (!done && session.resources === undefined) {
                watch = watchResources(server, session);
              }
            },
          ).catch((error) =>
            server.logger.log("error", "cannot watch the root:", error)
          );
        },
      });
      done = true;
      watch?.close();
      return 0;
    }
  }
}

/**
 * Serve `config` over Streamable HTTP until SIGINT or SIGTERM, which stop
 * accepting requests and finish those in flight (a second one ends the
 * process at once). One server and, with --watch, one watch of the root
 * serve every session. Returns the exit status.
 */
async function serveOverHttp(config: Config): Promise<number> {
  const { hostname, port } = parseAddress(config.http);
  let bearerToken: string | undefined;
  if (config.authTokenEnv !== "") {
    const name = config.authTokenEnv;
    try {
      bearerToken = Deno.env.get(name);
    } catch {
      console.error(
        `shipcode-mcp: cannot read environment variable ${name} for --auth-token-env; run deno with --allow-env=${name}.`,
      );
      return 2;
    }
    if (bearerToken === undefined || bearerToken === "") {
      console.error(
        `shipcode-mcp: --auth-token-env ${name}: the environment variable ${name} is not set (or empty); set it to the token clients must send.`,
      );
      return 2;
    }
  }
  const [{ serveHttp }, { SharedWatches, watchResources }] = await Promise.all([
    import("./mcp/transports/http.ts"),
    import("./mcp/watch.ts"),
  ]);
  const server = createServer(config);
  const watches = new SharedWatches();
  const stop = new AbortController();
  let http;
  try {
    http = serveHttp(server, {
      hostname,
      port,
      allowedOrigins: config.allowOrigins,
      allowedHosts: config.allowHosts,
      allowHostAdvice: (host) =>
        `restart it with --allow-hosts ${host} (comma-separated with any others)`,
      allowOriginAdvice: (origin) =>
        `restart it with --allow-origins ${origin} (comma-separated with any others)`,
      bearerToken,
      maxBodyBytes: config.maxBodyBytes,
      sessionIdleTimeoutMs: config.idleTimeout * 1000,
      unusedSessionTimeoutMs: config.unusedSessionTimeout * 1000,
      headerTimeoutMs: config.headerTimeout * 1000,
      keepAliveTimeoutMs: config.keepAliveTimeout * 1000,
      writeTimeoutMs: config.writeTimeout * 1000,
      maxConnections: config.maxConnections,
      maxSessions: config.maxSessions,
      maxKeptBytes: config.maxKeptBytes,
      keepAliveMs: config.sseKeepAlive * 1000,
      signal: stop.signal,
      onSession: (session) => {
        if (!config.watch) return;
        server.ready().then(() => {
          // A session given its client's roots has its own watch
          // (app/roots.ts); the others share the server's one.
          if (session.state === "closed" || session.resources !== undefined) {
            return;
          }
          const watch = watchResources(server, session, watches);
          session.onClose(() => watch?.close());
        }).catch((error) =>
          server.logger.log("error", "cannot watch the root:", error)
        );
      },
    });
  } catch (error) {
    const why = error instanceof Deno.errors.AddrInUse
      ? "the address is in use; choose another port (or 0 for any free one)"
      : error instanceof Deno.errors.NotCapable ||
          error instanceof Deno.errors.PermissionDenied
      ? Deno.build.standalone
        ? `this compiled binary reads files only; from the repository, serve with deno task serve --http ${config.http}`
        : `run deno with --allow-net=${config.http}${
          // From the repository, most likely through `deno task start`,
          // which grants reading only: the task that grants the rest is
          // `serve`.
          fromRepository()
            ? ` (from the repository: deno task serve --http ${config.http})`
            : ""}`
      : (error as Error).message;
    console.error(`shipcode-mcp: cannot listen on ${config.http}: ${why}.`);
    return 1;
  }
  if (config.logLevel !== "silent") {
    console.error(`shipcode-mcp: serving MCP at ${http.url}`);
  }
  const signals = stopOnSignals(stop);
  await http.finished;
  signals.release();
  return 0;
}

/**
 * Abort `stop` on the first SIGINT or SIGTERM; end the process at once on
 * a second. `release` stops listening.
 */
function stopOnSignals(
  stop: AbortController = new AbortController(),
): { signal: AbortSignal; release(): void } {
  const signals = ["SIGINT", "SIGTERM"] as const;
  const onSignal = () => {
    if (stop.signal.aborted) Deno.exit(1);
    stop.abort();
  };
  for (const signal of signals) {
    try {
      Deno.addSignalListener(signal, onSignal);
    } catch {
      // Not every platform has every signal (Windows lacks SIGTERM).
    }
  }
  return {
    signal: stop.signal,
    release() {
      for (const signal of signals) {
        try {
          Deno.removeSignalListener(signal, onSignal);
        } catch {
          // As above.
        }
      }
    },
  };
}

/** Whether `path` is a file (or a link to one) that can be seen. */
function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

if (import.meta.main) {
  const { invocation, args } = takeInvocation(Deno.args);
  Deno.exit(await main(args, invocation));
}
