/**
 * The names of the workspace tools, taken from the registry the server
 * builds them from (`tools/mod.ts`), so adding a tool there needs no edit
 * to the tests that check what is listed.
 *
 * @module
 */

import { workspaceTools } from "../tools/mod.ts";
import { Workspace } from "../workspace/workspace.ts";
import { PROJECT_ROOT } from "./server_command.ts";
import { TEST_CAPS } from "./tools_harness.ts";

/** Every workspace tool's name, in `tools/list` order (sorted by name). */
export async function workspaceToolNames(): Promise<string[]> {
  const workspace = await Workspace.open(PROJECT_ROOT);
  return workspaceTools(workspace, TEST_CAPS).map((tool) => tool.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
