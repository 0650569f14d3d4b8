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

/** Make the server `shipcode-mcp` runs for `config`. */
export function createShipcodeServer(config: Config): McpServer {
  const server = new McpServer({
    handlers,
    protocolVersions: config.protocolVersions,
    pageSize: config.pageSize,
    logger: stderrLogger(config.logLevel),
  });
  return server;
}
