/**
 * What `search_text` answers, however the matches were found (a scan on
 * this thread, scan workers, or the index): the matching lines as
 * `path:line:text`, then one bracketed line of notes, as plain text (no
 * structured content, which some clients would hand their model instead).
 *
 * @module
 */

import { textContent } from "../mcp/content.ts";
import type { ToolResult } from "../mcp/tool.ts";
import { displayPath, plural } from "./common.ts";

/** One matching line. */
export interface Match {
  /** The file, relative to the workspace. */
  path: string;
  /** Its 1-based line number. */
  line: number;
  /** The line's text (clipped). */
  text: string;
}

/** What a search found and how far it went. */
export interface SearchOutcome {
  /** The matches, in walk order, at most `limit`. */
  matches: readonly Match[];
  /** The cap on matches. */
  limit: number;
  /** Files searched. */
  searched: number;
  /** Files skipped as binary or too large. */
  skipped: number;
  /** The size above which a file is skipped, for the note. */
  maxReadBytes: number;
  /** The note on entries the walk could not take, if any. */
  walkNote: string | undefined;
}

/** The tool result for `outcome`. */
export function searchAnswer(outcome: SearchOutcome): ToolResult {
  const { matches, limit, searched, skipped } = outcome;
  const truncated = matches.length >= limit;
  const notes: string[] = [];
  if (truncated) {
    notes.push(
      `Stopped at ${plural(limit, "match", "matches")}, in the first ${
        plural(searched, "file", "files")
      } searched; narrow "path" or "glob", or refine the query, to see others.`,
    );
  }
  if (skipped > 0) {
    notes.push(
      `${
        plural(skipped, "file was", "files were")
      } skipped (binary, or over ${outcome.maxReadBytes} bytes).`,
    );
  }
  if (outcome.walkNote !== undefined) notes.push(outcome.walkNote);
  if (matches.length === 0) {
    notes.push(`No matches in ${plural(searched, "file", "files")}.`);
  }
  const lines = matches.map((m) =>
    `${displayPath(m.path)}:${m.line}:${m.text}`
  );
  if (notes.length > 0) lines.push(`[${notes.join(" ")}]`);
  return {
    content: [textContent(lines.join("\n"))],
  };
}
