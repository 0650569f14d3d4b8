/**
 * `find_files`: workspace files whose path matches a glob, one path per
 * line, as plain text.
 *
 * @module
 */

import { defineTool, type Tool } from "../mcp/tool.ts";
import { walkSkips } from "../workspace/workspace.ts";
import type { WorkspaceView } from "../workspace/roots.ts";
import type { TextIndex } from "../workspace/text_index.ts";
import {
  displayPath,
  Pacer,
  READ_ONLY,
  skippedNote,
  type ToolCaps,
} from "./common.ts";
import { findAnswer } from "./find_answer.ts";
import { GLOB_SYNTAX, globMatcher, MAX_GLOB_LENGTH } from "./glob.ts";

/**
 * Make the `find_files` tool over `ws`; with `index` (an index of `ws`),
 * calls it can answer exactly are answered from it.
 */
export function findFilesTool(
  ws: WorkspaceView,
  caps: Pick<ToolCaps, "maxEntries">,
  index?: TextIndex,
): Tool {
  return defineTool({
    name: "find_files",
    title: "Find files",
    description:
      `Find files in the workspace whose path matches a glob pattern. A pattern without "/" matches file names anywhere ("*.ts", "README*"); a pattern with "/" matches the path relative to "path" ("src/**/*.test.ts"). Syntax: ${GLOB_SYNTAX}; matching is case-sensitive, * also matches names starting with ".", extended globs such as +(…) are refused, and patterns are at most ${MAX_GLOB_LENGTH} characters. Returns one path per line, sorted, relative to the workspace root, skipping .git and .gitignore'd files; at most ${caps.maxEntries}, with a last line in brackets when the list was cut.`,
    inputSchema: {
      type: "object",
      properties: {
        pattern: {
          type: "string",
          minLength: 1,
          description: 'Glob, e.g. "*.ts" or "src/**/*.{json,yml}".',
        },
        path: {
          type: "string",
          description:
            "Directory to search in, relative to the root (default: the root).",
        },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: caps.maxEntries,
          description:
            `Most paths to return (default and maximum ${caps.maxEntries}).`,
        },
      },
      required: ["pattern"],
    },
    annotations: READ_ONLY,
    async run(args, ctx) {
      const { pattern, path = "" } = args;
      const limit = Math.min(args.limit ?? caps.maxEntries, caps.maxEntries);
      // A pattern is refused (GlobError: a message for the model) before
      // any work is done.
      const start = await ws.resolve(path);
      const matches = globMatcher(pattern, start.relative);
      if (index !== undefined) {
        // The same answer from the index, when it is current and can tell.
        const { indexedFindFiles } = await import("./search_indexed.ts");
        const answer = await indexedFindFiles(index, {
          pattern,
          start,
          matches,
          limit,
          signal: ctx.signal,
        });
        if (answer !== undefined) return answer;
      }
      const found: string[] = [];
      // Progress: entries walked so far (the total is not known).
      let walked = 0;
      const pacer = new Pacer(
        ctx.signal,
        () => ctx.reportProgress(walked, undefined, `${walked} entries walked`),
      );
      let truncated = false;
      const skips = walkSkips();
      for await (
        const entry of ws.walk({ path, signal: ctx.signal, skips })
      ) {
        walked++;
        if (pacer.due()) await pacer.pause();
        if (!entry.isFile || !matches(entry.relative)) continue;
        if (found.length === limit) {
          truncated = true;
          break;
        }
        found.push(displayPath(entry.relative));
      }
      return findAnswer({
        paths: found,
        limit,
        truncated,
        walkNote: skippedNote(skips),
      });
    },
  });
}
