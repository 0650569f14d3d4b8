/**
 * A leveled logger that writes to stderr only, because stdout belongs to
 * the protocol.
 *
 * @module
 */

import { writeAllSync } from "./write_all.ts";

/** Log levels, least to most severe; `silent` turns logging off. */
export const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;

/** One of {@linkcode LOG_LEVELS}. */
export type LogLevel = typeof LOG_LEVELS[number];

/** Where log lines go and how much of them. */
export interface Logger {
  /** The lowest level written. */
  level: LogLevel;
  /** Write `message` (and `detail`, if any) when `level` is enabled. */
  log(
    level: Exclude<LogLevel, "silent">,
    message: string,
    detail?: unknown,
  ): void;
}

const encoder = new TextEncoder();

/** Whether `value` names a log level. */
export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

/**
 * A logger writing `NAME LEVEL: message` lines to stderr (`LEVEL: message`
 * without a `name`). Write failures are ignored: losing a log line must
 * never take the server down.
 *
 * @example
 * ```ts
 * import { stderrLogger } from "./log.ts";
 * const logger = stderrLogger("info", "example-mcp");
 * logger.log("info", "ready"); // example-mcp info: ready
 * ```
 */
export function stderrLogger(
  level: LogLevel = "error",
  name?: string,
): Logger {
  const prefix = name === undefined ? "" : `${name} `;
  return {
    level,
    log(at, message, detail) {
      if (LOG_LEVELS.indexOf(at) < LOG_LEVELS.indexOf(this.level)) return;
      let text = `${prefix}${at}: ${message}`;
      if (detail !== undefined) {
        text += " " +
          (detail instanceof Error
            ? (detail.stack ?? detail.message)
            : String(detail));
      }
      try {
        writeAllSync(Deno.stderr, encoder.encode(text + "\n"));
      } catch {
        // stderr is gone; nothing better to do.
      }
    },
  };
}
