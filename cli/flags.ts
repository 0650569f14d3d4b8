/**
 * Command-line flags of `shipcode-mcp`: the flag table ({@linkcode FLAGS}),
 * and the parser that checks a command line against it into a typed
 * {@linkcode Config}.
 *
 * Each flag is written once, as a row of the table: its name, the kind of
 * value it takes, its default, an example and its help text. The parser,
 * {@linkcode DEFAULTS}, `--help` (`help.ts`), the flags `config` carries
 * into a client's configuration (`config.ts`) and the README's flag table
 * (checked by `help_test.ts`) all come from the rows. A new flag is a new
 * row, plus the code that uses its value.
 *
 * @module
 */

import manifest from "../deno.json" with { type: "json" };
import { isLogLevel, LOG_LEVELS, type LogLevel } from "../mcp/log.ts";
import { DEFAULT_MAX_LINE_BYTES } from "../mcp/line_stream.ts";
import {
  isProtocolVersion,
  MODERN_PROTOCOL_VERSIONS,
  PROTOCOL_VERSIONS,
} from "../mcp/protocol_versions.ts";
import { DEFAULT_MAX_WAIT_MS } from "../mcp/response_order.ts";
import { DEFAULT_PAGE_SIZE, LATEST_PROTOCOL_VERSION } from "../mcp/server.ts";
import { absolutePath } from "../workspace/path.ts";

/** The program's version, from `deno.json`: `--version`, `serverInfo`, `--help`. */
export const VERSION: string = manifest.version;

/**
 * The optional features `--features` switches on, each of which changes
 * what `initialize` answers (so none is on by default).
 */
export const FEATURES = [
  "prompts",
  "completion",
  "logging",
  "list-changed",
] as const;

/** One of {@linkcode FEATURES}. */
export type Feature = typeof FEATURES[number];

/** Fields every row of the flag table has. */
interface Row {
  /** The long name, without the leading `--`. */
  readonly name: string;
  /**
   * One line of help, in Markdown as the README shows it; `--help` prints
   * it without the backticks.
   */
  readonly help: string;
}

/** A row for a flag that takes a value. */
interface ValueRow extends Row {
  /** The value's placeholder in `--help` and the README (`N`, `DIR`). */
  readonly arg: string;
  /** A value shown in error messages; default: the default value. */
  readonly example?: string;
  /** How the default reads in `--help` and the README; default: its value. */
  readonly defaultText?: string;
}

/**
 * One row of the flag table. The kind says how the value is read:
 * - `path`: a directory, made absolute against the working directory;
 * - `paths`: like `path`, and the flag may be given several times: its
 *   value is the list of directories, in the order given (empty when the
 *   flag was not given, so the program can tell);
 * - `level`: a log level;
 * - `versions`: protocol versions, comma-separated, most preferred first;
 * - `features`: names from {@linkcode FEATURES}, comma-separated, or `all`;
 * - `count`: a whole number of at least 1; `bytes` is a count of bytes;
 * - `address`: `[HOST:]PORT` to listen on (HOST 127.0.0.1 when left out),
 *   kept as `HOST:PORT`; `""` (the default) is off;
 * - `list`: words, comma-separated (`""` none);
 * - `env`: the name of an environment variable (`""` none);
 * - `switch`: on when given, off by default;
 * - `action`: a command of its own (`--help`), with a one-letter alias.
 */
export type Flag =
  | ValueRow & { readonly kind: "path"; readonly default: string }
  | ValueRow & { readonly kind: "paths"; readonly default: readonly string[] }
  | ValueRow & { readonly kind: "level"; readonly default: LogLevel }
  | ValueRow & {
    readonly kind: "versions";
    readonly default: readonly string[];
  }
  | ValueRow & {
    readonly kind: "features";
    readonly default: readonly Feature[];
  }
  | ValueRow & {
    readonly kind: "count" | "bytes";
    readonly default: number;
    /** The largest value taken, when there is one. */
    readonly max?: number;
  }
  | ValueRow & { readonly kind: "address" | "env"; readonly default: string }
  | ValueRow & { readonly kind: "list"; readonly default: readonly string[] }
  | Row & { readonly kind: "switch" }
  | Row & { readonly kind: "action"; readonly short: string };

/**
 * The flag table: every flag of `shipcode-mcp`, keyed by the
 * {@linkcode Config} field it sets (the two actions by their command), in
 * the order `--help` and the README list them.
 */
export const FLAGS = {
  root: {
    name: "root",
    kind: "paths",
    arg: "DIR",
    default: [],
    example: ".",
    defaultText: "the client's roots, else the current directory",
    help:
      "directory to serve; must exist; give it again to serve several roots",
  },
  allowRoots: {
    name: "allow-roots",
    kind: "paths",
    arg: "DIR",
    default: [],
    example: ".",
    defaultText: "none: over HTTP, client roots are refused",
    help:
      "without `--root`: serve a client's roots only inside DIR (real paths: links resolved); give it again for more; over HTTP client roots need it, on stdio any is served unless it is given",
  },
  logLevel: {
    name: "log-level",
    kind: "level",
    arg: "LEVEL",
    default: "error",
    example: "info",
    help: "`debug`, `info`, `warn`, `error` or `silent`; logs go to stderr",
  },
  protocolVersions: {
    name: "protocol-versions",
    kind: "versions",
    arg: "LIST",
    default: [LATEST_PROTOCOL_VERSION],
    help:
      `supported MCP versions, comma-separated, most preferred first, from ${
        [...PROTOCOL_VERSIONS, ...MODERN_PROTOCOL_VERSIONS].join(", ")
      } (2026-07-28: stateless, offered through \`server/discover\`)`,
  },
  features: {
    name: "features",
    kind: "features",
    arg: "LIST",
    default: [],
    defaultText: "none",
    example: "prompts,completion",
    help: `optional MCP features, comma-separated, or \`all\`: ${
      FEATURES.map((name) => `\`${name}\``).join(", ")
    }`,
  },
  watch: {
    name: "watch",
    kind: "switch",
    help: "watch the root: resource subscriptions and `list_changed`",
  },
  pageSize: {
    name: "page-size",
    kind: "count",
    arg: "N",
    default: DEFAULT_PAGE_SIZE,
    help: "items per page of list results",
  },
  maxResources: {
    name: "max-resources",
    kind: "count",
    arg: "N",
    default: 1000,
    help: "most files `resources/list` shows, the most useful first",
  },
  maxLineBytes: {
    name: "max-line-bytes",
    kind: "bytes",
    arg: "N",
    default: DEFAULT_MAX_LINE_BYTES,
    help: "longest accepted message line",
  },
  maxEntries: {
    name: "max-entries",
    kind: "count",
    arg: "N",
    default: 1000,
    help: "most entries `list_directory` and `find_files` return",
  },
  maxMatches: {
    name: "max-matches",
    kind: "count",
    arg: "N",
    default: 200,
    help: "most matches `search_text` returns",
  },
  maxReadBytes: {
    name: "max-read-bytes",
    kind: "bytes",
    arg: "N",
    default: 1024 * 1024,
    help: "largest file read whole",
  },
  maxDepth: {
    name: "max-depth",
    kind: "count",
    arg: "N",
    default: 8,
    help: "deepest level `list_directory` descends to",
  },
  orderWait: {
    name: "order-wait",
    kind: "count",
    arg: "MS",
    default: DEFAULT_MAX_WAIT_MS,
    help:
      "on stdio: how long a finished answer waits for an earlier, slower one, to keep answers in request order (ms)",
  },
  includeIgnored: {
    name: "include-ignored",
    kind: "switch",
    help: "also serve files that `.gitignore` excludes",
  },
  index: {
    name: "index",
    kind: "switch",
    help:
      "index one `--root` in memory for `find_files` and `search_text`, built in the background, kept fresh",
  },
  indexCache: {
    name: "index-cache",
    kind: "path",
    arg: "DIR",
    default: "",
    example: "~/.cache/shipcode-mcp",
    defaultText: "none",
    help:
      "keep the index (turns `--index` on) in DIR across restarts: a restart reads only the files that changed; the server may write in DIR and nowhere else",
  },
  rg: {
    name: "rg",
    kind: "path",
    arg: "PATH",
    default: "",
    example: "/usr/bin/rg",
    defaultText: "off",
    help:
      "let ripgrep at PATH propose the files `search_text` reads (the server may then run PATH, and only it); answers stay the same",
  },
  http: {
    name: "http",
    kind: "address",
    arg: "[HOST:]PORT",
    default: "",
    example: "127.0.0.1:8080",
    defaultText: "off: stdio",
    help:
      "serve Streamable HTTP at `http://HOST:PORT/mcp` instead of stdio; HOST is 127.0.0.1 unless given, PORT 0 takes a free one",
  },
  allowOrigins: {
    name: "allow-origins",
    kind: "list",
    arg: "LIST",
    default: [],
    example: "https://app.example.com",
    defaultText: "loopback only",
    help:
      "with `--http`: more `Origin` values to accept, comma-separated (`http://localhost:PORT` and the like always are)",
  },
  allowHosts: {
    name: "allow-hosts",
    kind: "list",
    arg: "LIST",
    default: [],
    example: "mcp.example.com",
    defaultText: "loopback only",
    help:
      "with `--http`: more `Host` values to accept (`NAME` or `NAME:PORT`), comma-separated",
  },
  authTokenEnv: {
    name: "auth-token-env",
    kind: "env",
    arg: "NAME",
    default: "",
    example: "MCP_TOKEN",
    defaultText: "no token",
    help:
      "with `--http`: require `Authorization: Bearer` with the token held in environment variable `NAME`",
  },
  stateKeyEnv: {
    name: "state-key-env",
    kind: "env",
    arg: "NAME",
    default: "",
    example: "MCP_STATE_KEY",
    defaultText: "a random key per process",
    help:
      "sign 2026-07-28 `requestState` with the key held in environment variable `NAME` (32 bytes or more), so that instances sharing it accept each other's",
  },
  maxBodyBytes: {
    name: "max-body-bytes",
    kind: "bytes",
    arg: "N",
    default: 4 * 1024 * 1024,
    help: "with `--http`: largest request body (larger: 413)",
  },
  idleTimeout: {
    name: "idle-timeout",
    kind: "count",
    arg: "SECONDS",
    default: 1800,
    // The longest delay a timer takes, 2^31 - 1 ms, in whole seconds.
    max: 2_147_483,
    help:
      "with `--http`: a session unused this long ends (a request uses it, and so does a stream while its client takes what it is sent)",
  },
  unusedSessionTimeout: {
    name: "unused-session-timeout",
    kind: "count",
    arg: "SECONDS",
    default: 60,
    max: 2_147_483,
    help:
      "with `--http`: a session that sends no request after its `initialize` for this long ends",
  },
  headerTimeout: {
    name: "header-timeout",
    kind: "count",
    arg: "SECONDS",
    default: 10,
    max: 2_147_483,
    help:
      "with `--http`: a request's headers must arrive within this, from their first byte (slower: 408 and the connection closed)",
  },
  keepAliveTimeout: {
    name: "keep-alive-timeout",
    kind: "count",
    arg: "SECONDS",
    default: 75,
    max: 2_147_483,
    help:
      "with `--http`: a connection waiting for its next request this long is closed",
  },
  writeTimeout: {
    name: "write-timeout",
    kind: "count",
    arg: "SECONDS",
    default: 30,
    max: 2_147_483,
    help:
      "with `--http`: a client that takes none of a response (or of an event stream) for this long has its connection closed",
  },
  maxConnections: {
    name: "max-connections",
    kind: "count",
    arg: "N",
    default: 4096,
    help:
      "with `--http`: most connections open at once; one more closes the least recently active of those idle, sending a head or streaming events (503 when all serve requests)",
  },
  maxSessions: {
    name: "max-sessions",
    kind: "count",
    arg: "N",
    default: 10_000,
    help:
      "with `--http`: most sessions open at once; one more ends the least recently used without a request running (503 when all have one)",
  },
  maxKeptBytes: {
    name: "max-kept-bytes",
    kind: "bytes",
    arg: "N",
    default: 64 * 1024 * 1024,
    help:
      "with `--http`: most bytes kept for clients across all sessions (events kept for resuming, streams cut off, events queued for slow readers); past it the least recently used go, never-resumed first",
  },
  sseKeepAlive: {
    name: "sse-keep-alive",
    kind: "count",
    arg: "SECONDS",
    default: 15,
    max: 2_147_483,
    help:
      "with `--http`: an event stream with nothing to send this long gets a `: keep-alive` comment",
  },
  help: {
    name: "help",
    kind: "action",
    short: "h",
    help: "show the flags, their defaults and examples",
  },
  version: {
    name: "version",
    kind: "action",
    short: "V",
    help: "print the version",
  },
} as const satisfies Record<string, Flag>;

type Table = typeof FLAGS;

/** The value a flag of kind `K` sets. */
type ValueOf<K extends Flag["kind"]> = K extends "path" ? string
  : K extends "paths" ? string[]
  : K extends "level" ? LogLevel
  : K extends "versions" ? string[]
  : K extends "features" ? Feature[]
  : K extends "switch" ? boolean
  : K extends "address" | "env" ? string
  : K extends "list" ? string[]
  : number;

/**
 * Everything the flags configure: one field per row of {@linkcode FLAGS}
 * that is not an action, its type given by the row's kind.
 */
export type Config = {
  -readonly [K in keyof Table as Table[K]["kind"] extends "action" ? never : K]:
    ValueOf<Table[K]["kind"]>;
};

/** A {@linkcode Config} field: a flag that sets a value. */
export type ConfigKey = keyof Config;

/** The rows that set a {@linkcode Config} field, with the field's name. */
export const CONFIG_FLAGS: readonly (readonly [ConfigKey, Flag])[] = Object
  .entries(FLAGS).filter(([, flag]) => flag.kind !== "action") as [
    ConfigKey,
    Flag,
  ][];

/** A value a row may set (a `path` row, if any, sets a string). */
type Value = Config[ConfigKey] | string;

/** The default of a row that sets a value (a switch is off). */
function defaultOf(flag: Flag): Value {
  if (flag.kind === "switch") return false;
  if (flag.kind === "action") throw new TypeError(`--${flag.name} is no value`);
  return flag.kind === "versions" || flag.kind === "paths" ||
      flag.kind === "features" || flag.kind === "list"
    ? [...flag.default]
    : flag.default;
}

/**
 * Defaults of every flag but `--root` (which a configuration always
 * names: see {@linkcode parseFlags}).
 */
export const DEFAULTS: Readonly<Omit<Config, "root">> = Object.fromEntries(
  CONFIG_FLAGS.filter(([key]) => key !== "root").map((
    [key, flag],
  ) => [key, defaultOf(flag)]),
) as Omit<Config, "root">;

/** Whether `flag` may be given several times, each value kept. */
export function isRepeatable(flag: Flag): boolean {
  return flag.kind === "paths";
}

// Whether `flag` takes a number (whose value may be written negative).
function isNumeric(flag: Flag): boolean {
  return flag.kind === "count" || flag.kind === "bytes";
}

/**
 * A value as written on the command line: a list comma-separated, a
 * number in decimal. Switches and actions take none.
 */
export function formatValue(
  value: string | number | boolean | readonly string[],
): string {
  return Array.isArray(value) ? value.join(",") : String(value);
}

/** The value error messages suggest for `flag`. */
export function exampleOf(flag: Flag): string {
  if (flag.kind === "switch" || flag.kind === "action") return "";
  return flag.example ?? formatValue(defaultOf(flag));
}

/**
 * The protocol versions `config` writes into a client's configuration when
 * `--protocol-versions` is not given: every version, newest first, so a
 * pasted configuration serves every client, whatever version it speaks.
 */
export const CLIENT_PROTOCOL_VERSIONS: readonly string[] = [
  ...PROTOCOL_VERSIONS,
  ...MODERN_PROTOCOL_VERSIONS,
].reverse();

/** What was asked for on the command line. */
export type Command =
  | { kind: "serve"; config: Config }
  | { kind: "help" }
  | { kind: "version" }
  | { kind: "config"; client: string | undefined; config: Config };

/** A command line that cannot be run; the message names the flag and the fix. */
export class UsageError extends Error {
  /** Make a usage error with a one-line message. */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** The long name of every flag, without the leading `--`. */
export const FLAG_NAMES: readonly string[] = Object.values(FLAGS).map((flag) =>
  flag.name
);

const BY_NAME: ReadonlyMap<string, Flag> = new Map(
  Object.values(FLAGS).map((flag) => [flag.name, flag]),
);

/** A short flag's long name. */
const SHORT: ReadonlyMap<string, string> = new Map(
  Object.values(FLAGS).flatMap((flag) =>
    flag.kind === "action" ? [[flag.short, flag.name]] : []
  ),
);

type Values = { [name: string]: string | string[] | boolean | undefined };

/**
 * Split `args` into flag values and positionals, strictly: unknown flags,
 * a value on a switch, or a missing value are usage errors. Accepts
 * `--name value`, `--name=value`, `-h`, grouped short switches (`-hV`) and
 * `--` before positionals. A repeatable flag (see {@linkcode isRepeatable})
 * keeps every value, in order; for any other, the last value wins.
 *
 * Hand-written rather than `node:util`'s `parseArgs` because importing any
 * `node:` module starts Deno's Node compatibility layer, which costs about a
 * third of the server's whole start-up time; see bench/README.md.
 */
function tokenize(args: readonly string[]): {
  values: Values;
  positionals: string[];
} {
  const values: Values = {};
  const positionals: string[] = [];
  const unknown = (flag: string) =>
    new UsageError(
      `unknown flag ${flag}; run shipcode-mcp --help for the flags.`,
    );
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      const flag = BY_NAME.get(name);
      if (flag === undefined) throw unknown(`--${name}`);
      if (flag.kind === "switch" || flag.kind === "action") {
        if (eq >= 0) {
          throw new UsageError(
            `--${name} is a switch and takes no value; write --${name} alone.`,
          );
        }
        values[name] = true;
      } else if (
        eq >= 0 || (i + 1 < args.length && (!args[i + 1].startsWith("-") ||
          // A negative number is the flag's value (refused as one), not a
          // flag of its own.
          (isNumeric(flag) && /^-[0-9]/.test(args[i + 1]))))
      ) {
        const value = eq >= 0 ? arg.slice(eq + 1) : args[++i];
        const before = values[name];
        values[name] = !isRepeatable(flag)
          ? value
          : Array.isArray(before)
          ? [...before, value]
          : [value];
      } else {
        throw new UsageError(
          `--${name} needs a value; for example: --${name} ${exampleOf(flag)}`,
        );
      }
    } else if (arg.startsWith("-") && arg.length > 1) {
      for (const letter of arg.slice(1)) {
        const name = SHORT.get(letter);
        if (name === undefined) throw unknown(`-${letter}`);
        values[name] = true;
      }
    } else {
      positionals.push(arg);
    }
  }
  return { values, positionals };
}

/** Whether `name` is one of {@linkcode FEATURES}. */
export function isFeature(name: string): name is Feature {
  return (FEATURES as readonly string[]).includes(name);
}

/** Check and convert the text given for `flag`; `cwd` resolves paths. */
function readValue(flag: Flag, text: string, cwd: string): Value {
  const name = `--${flag.name}`;
  switch (flag.kind) {
    case "path":
    case "paths":
      if (text.trim() === "") {
        throw new UsageError(
          `${name} needs a ${
            flag.kind === "path" ? "path" : "directory"
          }, got an empty string; for example ${name} ${exampleOf(flag)}`,
        );
      }
      // Deno's permission flags (`--allow-write=DIR`, `--allow-run=PATH`)
      // cannot carry a comma.
      if (flag.kind === "path" && text.includes(",")) {
        throw new UsageError(
          `${name} cannot take a path with a comma (Deno's permission flags cannot carry one); for example ${name} ${
            exampleOf(flag)
          }`,
        );
      }
      // Absolute, so logs, resource URIs and `config` output never depend
      // on the directory the client happens to start the server in.
      return absolutePath(cwd, text);
    case "level":
      if (!isLogLevel(text)) {
        throw new UsageError(
          `${name} must be one of ${LOG_LEVELS.join(", ")}; got "${text}".`,
        );
      }
      return text;
    case "versions": {
      const versions = text.split(",").map((v) => v.trim())
        .filter((v) => v.length > 0);
      const bad = versions.find((v) => !/^\d{4}-\d{2}-\d{2}$/.test(v));
      if (versions.length === 0 || bad !== undefined) {
        throw new UsageError(
          `${name} takes dates like ${LATEST_PROTOCOL_VERSION}, comma-separated, most preferred first; got "${text}".`,
        );
      }
      const unknown = versions.find((v) => !isProtocolVersion(v));
      if (unknown !== undefined) {
        throw new UsageError(
          `${name}: this server does not speak MCP ${unknown}; choose from ${
            [...PROTOCOL_VERSIONS, ...MODERN_PROTOCOL_VERSIONS].join(", ")
          }, comma-separated, most preferred first.`,
        );
      }
      return versions;
    }
    case "features": {
      const names = text.split(",").map((n) => n.trim())
        .filter((n) => n.length > 0);
      if (names.length === 1 && names[0] === "all") return [...FEATURES];
      const unknown = names.find((n) => !isFeature(n));
      if (names.length === 0 || unknown !== undefined) {
        throw new UsageError(
          `${name} takes ${
            FEATURES.join(", ")
          } (comma-separated) or all; got "${unknown ?? text}".`,
        );
      }
      // Each once, in the table's order: the same set reads the same.
      return FEATURES.filter((feature) => names.includes(feature));
    }
    case "address":
      return formatAddress(parseAddress(text, name));
    case "list":
      return text.split(",").map((word) => word.trim())
        .filter((word) => word.length > 0);
    case "env":
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(text)) {
        throw new UsageError(
          `${name} takes the name of an environment variable (letters, digits, _), got "${text}"; for example ${name} ${
            exampleOf(flag)
          }`,
        );
      }
      return text;
    case "count":
    case "bytes":
      if (
        !/^[0-9]+$/.test(text) || Number(text) < 1 ||
        !Number.isSafeInteger(Number(text))
      ) {
        throw new UsageError(
          `${name} must be a positive whole number (at least 1), got "${text}"; for example ${name} ${
            exampleOf(flag)
          }.`,
        );
      }
      if (flag.max !== undefined && Number(text) > flag.max) {
        throw new UsageError(
          `${name} must be a whole number from 1 to ${flag.max}, got "${text}"; for example ${name} ${
            exampleOf(flag)
          }.`,
        );
      }
      return Number(text);
    case "switch":
    case "action":
      throw new TypeError(`${name} takes no value`);
  }
}

/** Where `--http` listens. */
export interface Address {
  /** A host name or IP address (IPv6 without brackets). */
  hostname: string;
  /** The port; 0 takes any free one. */
  port: number;
}

/**
 * Read `[HOST:]PORT` (an IPv6 HOST in brackets); HOST defaults to
 * 127.0.0.1. `flag` names the flag in the error.
 */
export function parseAddress(text: string, flag = "--http"): Address {
  const match = /^(?:(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):)?([0-9]{1,5})$/
    .exec(text.trim());
  const port = Number(match?.[2]);
  if (match === null || port > 65535) {
    throw new UsageError(
      `${flag} takes [HOST:]PORT with PORT from 0 to 65535 (0: any free port), got "${text}"; for example ${flag} 127.0.0.1:8080`,
    );
  }
  const host = match[1] ?? "127.0.0.1";
  return {
    hostname: host.startsWith("[") ? host.slice(1, -1) : host,
    port,
  };
}

/** `HOST:PORT`, an IPv6 HOST in brackets. */
export function formatAddress(address: Address): string {
  const host = address.hostname.includes(":")
    ? `[${address.hostname}]`
    : address.hostname;
  return `${host}:${address.port}`;
}

/** Parse `args` (without the program name) into a {@linkcode Command}. */
export function parseFlags(args: string[], cwd: string): Command {
  const { values, positionals } = tokenize(args);
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };

  const config: Record<string, Value> = {};
  for (const [key, flag] of CONFIG_FLAGS) {
    const given = values[flag.name];
    if (flag.kind === "switch") config[key] = given === true;
    else if (Array.isArray(given)) {
      // Each directory once, in the order first given.
      config[key] = [
        ...new Set(given.map((text) => readValue(flag, text, cwd) as string)),
      ];
    } else if (typeof given === "string") {
      config[key] = readValue(flag, given, cwd);
    } else if (flag.kind === "path" && flag.default !== "") {
      // A path row whose default is "" is off unless given.
      config[key] = absolutePath(cwd, flag.default);
    } else config[key] = defaultOf(flag);
  }
  const result = config as unknown as Config;
  // A kept index is an index.
  if (result.indexCache !== "") result.index = true;
  if (positionals.length === 0) return { kind: "serve", config: result };
  if (positionals[0] === "config") {
    if (positionals.length <= 2) {
      if (values[FLAGS.protocolVersions.name] === undefined) {
        result.protocolVersions = [...CLIENT_PROTOCOL_VERSIONS];
      }
      // Real users get the whole server unless they choose otherwise.
      if (values[FLAGS.features.name] === undefined) {
        result.features = [...FEATURES];
      }
      // A client's configuration names the directory it was made in: the
      // client may start the server anywhere.
      if (result.root.length === 0) result.root = [absolutePath(cwd, ".")];
      return { kind: "config", client: positionals[1], config: result };
    }
    throw new UsageError(
      `config takes one client name, got "${
        positionals.slice(1).join(" ")
      }"; for example shipcode-mcp config cursor.`,
    );
  }
  throw new UsageError(
    `unexpected argument "${
      positionals[0]
    }"; the only command is "config [client]", run shipcode-mcp --help for the flags.`,
  );
}
