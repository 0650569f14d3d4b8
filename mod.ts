/**
 * A protocol library for MCP servers: a transport-free server core
 * ({@linkcode McpServer}, {@linkcode Session}), the default method map
 * ({@linkcode handlers}), one connection over any {@linkcode Transport}
 * ({@linkcode serve}), the stdio and Streamable HTTP
 * ({@linkcode serveHttp}) transports, and the JSON-RPC codec and line
 * framing it is built on.
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
  type CapabilityOptions,
  DEFAULT_PAGE_SIZE,
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
  CLIENT_CAPABILITY_OF,
  type ClientInfo,
  type ClientRequestOptions,
  DEFAULT_CLIENT_REQUEST_TIMEOUT_MS,
  REQUEST_TIMEOUT_CODE,
  type SendFn,
  Session,
  type SessionState,
} from "./mcp/session.ts";
export type {
  CreateMessageParams,
  CreateMessageResult,
  ElicitationSchema,
  ElicitParams,
  ElicitResult,
  Root,
  SamplingMessage,
} from "./mcp/client_requests.ts";
export {
  allowsLevel,
  isLoggingLevel,
  LOGGING_LEVELS,
  type LoggingLevel,
} from "./mcp/logging.ts";
export type { InputEnd, Receiver, Transport } from "./mcp/transport.ts";
export {
  BUSY_CODE,
  type ConnectionOptions,
  DEFAULT_MAX_REQUESTS_IN_FLIGHT,
  MAX_BATCH_MESSAGES,
  MAX_CONCURRENT_REQUESTS,
  MAX_HELD_RESPONSES,
  serve,
} from "./mcp/connection.ts";
export {
  type ByteWriter,
  serveStdio,
  type StdioOptions,
  StdioTransport,
  type StdioTransportOptions,
} from "./mcp/transports/stdio.ts";
export {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_TIMEOUT_MS,
  type HttpOptions,
  type HttpServer,
  serveHttp,
} from "./mcp/transports/http.ts";
export {
  DEFAULT_HEADER_TIMEOUT_MS,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  DEFAULT_MAX_CONNECTIONS,
} from "./mcp/transports/http1.ts";
export { OutputBudget } from "./mcp/output_budget.ts";
export { writeAll, writeAllSync } from "./mcp/write_all.ts";
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
  LineDecoder,
  type LineDecoderOptions,
  type LineOptions,
  type LineSink,
  LineSplitter,
  OversizedLine,
  startsWithBom,
} from "./mcp/line_stream.ts";
export {
  type ContentBlock,
  defineTool,
  isValidToolName,
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
  type ToolTaskOptions,
} from "./mcp/tool.ts";
export {
  definePrompt,
  type Prompt,
  type PromptArgs,
  type PromptArgument,
  type PromptCompleter,
  type PromptCompletionContext,
  type PromptContext,
  promptDefinition,
  type PromptMessage,
  PromptRegistry,
  type PromptResult,
} from "./mcp/prompt.ts";
export {
  type Completer,
  type Completion,
  type CompletionContext,
  completionResult,
  MAX_COMPLETION_VALUES,
} from "./mcp/completion.ts";
export type { Icon } from "./mcp/icon.ts";
export { type SchemaDialect, schemaDialect } from "./mcp/schema_dialect.ts";
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
  pageResult,
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
  isModernVersion,
  isProtocolVersion,
  MODERN_PROTOCOL_VERSIONS,
  promptForVersion,
  promptResultForVersion,
  PROTOCOL_VERSIONS,
  resourceForVersion,
  serverInfoForVersion,
  toolForVersion,
} from "./mcp/protocol_versions.ts";
export type { SchemaCheck, SchemaFailure } from "./mcp/json_schema.ts";
export type * from "./mcp/resource.ts";
export { resourceNotFound, uriParam } from "./mcp/resource.ts";
export {
  canSubscribe,
  type ChangeListener,
  SharedWatches,
  type Watchable,
  watchResources,
} from "./mcp/watch.ts";
export {
  completionHandlers,
  handlers,
  loggingHandlers,
  modernHandlers,
  promptHandlers,
  skillHandlers,
  taskHandlers,
} from "./handlers/mod.ts";
export {
  DIRECTORY_MIME_TYPE,
  MAX_SKILL_BYTES,
  MAX_SKILL_FILES,
  serveSkills,
  SKILL_MD,
  type SkillDefinition,
  type SkillEntry,
  type SkillFile,
  skillMarkdown,
  type SkillResourceEntry,
  SKILLS_EXTENSION,
  skillsCapability,
  SkillSet,
  skillsOf,
  withSkills,
} from "./mcp/ext_skills.ts";
export {
  declaresTasks,
  isTerminal,
  MISSING_CLIENT_CAPABILITY,
  TASKS_EXTENSION,
  type TaskStatus,
  TaskStore,
  taskStoreOf,
  type TaskStoreOptions,
} from "./mcp/ext_tasks.ts";
export {
  CACHE_HINTS,
  type CacheHint,
  META,
  ModernErrorCode,
  type ModernServer,
  REMOVED_METHODS,
  RequestSession,
} from "./mcp/era_2026.ts";
export {
  INPUT_REQUIRED_METHODS,
  InputCollector,
  type InputRequest,
  InputRequiredError,
  REQUEST_STATE_TTL_MS,
  setRequestStateKey,
} from "./mcp/mrtr.ts";
export {
  declaresListChanged,
  type ListKind,
  notifyListChanged,
} from "./mcp/list_changed.ts";
export {
  clientHasRoots,
  type ClientRoot,
  listClientRoots,
  ROOTS_TIMEOUT_MS,
  rootsHandlers,
} from "./handlers/roots.ts";
