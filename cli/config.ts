/**
 * `shipcode-mcp config [client]`: the ready-to-paste configuration that
 * makes an MCP client start this server. Pure functions: the caller says
 * how the server was started (compiled binary or `deno run`), these say
 * what the client must run.
 *
 * @module
 */

import {
  type Config,
  CONFIG_FLAGS,
  DEFAULTS,
  FEATURES,
  FLAGS,
  formatValue,
  parseAddress,
} from "./flags.ts";
import type { Invocation } from "./invocation.ts";
import {
  type DenoInstall,
  PERMISSION_FLAGS,
  permissionFlags,
  stableDenoCommand,
  V8_FLAGS_ARG,
} from "./run_command.ts";

/** The clients `config` knows, by the name used on the command line. */
export const CLIENTS = [
  "claude-desktop",
  "claude-code",
  "cursor",
  "vscode",
] as const;

/** One of {@linkcode CLIENTS}. */
export type Client = typeof CLIENTS[number];

/** The key the server is registered under in every client's configuration. */
export const SERVER_NAME = "shipcode";

/** Whether `name` is one of {@linkcode CLIENTS}. */
export function isClient(name: string): name is Client {
  return (CLIENTS as readonly string[]).includes(name);
}

/** A program and its arguments: what a client spawns. */
export interface Launch {
  /** Absolute path of the program. */
  command: string;
  /** Its arguments. */
  args: string[];
}

/** How the running server was started; see {@linkcode launchCommand}. */
export interface RunningProgram {
  /** `Deno.build.standalone`: true inside a `deno compile` binary. */
  standalone: boolean;
  /** `Deno.execPath()`: the binary itself, or the `deno` executable. */
  execPath: string;
  /** Absolute path of the entry script (`main.ts` or the bundle). */
  mainScript: string;
  /** `Deno.version.deno`. */
  denoVersion: string;
  /** Windows paths and shims; default false. */
  windows?: boolean;
  /** Whether a file exists (to find npm's stable link to Deno). */
  exists: DenoInstall["exists"];
  /**
   * How the user started it (`cli/invocation.ts`): its `command`, when
   * given, starts the server instead of `deno run` of `mainScript`.
   */
  invocation?: Invocation;
}

/**
 * The command-line flags that reproduce `config` when serving: always the
 * absolute roots (`--root` once per root), then every flag whose value differs from its default, in
 * the order of the flag table, so `shipcode-mcp config cursor --watch`
 * configures a watching server.
 */
export function serveArgs(config: Config): string[] {
  const args = config.root.flatMap((root) => [`--${FLAGS.root.name}`, root]);
  for (const [key, flag] of CONFIG_FLAGS) {
    if (key === "root") continue;
    const value = key === "features" &&
        FEATURES.every((feature) => config.features.includes(feature))
      ? "all"
      : formatValue(config[key]);
    if (value === formatValue(DEFAULTS[key])) continue;
    // A directory per flag, as each is given (`--allow-roots`).
    if (flag.kind === "paths") {
      for (const dir of config[key] as string[]) {
        args.push(`--${flag.name}`, dir);
      }
      continue;
    }
    args.push(`--${flag.name}`);
    if (flag.kind !== "switch") args.push(value);
  }
  return args;
}

/**
 * What a client must spawn to serve `config`: the compiled binary itself;
 * the command the user runs (the npm package's, or the installed one when
 * `config` needs no more than its fixed permissions), which works from any
 * directory; or `deno run <DENO_RUN_FLAGS> <script>` with the same permissions the
 * `start` task grants (read only, never a prompt on the protocol's stdin),
 * where `deno` is a command that survives upgrades of Deno
 * ({@linkcode stableDenoCommand}).
 */
export function launchCommand(
  program: RunningProgram,
  config: Config,
): Launch {
  const args = serveArgs(config);
  if (program.standalone) return { command: program.execPath, args };
  const invoked = program.invocation;
  const permissions = permissionFlags(config);
  if (
    invoked?.command !== undefined &&
    (!invoked.fixedPermissions ||
      permissions.join(" ") === PERMISSION_FLAGS.join(" "))
  ) {
    const [command, ...before] = invoked.command;
    return { command, args: [...before, ...args] };
  }
  const deno = stableDenoCommand({
    execPath: program.execPath,
    version: program.denoVersion,
    windows: program.windows,
    exists: program.exists,
  });
  return {
    command: deno.command,
    args: [
      ...deno.args,
      "run",
      ...permissions,
      V8_FLAGS_ARG,
      program.mainScript,
      ...args,
    ],
  };
}

/** The configuration text for one client, and where it goes. */
export interface ClientConfig {
  /** What to paste: JSON, or a shell command line; ends with a newline. */
  text: string;
  /**
   * One line saying where `text` goes (printed to stderr); for a server
   * over HTTP ({@linkcode httpClientConfig}), a second line with the
   * command that starts the server.
   */
  hint: string;
}

/** Quote `word` for a POSIX shell, only when it needs quoting. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'"'"'`)}'`;
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2) + "\n";
}

/** The ready-to-paste configuration of `client` for `launch`. */
export function clientConfig(client: Client, launch: Launch): ClientConfig {
  const stdio = { command: launch.command, args: launch.args };
  switch (client) {
    case "claude-desktop":
      return {
        text: json({ mcpServers: { [SERVER_NAME]: stdio } }),
        hint:
          'Merge into claude_desktop_config.json ("mcpServers"; macOS: ~/Library/Application Support/Claude/, Windows: %APPDATA%\\Claude\\), then restart Claude Desktop.',
      };
    case "claude-code":
      return {
        text: [
          "claude",
          "mcp",
          "add",
          "--transport",
          "stdio",
          SERVER_NAME,
          "--",
          launch.command,
          ...launch.args,
        ].map(shellQuote).join(" ") + "\n",
        hint:
          'Run this command; add --scope project after "add" to share it through the project\'s .mcp.json.',
      };
    case "cursor":
      return {
        text: json({ mcpServers: { [SERVER_NAME]: stdio } }),
        hint:
          'Save as .cursor/mcp.json in the project (or ~/.cursor/mcp.json for every project), merging into an existing "mcpServers".',
      };
    case "vscode":
      return {
        text: json({
          servers: { [SERVER_NAME]: { type: "stdio", ...stdio } },
        }),
        hint:
          'Save as .vscode/mcp.json in the workspace, merging into an existing "servers".',
      };
  }
}

/**
 * Why clients cannot be configured to connect to `http` (the `--http`
 * value, `HOST:PORT`) as given, in one line, or undefined when they can:
 * a server listening on every interface (0.0.0.0, ::) is reached at one of
 * its addresses, not at that one, and port 0 is whichever port is free when
 * the server starts.
 */
export function unreachableAddressProblem(http: string): string | undefined {
  const { hostname, port } = parseAddress(http);
  if (/^0+(\.0+){3}$/.test(hostname) || /^[0:]+$/.test(hostname)) {
    return `--http ${http} listens on every network interface, an address no client can connect to; give config the address clients use to reach the server, for example --http 127.0.0.1:${
      port === 0 ? 8080 : port
    } (or this machine's name or network address).`;
  }
  if (port === 0) {
    return `--http ${http} takes whichever port is free when the server starts, which a client cannot be told in advance; choose a port, for example --http ${
      http.slice(0, http.lastIndexOf(":"))
    }:8080.`;
  }
  return undefined;
}

/** The URL a client connects to for a server started with `--http http`. */
export function httpUrl(http: string): string {
  return `http://${http}/mcp`;
}

/**
 * The stdio bridge that connects Claude Desktop to a URL, pinned: Claude
 * Desktop runs only local servers from its configuration file.
 */
export const MCP_REMOTE = "mcp-remote@0.15.1";

/**
 * The variable that carries `Authorization`'s value to {@linkcode
 * MCP_REMOTE}: a header argument with a space in it is split on Windows,
 * a variable's value is not.
 */
export const BRIDGE_AUTH_VARIABLE = "SHIPCODE_AUTHORIZATION";

/** The id of the VS Code input that asks for the bearer token. */
export const VSCODE_TOKEN_INPUT = "shipcode-token";

/**
 * The ready-to-paste configuration that connects `client` to a server run
 * separately with `--http` (`config.http`, which
 * {@linkcode unreachableAddressProblem} accepts), started by `server`, or
 * undefined when this program cannot listen (a compiled binary, built to
 * read files only: the hint then says to serve from source). With
 * `--auth-token-env NAME` the token is never written out: each client
 * reads it from `NAME` (Claude Code through the shell, Cursor from its
 * environment), asks for it (VS Code), or gets a placeholder to replace
 * (Claude Desktop, whose bridge gets no environment of the user's).
 */
export function httpClientConfig(
  client: Client,
  server: Launch | undefined,
  config: Pick<Config, "http" | "authTokenEnv">,
): ClientConfig {
  const url = httpUrl(config.http);
  const token = config.authTokenEnv;
  const start = `Start the server separately, where clients can reach it${
    token === "" ? "" : `, with the token in environment variable ${token}`
  }: ${
    server === undefined
      ? `this compiled binary reads files only and cannot listen, so from the repository run deno task serve with the same flags and --http ${config.http}`
      : [server.command, ...server.args].map(shellQuote).join(" ")
  }`;
  const done = (text: string, where: string) => ({
    text,
    hint: `${where}\n${start}`,
  });
  switch (client) {
    case "claude-desktop": {
      const { hostname } = parseAddress(config.http);
      const args = ["-y", MCP_REMOTE, url];
      // The bridge refuses plain http:// to anything but the loopback
      // names it knows.
      if (hostname !== "127.0.0.1" && hostname !== "localhost") {
        args.push("--allow-http");
      }
      const entry: Record<string, unknown> = { command: "npx", args };
      if (token !== "") {
        args.push("--header", `Authorization:\${${BRIDGE_AUTH_VARIABLE}}`);
        entry.env = {
          [BRIDGE_AUTH_VARIABLE]: `Bearer <the token in ${token}>`,
        };
      }
      return done(
        json({ mcpServers: { [SERVER_NAME]: entry } }),
        `Claude Desktop takes no URL in its configuration file, and its custom connectors (Settings > Connectors) connect from Anthropic's cloud, which cannot reach this machine; so this entry runs the ${MCP_REMOTE} bridge (Node.js's npx), stdio to Claude Desktop and HTTP to the server. Merge it into claude_desktop_config.json ("mcpServers"; macOS: ~/Library/Application Support/Claude/, Windows: %APPDATA%\\Claude\\)${
          token === ""
            ? ""
            : `, replace the placeholder in "env" with the token (after "Bearer ")`
        }, then restart Claude Desktop.`,
      );
    }
    case "claude-code":
      return done(
        [
          "claude",
          "mcp",
          "add",
          "--transport",
          "http",
          SERVER_NAME,
          url,
        ].map(shellQuote).join(" ") +
          // --header takes several values: it goes after the name and URL.
          // Double quotes: the shell puts the token in, from the variable.
          (token === "" ? "" : ` --header "Authorization: Bearer $${token}"`) +
          "\n",
        token === ""
          ? 'Run this command; add --scope project after "add" to share it through the project\'s .mcp.json.'
          : `Run this command in a shell where ${token} holds the token, which the shell puts in (and Claude Code then keeps; do not add --scope project, which would write it into the project's .mcp.json).`,
      );
    case "cursor":
      return done(
        json({
          mcpServers: {
            [SERVER_NAME]: {
              url,
              ...(token === "" ? {} : {
                headers: { Authorization: `Bearer \${env:${token}}` },
              }),
            },
          },
        }),
        `Save as .cursor/mcp.json in the project (or ~/.cursor/mcp.json for every project), merging into an existing "mcpServers"${
          token === ""
            ? "."
            : `; Cursor reads ${token} from its own environment, so start Cursor where it holds the token.`
        }`,
      );
    case "vscode":
      return done(
        json({
          servers: {
            [SERVER_NAME]: {
              type: "http",
              url,
              ...(token === "" ? {} : {
                headers: {
                  Authorization: `Bearer \${input:${VSCODE_TOKEN_INPUT}}`,
                },
              }),
            },
          },
          ...(token === "" ? {} : {
            inputs: [{
              type: "promptString",
              id: VSCODE_TOKEN_INPUT,
              description:
                `Bearer token of the shipcode server (the value of ${token})`,
              password: true,
            }],
          }),
        }),
        `Save as .vscode/mcp.json in the workspace, merging into an existing "servers"${
          token === ""
            ? "."
            : ` and "inputs"; VS Code asks for the token once and keeps it in its secret storage.`
        }`,
      );
  }
}

/** What `shipcode-mcp config` prints without a client name. */
export function clientListText(): string {
  return `Print a ready-to-paste configuration for an MCP client:

  shipcode-mcp config claude-desktop   claude_desktop_config.json ("mcpServers")
  shipcode-mcp config claude-code      a "claude mcp add" command line
  shipcode-mcp config cursor           .cursor/mcp.json ("mcpServers")
  shipcode-mcp config vscode           .vscode/mcp.json ("servers", type stdio)

Flags given after the client name (--root DIR, --watch, ...) are carried into
the configuration; the root defaults to the current directory. With
--http HOST:PORT it connects the client to http://HOST:PORT/mcp instead, and
says how to start that server.
`;
}

/** The one-line error for a client name not in {@linkcode CLIENTS}. */
export function unknownClientMessage(name: string): string {
  return `unknown client "${name}"; choose one of ${
    CLIENTS.join(", ")
  }, for example: shipcode-mcp config cursor.`;
}
