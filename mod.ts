/**
 * A protocol library for MCP servers: the transport-free server core
 * ({@linkcode McpServer}, {@linkcode Session}), the default method map
 * ({@linkcode handlers}) and the optional ones, tools
 * ({@linkcode defineTool}), prompts ({@linkcode definePrompt}), resource
 * providers ({@linkcode ResourceProvider}), errors ({@linkcode RpcError},
 * {@linkcode ErrorCode}) and {@linkcode serveStdio} to serve on stdin and
 * stdout.
 *
 * The rest is in subpath exports (see `deno.json`): `./http` (Streamable
 * HTTP), `./stdio` (the stdio transport's parts), `./transport` (a
 * transport of your own, line framing), `./protocol` (the JSON-RPC codec,
 * protocol versions and the library's other parts), `./limits` (tuning
 * constants), `./extensions/tasks` and `./extensions/skills` (the MCP
 * 2026-07-28 extensions).
 *
 * @example Answer messages in-process, without a transport
 * ```ts
 * import { handlers, McpServer, Session } from "./mod.ts";
 *
 * const server = new McpServer({
 *   handlers,
 *   info: { name: "example-mcp", version: "1.0.0" },
 * });
 * // What the server sends on its own (notifications) goes here.
 * const session = new Session((line) => console.log(line));
 * const init = await server.handle({
 *   jsonrpc: "2.0",
 *   id: 1,
 *   method: "initialize",
 *   params: {
 *     protocolVersion: "2025-06-18",
 *     capabilities: {},
 *     clientInfo: { name: "example-client", version: "1.0.0" },
 *   },
 * }, session);
 * console.log(init?.result); // protocolVersion, capabilities, serverInfo
 * const pong = await server.handle(
 *   { jsonrpc: "2.0", id: 2, method: "ping" },
 *   session,
 * );
 * if (JSON.stringify(pong) !== '{"jsonrpc":"2.0","id":2,"result":{}}') {
 *   throw new Error("unexpected answer");
 * }
 * ```
 *
 * @example Serve newline-delimited JSON-RPC (stdin and stdout by default)
 * ```ts
 * import { handlers, McpServer, serveStdio } from "./mod.ts";
 *
 * const server = new McpServer({
 *   handlers,
 *   info: { name: "example-mcp", version: "1.0.0" },
 * });
 * // Without `input` and `output`, this serves the process's stdin/stdout.
 * const input = ReadableStream.from([
 *   new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"ping"}\n'),
 * ]);
 * let written = "";
 * const output = {
 *   write(bytes: Uint8Array) {
 *     written += new TextDecoder().decode(bytes);
 *     return Promise.resolve(bytes.length);
 *   },
 * };
 * await serveStdio(server, { input, output });
 * if (written !== '{"jsonrpc":"2.0","id":1,"result":{}}\n') {
 *   throw new Error("unexpected output");
 * }
 * ```
 *
 * @module
 */

export {
  capabilitiesOf,
  type Handler,
  type HandlerContext,
  type HandlerMap,
  McpServer,
  type McpServerOptions,
  type ServerInfo,
} from "./mcp/server.ts";
export { Session } from "./mcp/session.ts";
export { ErrorCode, type JsonObject, RpcError } from "./mcp/jsonrpc.ts";
export {
  type ContentBlock,
  defineTool,
  type Tool,
  type ToolContext,
  ToolFailure,
  type ToolResult,
} from "./mcp/tool.ts";
export { definePrompt, type Prompt } from "./mcp/prompt.ts";
export {
  audioContent,
  imageContent,
  resourceLink,
  structuredResult,
  textContent,
  toolError,
} from "./mcp/content.ts";
export {
  type Resource,
  type ResourceChanges,
  type ResourceContents,
  resourceNotFound,
  type ResourcePage,
  type ResourceProvider,
  type ResourceTemplate,
  type ResourceWatch,
} from "./mcp/resource.ts";
export { watchResources } from "./mcp/watch.ts";
export {
  completionHandlers,
  handlers,
  loggingHandlers,
  modernHandlers,
  promptHandlers,
} from "./handlers/mod.ts";
export { serveStdio } from "./mcp/transports/stdio.ts";
