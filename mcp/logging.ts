/**
 * MCP logging: the RFC 5424 severity levels a client sets with
 * `logging/setLevel`, and how the server's own log levels map onto them.
 * A session holds its level (see `session.ts`); a session that never set
 * one gets no `notifications/message`.
 *
 * @module
 */

import type { LogLevel } from "./log.ts";

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
