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
} from "./flags.ts";
import {
  type DenoInstall,
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
    args.push(`--${flag.name}`);
    if (flag.kind !== "switch") args.push(value);
  }
  return args;
}

/**
 * What a client must spawn to serve `config`: the compiled binary itself,
 * or `deno run <DENO_RUN_FLAGS> <script>` with the same permissions the
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
      ...permissionFlags(config),
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
  /** One line saying where `text` goes (printed to stderr). */
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

/** What `shipcode-mcp config` prints without a client name. */
export function clientListText(): string {
  return `Print a ready-to-paste configuration for an MCP client:

  shipcode-mcp config claude-desktop   claude_desktop_config.json ("mcpServers")
  shipcode-mcp config claude-code      a "claude mcp add" command line
  shipcode-mcp config cursor           .cursor/mcp.json ("mcpServers")
  shipcode-mcp config vscode           .vscode/mcp.json ("servers", type stdio)

Flags given after the client name (--root DIR, --watch, ...) are carried into
the configuration; the root defaults to the current directory.
`;
}

/** The one-line error for a client name not in {@linkcode CLIENTS}. */
export function unknownClientMessage(name: string): string {
  return `unknown client "${name}"; choose one of ${
    CLIENTS.join(", ")
  }, for example: shipcode-mcp config cursor.`;
}
