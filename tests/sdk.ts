/**
 * The official MCP TypeScript SDK, as the tests use it: a real client to
 * drive the server with. Pinned here, in one place, and locked in
 * tests/deno.lock, so the server's own lockfile (deno.lock) holds only what
 * the server runs: with fewer npm packages to resolve, it starts sooner.
 *
 * @module
 */

export { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
export { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
export { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
export {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
export { UriTemplate } from "npm:@modelcontextprotocol/sdk@1.32.2/shared/uriTemplate.js";
