/**
 * The official MCP TypeScript client, version 2 (the first to speak MCP
 * 2026-07-28: `server/discover`, per-request `_meta`, input_required
 * rounds, `subscriptions/listen`), as the tests use it. Pinned here, in one
 * place, and locked in tests/deno.lock beside the 1.x SDK of `sdk.ts`.
 *
 * @module
 */

export {
  Client,
  ProtocolError,
  StreamableHTTPClientTransport,
} from "npm:@modelcontextprotocol/client@2.4.0";
export { StdioClientTransport } from "npm:@modelcontextprotocol/client@2.4.0/stdio";
