/**
 * The workspace features of `shipcode-mcp`: opens the served root and
 * installs its tools and resources into a server. Loaded on first need by
 * the server's `setup` (see app.ts), so nothing here is on the startup path.
 *
 * @module
 */

import type { Config } from "./cli/flags.ts";
import type { McpServer } from "./mcp/server.ts";
import { WorkspaceResources } from "./resources/provider.ts";
import { workspaceTools } from "./tools/mod.ts";
import { Workspace } from "./workspace/workspace.ts";

/** Open `config.root` and register its tools and resources on `server`. */
export async function installWorkspace(
  server: McpServer,
  config: Config,
): Promise<void> {
  const workspace = await Workspace.open(config.root, {
    includeIgnored: config.includeIgnored,
  });
  server.resources = new WorkspaceResources(workspace, {
    maxReadBytes: config.maxReadBytes,
    maxResources: config.maxResources,
    watch: config.watch,
    watchOptions: {
      // Watching is a convenience: a failure is logged, never fatal.
      onError: (error) =>
        server.logger.log("warn", "watching the root failed:", error),
    },
  });
  for (const tool of workspaceTools(workspace, config)) {
    server.tools.register(tool);
  }
}
