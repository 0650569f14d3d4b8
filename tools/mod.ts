/**
 * The workspace tool set. Adding a tool is one module in this folder (see
 * CONTRIBUTING.md's "Add a tool") and its entry in the list below.
 *
 * @module
 */

import { type Tool, ToolFailure } from "../mcp/tool.ts";
import { WorkspaceError } from "../workspace/workspace.ts";
import type { WorkspaceView } from "../workspace/roots.ts";
import type { TextIndex } from "../workspace/text_index.ts";
import type { ToolCaps } from "./common.ts";
import { fileInfoTool } from "./file_info.ts";
import { findFilesTool } from "./find_files.ts";
import { listDirectoryTool } from "./list_directory.ts";
import { readFileTool } from "./read_file.ts";
import { searchTextTool } from "./search_text.ts";
import { outlineTool } from "./outline.ts";
import { findSymbolTool } from "./find_symbol.ts";
import { readSymbolTool } from "./read_symbol.ts";

export type { ToolCaps } from "./common.ts";

/**
 * Every workspace tool over `ws` (one workspace, or several roots as one
 * tree: see `workspace/roots.ts`), with the given caps; `find_files` and
 * `search_text` answer from `index` (an index of `ws`) when it can, and
 * `find_symbol` reads the files it names.
 */
export function workspaceTools(
  ws: WorkspaceView,
  caps: ToolCaps,
  index?: TextIndex,
): Tool[] {
  return [
    listDirectoryTool(ws, caps),
    findFilesTool(ws, caps, index),
    readFileTool(ws, caps),
    searchTextTool(ws, caps, index),
    fileInfoTool(ws),
    outlineTool(ws, caps),
    findSymbolTool(ws, caps, index),
    readSymbolTool(ws, caps),
  ].map(reportingWorkspaceErrors);
}

/**
 * `tool`, with the workspace's refusals (a missing file, a path outside the
 * root) turned into tool failures, whose message the model reads: the
 * workspace knows nothing of MCP, so the translation happens here, once.
 */
function reportingWorkspaceErrors(tool: Tool): Tool {
  return {
    ...tool,
    async run(args, ctx) {
      try {
        return await tool.run(args, ctx);
      } catch (error) {
        if (error instanceof WorkspaceError) {
          throw new ToolFailure(error.message);
        }
        throw error;
      }
    },
  };
}
