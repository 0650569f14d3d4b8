/**
 * Builds the `shipcode-mcp` server from its configuration: the default
 * method map and the workspace's tools and resources.
 *
 * @module
 */

import type { Config } from "./cli/flags.ts";
import { handlers } from "./handlers/mod.ts";
import { stderrLogger } from "./mcp/log.ts";
import { McpServer } from "./mcp/server.ts";
import { workspaceTools } from "./tools/mod.ts";
import { Workspace } from "./workspace/workspace.ts";

/** Make the server `shipcode-mcp` runs for `config`. */
export async function createShipcodeServer(
  config: Config,
): Promise<McpServer> {
  const workspace = await Workspace.open(config.root, {
    includeIgnored: config.includeIgnored,
  });
  const server = new McpServer({
    handlers,
    protocolVersions: config.protocolVersions,
    pageSize: config.pageSize,
    logger: stderrLogger(config.logLevel),
  });
  for (const tool of workspaceTools(workspace, config)) {
    server.tools.register(tool);
  }
  return server;
}
