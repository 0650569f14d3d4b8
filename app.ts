/**
 * Builds the `shipcode-mcp` server from its configuration: the default
 * method map and the workspace's tools and resources.
 *
 * @module
 */

import type { Config } from "./cli/flags.ts";
import { handlers } from "./handlers/mod.ts";
import { stderrLogger } from "./mcp/log.ts";
import { DEFAULT_CAPABILITIES, McpServer } from "./mcp/server.ts";
import { WorkspaceResources } from "./resources/provider.ts";
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
    // --watch adds subscriptions and list_changed; without it the
    // capabilities stay exactly the default bytes.
    capabilities: config.watch
      ? { tools: {}, resources: { subscribe: true, listChanged: true } }
      : DEFAULT_CAPABILITIES,
    resources: new WorkspaceResources(workspace, {
      maxReadBytes: config.maxReadBytes,
      watch: config.watch,
    }),
  });
  for (const tool of workspaceTools(workspace, config)) {
    server.tools.register(tool);
  }
  return server;
}
