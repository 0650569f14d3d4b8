/**
 * The official TypeScript SDK's server, as most MCP servers are built:
 * `McpServer` + `StdioServerTransport` from `@modelcontextprotocol/sdk`.
 * The same file runs under Deno (the import map in deno.json resolves the
 * SDK from npm) and under Node (the bench copies it next to an npm install).
 *
 * @module
 */

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const server = new McpServer({ name: "sdk-bench", version: "1.0.0" });
await server.connect(new StdioServerTransport());
