/**
 * `list_directory`: the entries of a directory, with type and size, sorted,
 * optionally several levels deep.
 *
 * @module
 */

import type { JsonObject } from "../mcp/jsonrpc.ts";
import type { Tool } from "../mcp/tool.ts";
import { structuredResult } from "../mcp/content.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { READ_ONLY, type ToolCaps } from "./common.ts";

/** Make the `list_directory` tool over `ws`. */
export function listDirectoryTool(
  ws: Workspace,
  caps: Pick<ToolCaps, "maxEntries" | "maxDepth">,
): Tool {
  return {
    name: "list_directory",
    title: "List directory",
    description:
      `List the files and subdirectories of a workspace directory, sorted by name, with type and size in bytes. Paths are relative to the workspace root; .git and .gitignore'd entries are left out. "depth" (default 1, at most ${caps.maxDepth}) descends into subdirectories. At most ${caps.maxEntries} entries are returned.`,
    inputSchema: {
      type: "object",
      properties: {
        path: {
          type: "string",
          description:
            'Directory relative to the workspace root; "" or "." for the root (default).',
        },
        depth: {
          type: "integer",
          minimum: 1,
          description: "Levels to descend; 1 lists only the directory itself.",
        },
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        path: { type: "string" },
        entries: {
          type: "array",
          items: {
            type: "object",
            properties: {
              path: { type: "string" },
              type: { enum: ["file", "directory", "other"] },
              size: { type: "integer", minimum: 0 },
            },
            required: ["path", "type"],
          },
        },
        truncated: { type: "boolean" },
        note: { type: "string" },
      },
      required: ["path", "entries", "truncated"],
    },
    annotations: READ_ONLY,
    async run(args, ctx) {
      const path = (args.path as string | undefined) ?? "";
      const asked = (args.depth as number | undefined) ?? 1;
      const depth = Math.min(asked, caps.maxDepth);
      const start = await ws.resolve(path);
      const entries: JsonObject[] = [];
      const notes: string[] = [];
      let truncated = false;
      for await (
        const entry of ws.walk({
          path,
          maxDepth: depth,
          signal: ctx.signal,
          sizes: true,
        })
      ) {
        if (entries.length === caps.maxEntries) {
          truncated = true;
          notes.push(
            `Only the first ${caps.maxEntries} entries are shown; list a subdirectory or use a smaller depth to see the rest.`,
          );
          break;
        }
        const item: JsonObject = {
          path: entry.relative,
          type: entry.isFile
            ? "file"
            : entry.isDirectory
            ? "directory"
            : "other",
        };
        if (entry.isFile) item.size = entry.size ?? 0;
        entries.push(item);
      }
      if (asked > caps.maxDepth) {
        truncated = true;
        notes.push(
          `Depth is capped at ${caps.maxDepth}; list a subdirectory to go deeper.`,
        );
      }
      const data: JsonObject = { path: start.relative, entries, truncated };
      if (notes.length > 0) data.note = notes.join(" ");
      return structuredResult(data);
    },
  };
}
