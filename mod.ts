/**
 * The shipcode-mcp library: a transport-free MCP server core
 * ({@linkcode McpServer}, {@linkcode Session}), the stdio transport, the
 * JSON-RPC codec and line framing it is built on, and the default method
 * map.
 *
 * @example A server with one tool, on stdio
 * ```ts
 * import { handlers, McpServer, serveStdio } from "./mod.ts";
 *
 * const server = new McpServer({
 *   handlers,
 *   info: { name: "example-mcp", version: "1.0.0" },
 *   capabilities: { tools: {} },
 * });
 * server.tools.register({
 *   name: "echo",
 *   description: "Echoes its arguments back",
 *   inputSchema: { type: "object", properties: {} },
 *   run: (args) => ({ content: [{ type: "text", text: JSON.stringify(args) }] }),
 * });
 * await serveStdio(server);
 * ```
 *
 * @module
 */

export {
  DEFAULT_CAPABILITIES,
  DEFAULT_SERVER_INFO,
  type DispatchResult,
  type Handler,
  type HandlerContext,
  type HandlerMap,
  isNotificationMethod,
  LATEST_PROTOCOL_VERSION,
  lazyHandler,
  McpServer,
  type McpServerOptions,
  type ServerInfo,
} from "./mcp/server.ts";
export {
  type Cancellable,
  type ClientInfo,
  type ClientRequestOptions,
  type SendFn,
  Session,
  type SessionState,
} from "./mcp/session.ts";
export {
  type ByteWriter,
  serveStdio,
  type StdioOptions,
} from "./mcp/transports/stdio.ts";
export {
  classify,
  decode,
  describeError,
  type DroppedMessage,
  EMPTY_RESULT,
  encodeError,
  encodeNotification,
  encodeRequest,
  encodeResult,
  ErrorCode,
  idKey,
  type IncomingMessage,
  type InvalidMessage,
  type JsonObject,
  type NotificationMessage,
  type RawJson,
  type RequestId,
  type RequestMessage,
  type ResponseMessage,
  RpcError,
} from "./mcp/jsonrpc.ts";
export {
  DEFAULT_MAX_LINE_BYTES,
  type Line,
  type LineOptions,
  LineSplitter,
  LineStream,
  OversizedLine,
  startsWithBom,
} from "./mcp/line_stream.ts";
export {
  type ContentBlock,
  defineTool,
  type ObjectSchema,
  type PropertySchema,
  type RequiredNames,
  type SchemaArgs,
  type SchemaValue,
  type Tool,
  type ToolAnnotations,
  type ToolContext,
  toolDefinition,
  ToolFailure,
  ToolRegistry,
  type ToolResult,
} from "./mcp/tool.ts";
export {
  audioContent,
  imageContent,
  resourceLink,
  structuredResult,
  textContent,
  toolError,
} from "./mcp/content.ts";
export {
  decodeCursor,
  encodeCursor,
  invalidCursor,
  type Page,
  paginate,
} from "./mcp/pagination.ts";
export {
  LOG_LEVELS,
  type Logger,
  type LogLevel,
  stderrLogger,
} from "./mcp/log.ts";
export {
  callResultForVersion,
  contentForVersion,
  isProtocolVersion,
  PROTOCOL_VERSIONS,
  resourceForVersion,
  serverInfoForVersion,
  toolForVersion,
} from "./mcp/protocol_versions.ts";
export type { SchemaCheck, SchemaFailure } from "./mcp/json_schema.ts";
export type * from "./mcp/resource.ts";
export { handlers } from "./handlers/mod.ts";
