/**
 * The text of `shipcode-mcp --help`, and the version.
 *
 * @module
 */

import { DEFAULTS } from "./flags.ts";
import { PROTOCOL_VERSIONS } from "../mcp/protocol_versions.ts";

/** The version `--version` prints and `serverInfo` carries. */
export const VERSION = "1.0.0";

/** The `--help` text: every flag, its default, and an example. */
export function helpText(): string {
  return `shipcode-mcp ${VERSION} — an MCP server that serves a code workspace, read-only, on stdio.

Usage:
  shipcode-mcp [flags]                 serve JSON-RPC on stdin/stdout
  shipcode-mcp config [client] [flags] print a configuration for an MCP client:
                                       claude-desktop, claude-code, cursor or vscode

Flags:
  --root DIR                 directory to serve (default: the current directory)
  --log-level LEVEL          debug, info, warn, error or silent; logs go to stderr (default: ${DEFAULTS.logLevel})
  --protocol-versions LIST   supported MCP versions, most preferred first, from ${
    PROTOCOL_VERSIONS.join(", ")
  } (default: ${DEFAULTS.protocolVersions.join(",")})
  --watch                    watch the root; enables resource subscriptions and list_changed (default: off)
  --page-size N              items per page of list results (default: ${DEFAULTS.pageSize})
  --max-resources N          most files resources/list shows, the most useful first (default: ${DEFAULTS.maxResources})
  --max-line-bytes N         longest accepted message line (default: ${DEFAULTS.maxLineBytes})
  --max-entries N            most entries list_directory and find_files return (default: ${DEFAULTS.maxEntries})
  --max-matches N            most matches search_text returns (default: ${DEFAULTS.maxMatches})
  --max-read-bytes N         largest file read whole (default: ${DEFAULTS.maxReadBytes})
  --max-depth N              deepest level list_directory descends to (default: ${DEFAULTS.maxDepth})
  --include-ignored          also serve files that .gitignore excludes (default: off)
  -h, --help                 show this help
  -V, --version              print the version

Examples:
  echo '{"jsonrpc":"2.0","id":1,"method":"ping"}' | shipcode-mcp --root .
  shipcode-mcp config claude-desktop --root ~/code/project
`;
}

/**
 * The note printed to stderr when stdin is a terminal: a person ran the
 * server by hand and would otherwise stare at a silent prompt.
 */
export function terminalNote(root: string): string {
  return `shipcode-mcp ${VERSION} serves ${root} to an MCP client: it waits for JSON-RPC messages on stdin, one per line; quit with Ctrl+D (or Ctrl+C).
To connect a client, run "shipcode-mcp config <client>" or see "Configure your MCP client" in README.md; --help lists the flags.
`;
}
