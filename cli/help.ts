/**
 * The text of `shipcode-mcp --help`, the README's flag table and the note
 * shown when a person starts the server by hand, all written from the flag
 * table ({@linkcode FLAGS}).
 *
 * @module
 */

import { exampleOf, type Flag, FLAGS, formatValue, VERSION } from "./flags.ts";

const MIB = 1024 * 1024;

/**
 * How `flag`'s default reads, in Markdown (the value in backticks, a byte
 * count also in MiB) or as plain text; undefined for an action, which has
 * none.
 */
export function defaultText(
  flag: Flag,
  markdown: boolean,
): string | undefined {
  switch (flag.kind) {
    case "action":
      return undefined;
    case "switch":
      return "off";
    default: {
      if (flag.defaultText !== undefined) return flag.defaultText;
      const value = formatValue(flag.default);
      const mib = flag.kind === "bytes" && flag.default % MIB === 0
        ? `${flag.default / MIB} MiB`
        : undefined;
      if (!markdown) return mib === undefined ? value : `${value}, ${mib}`;
      return mib === undefined ? `\`${value}\`` : `\`${value}\` (${mib})`;
    }
  }
}

/** How `flag` is written with its value: `--root DIR`, `-h, --help`. */
function usage(flag: Flag, markdown: boolean): string {
  const tick = markdown ? "`" : "";
  const long = `${tick}--${flag.name}${
    "arg" in flag ? ` ${flag.arg}` : ""
  }${tick}`;
  return flag.kind === "action"
    ? `${tick}-${flag.short}${tick}, ${long}`
    : long;
}

/** Markdown without its backticks, for the terminal. */
function plain(text: string): string {
  return text.replaceAll("`", "");
}

/** How wide `--help` is: a terminal's 80 columns. */
export const HELP_WIDTH = 80;

/** Where the flags' descriptions start: after `  ` and the usage column. */
const FLAG_COLUMN = 29;

/**
 * `text` in lines of at most `width` characters, broken between words (a
 * word longer than `width` has a line of its own).
 */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (line === "") line = word;
    else if (line.length + 1 + word.length <= width) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== "") lines.push(line);
  return lines;
}

/**
 * `head` (indented, padded to `column`) followed by `text` wrapped to
 * {@linkcode HELP_WIDTH}, its further lines indented to `column`; `head`
 * has a line of its own when it leaves fewer than `gap` spaces before
 * `column`.
 */
function columns(
  head: string,
  text: string,
  column: number,
  gap = 2,
): string {
  const body = wrap(text, HELP_WIDTH - column);
  const indent = " ".repeat(column);
  const first = head.length + gap <= column
    ? [`${head.padEnd(column)}${body[0] ?? ""}`]
    : [head, `${indent}${body[0] ?? ""}`];
  return [...first, ...body.slice(1).map((line) => `${indent}${line}`)]
    .map((line) => `${line.trimEnd()}\n`).join("");
}

/** The `--help` lines of each flag: usage, help, and the default. */
function flagLines(): string {
  return Object.values(FLAGS).map((flag: Flag) => {
    const fallback = defaultText(flag, false);
    const help = fallback === undefined
      ? plain(flag.help)
      : `${plain(flag.help)} (default: ${fallback})`;
    return columns(`  ${usage(flag, false)}`, help, FLAG_COLUMN);
  }).join("");
}

/** The `--help` text: every flag, its default, and an example. */
export function helpText(): string {
  const root = exampleOf(FLAGS.root);
  const usageColumn = 39;
  return `${
    wrap(
      `shipcode-mcp ${VERSION} — an MCP server that serves a code workspace, read-only, on stdio.`,
      HELP_WIDTH,
    ).join("\n")
  }

Usage:
${
    columns(
      "  shipcode-mcp [flags]",
      "serve JSON-RPC on stdin/stdout",
      usageColumn,
    )
  }${
    columns(
      "  shipcode-mcp config [client] [flags]",
      "print a configuration for an MCP client: claude-desktop, claude-code, cursor or vscode",
      usageColumn,
    )
  }
Flags:
${flagLines()}
Examples:
  echo '{"jsonrpc":"2.0","id":1,"method":"ping"}' | shipcode-mcp --root ${root}
  shipcode-mcp config claude-desktop --root ~/code/project
`;
}

/**
 * The rows of the README's flag table (flag, default, meaning), in
 * Markdown, as `README.md` must show them.
 */
export function readmeFlagRows(): [string, string, string][] {
  return Object.values(FLAGS).map((
    flag: Flag,
  ) => [usage(flag, true), defaultText(flag, true) ?? "", flag.help]);
}

/**
 * The note printed to stderr when stdin is a terminal: a person ran the
 * server by hand and would otherwise stare at a silent prompt.
 */
export function terminalNote(root: string | readonly string[]): string {
  const roots = typeof root === "string" ? root : root.join(", ");
  return `shipcode-mcp ${VERSION} serves ${roots} to an MCP client: it waits for JSON-RPC messages on stdin, one per line; quit with Ctrl+D (or Ctrl+C).
To connect a client, run "shipcode-mcp config <client>" or see "Configure your MCP client" in README.md; --help lists the flags.
`;
}
