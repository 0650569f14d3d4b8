/**
 * MCP logging: the RFC 5424 severity levels a client sets with
 * `logging/setLevel`, how the server's own log levels map onto them, and
 * the logger whose records reach the one session they concern. A session
 * holds its level (see `session.ts`); a session that never set one gets
 * no `notifications/message`.
 *
 * @module
 */

import { type Logger, type LogLevel, logText } from "./log.ts";

/** The MCP log levels (RFC 5424 severities), least to most severe. */
export const LOGGING_LEVELS = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
] as const;

/** One of {@linkcode LOGGING_LEVELS}. */
export type LoggingLevel = typeof LOGGING_LEVELS[number];

const RANK: Readonly<Record<string, number>> = Object.fromEntries(
  LOGGING_LEVELS.map((level, rank) => [level, rank]),
);

/** Whether `value` names an MCP log level. */
export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return typeof value === "string" && Object.hasOwn(RANK, value);
}

/**
 * Whether a record at `level` is sent to a session whose threshold is
 * `threshold` (records at or above the threshold are).
 *
 * @example
 * ```ts
 * import { allowsLevel } from "./logging.ts";
 * allowsLevel("warning", "error"); // true
 * allowsLevel("info", "debug"); // false
 * ```
 */
export function allowsLevel(
  threshold: LoggingLevel,
  level: LoggingLevel,
): boolean {
  return RANK[level] >= RANK[threshold];
}

/** The MCP level of one of the server's own log levels. */
export function loggingLevelOf(
  level: Exclude<LogLevel, "silent">,
): LoggingLevel {
  return level === "warn" ? "warning" : level;
}

/**
 * The most characters of a record's text that a session's copy of it
 * keeps (see {@linkcode sessionLogger}); what is cut is counted.
 */
export const MAX_SESSION_LOG_TEXT = 1000;

/**
 * What {@linkcode sessionLogger} needs of a session (a `Session` of
 * `session.ts` is one): the level it set, and how it is sent a record.
 */
export interface LogTarget {
  /** The lowest level the session asked for; undefined: none. */
  readonly logLevel: LoggingLevel | undefined;
  /** Send the session one record (see `Session.log`). */
  log(level: LoggingLevel, data: unknown, logger?: string): void;
}

/**
 * A logger for what concerns `session` alone (a message it sent, a
 * handler that failed on its request, its roots): each record goes to
 * `base` (the server's own log, stderr) and to `session` and no other, as
 * `notifications/message` from `logger` `name`, when the level the session
 * set lets it through. The copy's text (the message, then a detail's
 * message) is escaped and cut to {@linkcode MAX_SESSION_LOG_TEXT}
 * characters (see `logText` in `log.ts`): a client's text in a record (a
 * method name, a root) costs at most that much in the copy.
 *
 * Records that concern no one session (start-up, the index, a watch of
 * the server's root) go to `base` only.
 *
 * @example
 * ```ts
 * import { sessionLogger } from "./logging.ts";
 * import { stderrLogger } from "./log.ts";
 * import { Session } from "./session.ts";
 *
 * const session = new Session((line) => console.log(line));
 * session.logLevel = "debug";
 * const logger = sessionLogger(stderrLogger("silent"), session, "example-mcp");
 * logger.log("debug", "ignored notification notifications/x");
 * // {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","logger":"example-mcp","data":"ignored notification notifications/x"}}
 * ```
 */
export function sessionLogger(
  base: Logger,
  session: LogTarget,
  name?: string,
): Logger {
  return {
    get level(): LogLevel {
      return base.level;
    },
    set level(level: LogLevel) {
      base.level = level;
    },
    log(level, message, detail) {
      base.log(level, message, detail);
      const threshold = session.logLevel;
      const at = loggingLevelOf(level);
      if (threshold === undefined || !allowsLevel(threshold, at)) return;
      let text;
      try {
        text = detail === undefined
          ? message
          : `${message} ${
            detail instanceof Error ? detail.message : String(detail)
          }`;
      } catch {
        text = message; // a detail that cannot be text
      }
      session.log(at, logText(text, MAX_SESSION_LOG_TEXT), name);
    },
  };
}
