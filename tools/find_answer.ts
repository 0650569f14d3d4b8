/**
 * What `find_files` answers, from a walk or from the index: the matching
 * paths one per line, then bracketed notes, as plain text (no structured
 * content, which some clients would hand their model instead).
 *
 * @module
 */

import { textContent } from "../mcp/content.ts";
import type { ToolResult } from "../mcp/tool.ts";

/** What a `find_files` call found. */
export interface FindOutcome {
  /** The matching paths, as shown, at most `limit`. */
  paths: readonly string[];
  /** The cap on paths. */
  limit: number;
  /** Whether more paths matched than `limit`. */
  truncated: boolean;
  /** The note on entries the walk could not take, if any. */
  walkNote: string | undefined;
}

/** The tool result for `outcome`. */
export function findAnswer(outcome: FindOutcome): ToolResult {
  const { paths, limit, truncated } = outcome;
  const lines = [...paths];
  if (truncated) {
    lines.push(
      `[More than ${limit} files match; narrow the pattern or the path to see the rest.]`,
    );
  } else if (paths.length === 0) {
    lines.push(
      '[No files match; try a broader pattern such as "*" + an extension, or list_directory.]',
    );
  }
  if (outcome.walkNote !== undefined) lines.push(`[${outcome.walkNote}]`);
  return {
    content: [textContent(lines.join("\n"))],
  };
}
