/**
 * Command-line flags of `shipcode-mcp`, parsed strictly and checked into a
 * typed {@linkcode Config}.
 *
 * @module
 */

import { isLogLevel, type LogLevel } from "../mcp/log.ts";
import { DEFAULT_MAX_LINE_BYTES } from "../mcp/line_stream.ts";
import {
  isProtocolVersion,
  PROTOCOL_VERSIONS,
} from "../mcp/protocol_versions.ts";

/** Everything the flags configure. */
export interface Config {
  /** The directory served. */
  root: string;
  /** Lowest level logged to stderr. */
  logLevel: LogLevel;
  /** Supported protocol versions, most preferred first. */
  protocolVersions: string[];
  /** Watch the root and notify subscribers of changes. */
  watch: boolean;
  /** Items per page of list results. */
  pageSize: number;
  /** Most files `resources/list` shows, over all pages. */
  maxResources: number;
  /** Longest accepted message line, in bytes. */
  maxLineBytes: number;
  /** Most entries `list_directory` and `find_files` return. */
  maxEntries: number;
  /** Most matches `search_text` returns. */
  maxMatches: number;
  /** Largest file, in bytes, that is read whole. */
  maxReadBytes: number;
  /** Deepest directory level `list_directory` descends to. */
  maxDepth: number;
  /** Serve files that .gitignore rules exclude. */
  includeIgnored: boolean;
}

/** Defaults of every flag. */
export const DEFAULTS: Omit<Config, "root"> = {
  logLevel: "error",
  protocolVersions: ["2025-06-18"],
  watch: false,
  // One page holds the whole capped resource list: clients that read only
  // the first page (or stop after a few) still see all of it.
  pageSize: 1000,
  maxResources: 1000,
  maxLineBytes: DEFAULT_MAX_LINE_BYTES,
  maxEntries: 1000,
  maxMatches: 200,
  maxReadBytes: 1024 * 1024,
  maxDepth: 8,
  includeIgnored: false,
};

/**
 * The protocol versions `config` writes into a client's configuration when
 * `--protocol-versions` is not given: every version, newest first, so a
 * pasted configuration serves every client, whatever version it speaks.
 */
export const CLIENT_PROTOCOL_VERSIONS: readonly string[] = [
  ...PROTOCOL_VERSIONS,
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

const OPTIONS = {
  "root": { type: "string" },
  "log-level": { type: "string" },
  "protocol-versions": { type: "string" },
  "watch": { type: "boolean" },
  "page-size": { type: "string" },
  "max-resources": { type: "string" },
  "max-line-bytes": { type: "string" },
  "max-entries": { type: "string" },
  "max-matches": { type: "string" },
  "max-read-bytes": { type: "string" },
  "max-depth": { type: "string" },
  "include-ignored": { type: "boolean" },
  "help": { type: "boolean", short: "h" },
  "version": { type: "boolean", short: "V" },
} as const;

/** The long name of every flag, without the leading `--`. */
export const FLAG_NAMES: readonly string[] = Object.keys(OPTIONS);

function positiveInteger(
  flag: string,
  value: string | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (
    !/^[0-9]+$/.test(value) || Number(value) < 1 ||
    !Number.isSafeInteger(Number(value))
  ) {
    throw new UsageError(
      `--${flag} must be a whole number of at least 1, got "${value}"; for example --${flag} ${fallback}.`,
    );
  }
  return Number(value);
}

/** An example value per flag that takes one, for error messages. */
const EXAMPLE_VALUES: Record<string, string> = {
  "root": ".",
  "log-level": "info",
  "protocol-versions": DEFAULTS.protocolVersions.join(","),
  "page-size": String(DEFAULTS.pageSize),
  "max-resources": String(DEFAULTS.maxResources),
  "max-line-bytes": String(DEFAULTS.maxLineBytes),
  "max-entries": String(DEFAULTS.maxEntries),
  "max-matches": String(DEFAULTS.maxMatches),
  "max-read-bytes": String(DEFAULTS.maxReadBytes),
  "max-depth": String(DEFAULTS.maxDepth),
};

type Values = { [name: string]: string | boolean | undefined };

/** A short flag's long name. */
const SHORT: Record<string, string> = { h: "help", V: "version" };

/**
 * Split `args` into flag values and positionals, strictly: unknown flags,
 * a value on a switch, or a missing value are usage errors. Accepts
 * `--name value`, `--name=value`, `-h`, grouped short switches (`-hV`) and
 * `--` before positionals; a repeated flag's last value wins.
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
      const type = Object.hasOwn(OPTIONS, name)
        ? OPTIONS[name as keyof typeof OPTIONS].type
        : undefined;
      if (type === undefined) throw unknown(`--${name}`);
      if (type === "boolean") {
        if (eq >= 0) {
          throw new UsageError(
            `--${name} is a switch and takes no value; write --${name} alone.`,
          );
        }
        values[name] = true;
      } else if (eq >= 0) {
        values[name] = arg.slice(eq + 1);
      } else if (i + 1 < args.length && !args[i + 1].startsWith("-")) {
        values[name] = args[++i];
      } else {
        const example = EXAMPLE_VALUES[name] ?? "VALUE";
        throw new UsageError(
          `--${name} needs a value; for example: --${name} ${example}`,
        );
      }
    } else if (arg.startsWith("-") && arg.length > 1) {
      for (const letter of arg.slice(1)) {
        const name = SHORT[letter];
        if (name === undefined) throw unknown(`-${letter}`);
        values[name] = true;
      }
    } else {
      positionals.push(arg);
    }
  }
  return { values, positionals };
}

/** The value of a string flag (tokenize guarantees the type). */
function text(values: Values, name: string): string | undefined {
  return values[name] as string | undefined;
}

/**
 * Make `path` absolute against `cwd` and drop `.` and `..` segments, so
 * logs, resource URIs and `config` output never depend on where the client
 * started the server. POSIX paths, and Windows drive paths.
 */
export function absolutePath(cwd: string, path: string): string {
  if (path.startsWith("\\\\")) return path; // A UNC path: leave it be.
  const full = /^(?:[\\/]|[A-Za-z]:[\\/])/.test(path) ? path : `${cwd}/${path}`;
  const windows = /^[A-Za-z]:[\\/]/.test(full);
  const parts = full.split(windows ? /[\\/]+/ : /\/+/);
  const head = parts.shift() ?? "";
  const kept: string[] = [];
  for (const part of parts) {
    if (part === "" || part === ".") continue;
    if (part === "..") kept.pop();
    else kept.push(part);
  }
  const separator = windows ? "\\" : "/";
  return head + separator + kept.join(separator);
}

/** Parse `args` (without the program name) into a {@linkcode Command}. */
export function parseFlags(args: string[], cwd: string): Command {
  const { values, positionals } = tokenize(args);
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };

  const logLevel = text(values, "log-level") ?? DEFAULTS.logLevel;
  if (!isLogLevel(logLevel)) {
    throw new UsageError(
      `--log-level must be one of debug, info, warn, error, silent; got "${logLevel}".`,
    );
  }
  let protocolVersions = DEFAULTS.protocolVersions;
  const versions = text(values, "protocol-versions");
  if (versions !== undefined) {
    protocolVersions = versions.split(",").map((v) => v.trim())
      .filter((v) => v.length > 0);
    const bad = protocolVersions.find((v) => !/^\d{4}-\d{2}-\d{2}$/.test(v));
    if (protocolVersions.length === 0 || bad !== undefined) {
      throw new UsageError(
        `--protocol-versions takes dates like 2025-06-18, comma-separated, most preferred first; got "${versions}".`,
      );
    }
    const unknown = protocolVersions.find((v) => !isProtocolVersion(v));
    if (unknown !== undefined) {
      throw new UsageError(
        `--protocol-versions: this server does not speak MCP ${unknown}; choose from ${
          PROTOCOL_VERSIONS.join(", ")
        }, comma-separated, most preferred first.`,
      );
    }
  }
  const root = text(values, "root");
  if (root !== undefined && root.trim() === "") {
    throw new UsageError(
      `--root needs a directory, got an empty string; for example --root .`,
    );
  }
  const config: Config = {
    // Absolute, so logs, resource URIs and `config` output never depend on
    // the directory the client happens to start the server in.
    root: absolutePath(cwd, root ?? "."),
    logLevel,
    protocolVersions,
    watch: values.watch === true,
    pageSize: positiveInteger(
      "page-size",
      text(values, "page-size"),
      DEFAULTS.pageSize,
    ),
    maxResources: positiveInteger(
      "max-resources",
      text(values, "max-resources"),
      DEFAULTS.maxResources,
    ),
    maxLineBytes: positiveInteger(
      "max-line-bytes",
      text(values, "max-line-bytes"),
      DEFAULTS.maxLineBytes,
    ),
    maxEntries: positiveInteger(
      "max-entries",
      text(values, "max-entries"),
      DEFAULTS.maxEntries,
    ),
    maxMatches: positiveInteger(
      "max-matches",
      text(values, "max-matches"),
      DEFAULTS.maxMatches,
    ),
    maxReadBytes: positiveInteger(
      "max-read-bytes",
      text(values, "max-read-bytes"),
      DEFAULTS.maxReadBytes,
    ),
    maxDepth: positiveInteger(
      "max-depth",
      text(values, "max-depth"),
      DEFAULTS.maxDepth,
    ),
    includeIgnored: values["include-ignored"] === true,
  };
  if (positionals.length === 0) return { kind: "serve", config };
  if (positionals[0] === "config") {
    if (positionals.length <= 2) {
      if (versions === undefined) {
        config.protocolVersions = [...CLIENT_PROTOCOL_VERSIONS];
      }
      return { kind: "config", client: positionals[1], config };
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
