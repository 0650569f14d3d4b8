/**
 * Builds the `shipcode-mcp` server from its configuration: the default
 * method map, and the workspace's tools and resources loaded on first need.
 *
 * @module
 */

import type { Config } from "./cli/flags.ts";
import { handlers } from "./handlers/mod.ts";
import { stderrLogger } from "./mcp/log.ts";
import { McpServer } from "./mcp/server.ts";

/** Make the server `shipcode-mcp` runs for `config`. */
export function createShipcodeServer(config: Config): McpServer {
  return new McpServer({
    handlers,
    info: { name: "shipcode-mcp", version: "1.0.0" },
    protocolVersions: config.protocolVersions,
    pageSize: config.pageSize,
    logger: stderrLogger(config.logLevel, "shipcode-mcp"),
    // --watch adds subscriptions and list_changed; without it the
    // capabilities stay exactly the default bytes.
    capabilities: config.watch
      ? { tools: {}, resources: { subscribe: true, listChanged: true } }
      : { tools: {}, resources: {} },
    // The workspace, its tools and resources (and their npm dependencies)
    // load when a method first needs them: a client gets its initialize
    // and ping answers without waiting for code those never use.
    setup: async (server) => {
      const { installWorkspace } = await import("./features.ts");
      await installWorkspace(server, config);
    },
  });
}
