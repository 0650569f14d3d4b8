/**
 * The workspace tool set. Adding a tool is one module in this folder and
 * one line here.
 *
 * @module
 */

import type { Tool } from "../mcp/tool.ts";
import type { Workspace } from "../workspace/workspace.ts";
import type { ToolCaps } from "./common.ts";
import { fileInfoTool } from "./file_info.ts";
import { findFilesTool } from "./find_files.ts";
import { listDirectoryTool } from "./list_directory.ts";
import { readFileTool } from "./read_file.ts";
import { searchTextTool } from "./search_text.ts";

export { DEFAULT_CAPS, type ToolCaps } from "./common.ts";

/** Every workspace tool over `ws`, with the given caps. */
export function workspaceTools(ws: Workspace, caps: ToolCaps): Tool[] {
  return [
    listDirectoryTool(ws, caps),
    findFilesTool(ws, caps),
    readFileTool(ws, caps),
    searchTextTool(ws, caps),
    fileInfoTool(ws),
  ];
}
