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

/** The most characters of a message (or of an error's) a log line keeps. */
export const MAX_LOG_TEXT = 2000;

/**
 * `text` made safe for one log line: control characters (C0, DEL, C1,
 * and the line and paragraph separators) escaped as `\n`, `\r`, `\t` or
 * `\u{…}`, so that text a client chose cannot forge log lines or drive a
 * terminal; and cut to `max` characters, with how many were left out.
 *
 * @example
 * ```ts
 * import { logText } from "./log.ts";
 * console.log(logText("a\nwarn: forged")); // one line: a\nwarn: forged
 * ```
 */
export function logText(text: string, max: number = MAX_LOG_TEXT): string {
  const cut = text.length > max
    ? `${text.slice(0, max)}… (${text.length - max} more characters)`
    : text;
  return cut.replace(
    // deno-lint-ignore no-control-regex
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g,
    (c) =>
      c === "\n"
        ? "\\n"
        : c === "\r"
        ? "\\r"
        : c === "\t"
        ? "\\t"
        : `\\u{${c.charCodeAt(0).toString(16)}}`,
  );
}

/**
 * `detail` as a log line shows it: an error's name and message escaped
 * (see {@linkcode logText}), followed by its stack's frames as they are
 * (the server's own text, one per line); anything else escaped.
 */
function detailText(detail: unknown): string {
  if (!(detail instanceof Error)) return logText(String(detail));
  const head = `${detail.name}: ${detail.message}`;
  const stack = detail.stack ?? "";
  // The frames follow the name and message (which may span lines).
  const at = stack.startsWith(head)
    ? head.length
    : stack.includes(detail.message)
    ? stack.indexOf(detail.message) + detail.message.length
    : stack.length;
  const frames = stack.slice(at);
  return logText(head) + frames;
}

/** Whether `value` names a log level. */
export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

/**
 * A logger writing `NAME LEVEL: message` lines to stderr (`LEVEL: message`
 * without a `name`). The message, and an error's message, are escaped and
 * cut with {@linkcode logText}: one record is one line (an error's stack
 * frames follow on lines of their own). Write failures are ignored:
 * losing a log line must never take the server down.
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
      // A message or error may carry a client's text (a method name, a
      // root's URI): escaped and cut, it stays one line.
      let text = `${prefix}${at}: ${logText(message)}`;
      if (detail !== undefined) text += " " + detailText(detail);
      try {
        writeAllSync(Deno.stderr, encoder.encode(text + "\n"));
      } catch {
        // stderr is gone; nothing better to do.
      }
    },
  };
}
