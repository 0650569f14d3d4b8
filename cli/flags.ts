/**
 * Command-line flags of `shipcode-mcp`, parsed with `node:util`'s
 * `parseArgs` and checked into a typed {@linkcode Config}.
 *
 * @module
 */

import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { isLogLevel, type LogLevel } from "../mcp/log.ts";
import { DEFAULT_MAX_LINE_BYTES } from "../mcp/line_stream.ts";

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
  pageSize: 100,
  maxLineBytes: DEFAULT_MAX_LINE_BYTES,
  maxEntries: 1000,
  maxMatches: 200,
  maxReadBytes: 1024 * 1024,
  maxDepth: 8,
  includeIgnored: false,
};

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
  "max-line-bytes": String(DEFAULTS.maxLineBytes),
  "max-entries": String(DEFAULTS.maxEntries),
  "max-matches": String(DEFAULTS.maxMatches),
  "max-read-bytes": String(DEFAULTS.maxReadBytes),
  "max-depth": String(DEFAULTS.maxDepth),
};

/**
 * Rewrite a `parseArgs` error as one line naming the flag and the fix;
 * node's own wording suggests `--` tricks that mean nothing to our users.
 */
function parseArgsMessage(error: Error & { code?: string }): string {
  const flag = /'(-{1,2}[A-Za-z][^' <]*)/.exec(error.message)?.[1];
  if (flag !== undefined) {
    if (error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
      return `unknown flag ${flag}; run shipcode-mcp --help for the flags.`;
    }
    if (error.message.includes("argument missing")) {
      const example = EXAMPLE_VALUES[flag.replace(/^-+/, "")] ?? "VALUE";
      return `${flag} needs a value; for example: ${flag} ${example}`;
    }
    if (error.message.includes("does not take an argument")) {
      return `${flag} is a switch and takes no value; write ${flag} alone.`;
    }
  }
  if (error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    // A short-flag group such as `-h=3` splits into odd pieces; name the
    // piece node quotes, whatever it is.
    const piece = /'([^']*)'/.exec(error.message)?.[1] ?? "";
    return `unknown flag ${piece}; run shipcode-mcp --help for the flags.`;
  }
  return `${
    error.message.split("\n")[0]
  }; run shipcode-mcp --help for the flags.`;
}

/** Parse `args` (without the program name) into a {@linkcode Command}. */
export function parseFlags(args: string[], cwd: string): Command {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(parseArgsMessage(error as Error & { code?: string }));
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };

  const logLevel = values["log-level"] ?? DEFAULTS.logLevel;
  if (!isLogLevel(logLevel)) {
    throw new UsageError(
      `--log-level must be one of debug, info, warn, error, silent; got "${logLevel}".`,
    );
  }
  let protocolVersions = DEFAULTS.protocolVersions;
  if (values["protocol-versions"] !== undefined) {
    protocolVersions = values["protocol-versions"].split(",").map((v) =>
      v.trim()
    )
      .filter((v) => v.length > 0);
    const bad = protocolVersions.find((v) => !/^\d{4}-\d{2}-\d{2}$/.test(v));
    if (protocolVersions.length === 0 || bad !== undefined) {
      throw new UsageError(
        `--protocol-versions takes dates like 2025-06-18, comma-separated, most preferred first; got "${
          values["protocol-versions"]
        }".`,
      );
    }
  }
  if (values.root !== undefined && values.root.trim() === "") {
    throw new UsageError(
      `--root needs a directory, got an empty string; for example --root .`,
    );
  }
  const config: Config = {
    // Absolute, so logs, resource URIs and `config` output never depend on
    // the directory the client happens to start the server in.
    root: resolve(cwd, values.root ?? "."),
    logLevel,
    protocolVersions,
    watch: values.watch ?? DEFAULTS.watch,
    pageSize: positiveInteger(
      "page-size",
      values["page-size"],
      DEFAULTS.pageSize,
    ),
    maxLineBytes: positiveInteger(
      "max-line-bytes",
      values["max-line-bytes"],
      DEFAULTS.maxLineBytes,
    ),
    maxEntries: positiveInteger(
      "max-entries",
      values["max-entries"],
      DEFAULTS.maxEntries,
    ),
    maxMatches: positiveInteger(
      "max-matches",
      values["max-matches"],
      DEFAULTS.maxMatches,
    ),
    maxReadBytes: positiveInteger(
      "max-read-bytes",
      values["max-read-bytes"],
      DEFAULTS.maxReadBytes,
    ),
    maxDepth: positiveInteger(
      "max-depth",
      values["max-depth"],
      DEFAULTS.maxDepth,
    ),
    includeIgnored: values["include-ignored"] ?? DEFAULTS.includeIgnored,
  };
  if (positionals.length === 0) return { kind: "serve", config };
  if (positionals[0] === "config") {
    if (positionals.length <= 2) {
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
