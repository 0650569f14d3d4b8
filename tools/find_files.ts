/**
 * `find_files`: workspace files whose path matches a glob.
 *
 * @module
 */

import type { JsonObject } from "../mcp/jsonrpc.ts";
import type { Tool } from "../mcp/tool.ts";
import { structuredResult, toolError } from "../mcp/content.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { globMatcher, READ_ONLY, type ToolCaps } from "./common.ts";

/** Make the `find_files` tool over `ws`. */
export function findFilesTool(
  ws: Workspace,
  caps: Pick<ToolCaps, "maxEntries">,
): Tool {
  return {
    name: "find_files",
    title: "Find files",
    description:
      `Find files in the workspace whose path matches a glob pattern. A pattern without "/" matches file names anywhere ("*.ts", "README*"); a pattern with "/" matches the path relative to "path" ("src/**/*.test.ts"). Supports *, **, ?, [abc] and {a,b}. Results are sorted, relative to the workspace root, and skip .git and .gitignore'd files; at most ${caps.maxEntries}.`,
    inputSchema: {
      type: "object",
      properties: {
        pattern: {
          type: "string",
          minLength: 1,
          description: 'Glob, e.g. "*.ts" or "src/**/*.json".',
        },
        path: {
          type: "string",
          description:
            "Directory to search in, relative to the root (default: the root).",
        },
        limit: {
          type: "integer",
          minimum: 1,
          description:
            `Most paths to return (default and maximum ${caps.maxEntries}).`,
        },
      },
      required: ["pattern"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        pattern: { type: "string" },
        matches: { type: "array", items: { type: "string" } },
        truncated: { type: "boolean" },
        note: { type: "string" },
      },
      required: ["pattern", "matches", "truncated"],
    },
    annotations: READ_ONLY,
    async run(args, ctx) {
      const pattern = args.pattern as string;
      const path = (args.path as string | undefined) ?? "";
      const limit = Math.min(
        (args.limit as number | undefined) ?? caps.maxEntries,
        caps.maxEntries,
      );
      const start = await ws.resolve(path);
      let matches: (relative: string) => boolean;
      try {
        matches = await globMatcher(pattern, start.relative);
      } catch (error) {
        return toolError(
          `The pattern "${pattern}" is not a valid glob (${
            (error as Error).message
          }); use *, **, ?, [abc] and {a,b}.`,
        );
      }
      const found: string[] = [];
      let truncated = false;
      for await (const entry of ws.walk({ path, signal: ctx.signal })) {
        if (!entry.isFile || !matches(entry.relative)) continue;
        if (found.length === limit) {
          truncated = true;
          break;
        }
        found.push(entry.relative);
      }
      const data: JsonObject = { pattern, matches: found, truncated };
      if (truncated) {
        data.note =
          `More than ${limit} files match; narrow the pattern or the path to see the rest.`;
      } else if (found.length === 0) {
        data.note =
          'No files match; try a broader pattern such as "*" + an extension, or list_directory.';
      }
      return structuredResult(data);
    },
  };
}
