/**
 * `list_directory`: the entries of a directory, with type and size, sorted,
 * optionally several levels deep: one line per entry, as plain text.
 *
 * @module
 */

import { defineTool, type Tool } from "../mcp/tool.ts";
import { textContent } from "../mcp/content.ts";
import { walkSkips } from "../workspace/workspace.ts";
import type { WorkspaceView } from "../workspace/roots.ts";
import {
  displayPath,
  Pacer,
  READ_ONLY,
  skippedNote,
  type ToolCaps,
} from "./common.ts";

/** Make the `list_directory` tool over `ws`. */
export function listDirectoryTool(
  ws: WorkspaceView,
  caps: Pick<ToolCaps, "maxEntries" | "maxDepth">,
): Tool {
  return defineTool({
    name: "list_directory",
    title: "List directory",
    description:
      `List the files and subdirectories of a workspace directory, sorted by name, one per line: a directory ends with "/", a file is followed by its size ("src/main.ts (1234 bytes)"), anything else by "(other)". Paths are relative to the workspace root; .git and .gitignore'd entries are left out. "depth" (default 1, at most ${caps.maxDepth}) descends into subdirectories. At most ${caps.maxEntries} entries are returned; a last line in brackets says when the list was cut.`,
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
    },
    annotations: READ_ONLY,
    async run(args, ctx) {
      const path = args.path ?? "";
      const asked = args.depth ?? 1;
      const depth = Math.min(asked, caps.maxDepth);
      // Refused here, before any walk, when it is no directory of the root.
      await ws.resolve(path);
      const lines: string[] = [];
      const notes: string[] = [];
      // Progress: entries listed so far (the total is not known).
      const pacer = new Pacer(
        ctx.signal,
        () =>
          ctx.reportProgress(
            lines.length,
            undefined,
            `${lines.length} entries listed`,
          ),
      );
      const skips = walkSkips();
      for await (
        const entry of ws.walk({
          path,
          maxDepth: depth,
          signal: ctx.signal,
          sizes: true,
          skips,
        })
      ) {
        if (pacer.due()) await pacer.pause();
        if (lines.length === caps.maxEntries) {
          notes.push(
            `Only the first ${caps.maxEntries} entries are shown; list a subdirectory or use a smaller depth to see the rest.`,
          );
          break;
        }
        if (entry.isFile) {
          const size = entry.size ?? 0;
          lines.push(`${displayPath(entry.relative)} (${size} bytes)`);
        } else if (entry.isDirectory) {
          lines.push(`${displayPath(entry.relative)}/`);
        } else {
          lines.push(`${displayPath(entry.relative)} (other)`);
        }
      }
      const count = lines.length;
      if (asked > caps.maxDepth) {
        notes.push(
          `Depth is capped at ${caps.maxDepth}; list a subdirectory to go deeper.`,
        );
      }
      if (count === 0) notes.push("The directory is empty.");
      const skipped = skippedNote(skips);
      if (skipped !== undefined) notes.push(skipped);
      if (notes.length > 0) lines.push(`[${notes.join(" ")}]`);
      return {
        content: [textContent(lines.join("\n"))],
      };
    },
  });
}
