/**
 * The rest of the protocol library, for servers that go beyond the root
 * module: the JSON-RPC codec and message types, the protocol versions and
 * how each shapes answers, the types the root module's API refers to
 * (session, client requests, tools, prompts, completion, resources,
 * logging), the registries, pagination cursors, handler helpers
 * ({@linkcode lazyHandler}, {@linkcode rootsHandlers}) and the MCP
 * 2026-07-28 request parts ({@linkcode RequestSession},
 * {@linkcode InputRequiredError}, {@linkcode setRequestStateKey}).
 *
 * @example Decode a line and encode its answer
 * ```ts
 * import { decode, encodeResult } from "./protocol.ts";
 *
 * const message = decode('{"jsonrpc":"2.0","id":7,"method":"ping"}');
 * if (message.kind !== "request") throw new Error("not a request");
 * console.log(encodeResult(message.id, {})); // {"jsonrpc":"2.0","id":7,"result":{}}
 * ```
 *
 * @module
 */

export {
  type CapabilityOptions,
  type DispatchResult,
  isNotificationMethod,
  LATEST_PROTOCOL_VERSION,
  lazyHandler,
  type MethodSpec,
  specOf,
} from "../mcp/server.ts";
export { type MethodFacts } from "../mcp/methods.ts";
export { type MethodGroup, type MethodRow, METHODS } from "../handlers/mod.ts";
export {
  type Cancellable,
  CLIENT_CAPABILITY_OF,
  type ClientInfo,
  type ClientRequestOptions,
  REQUEST_TIMEOUT_CODE,
  type SendFn,
  type SessionState,
} from "../mcp/session.ts";
export type {
  CreateMessageParams,
  CreateMessageResult,
  ElicitationSchema,
  ElicitParams,
  ElicitResult,
  Root,
  SamplingMessage,
} from "../mcp/client_requests.ts";
export {
  allowsLevel,
  isLoggingLevel,
  LOGGING_LEVELS,
  type LoggingLevel,
} from "../mcp/logging.ts";
export {
  type Answer,
  classify,
  decode,
  describeError,
  type DroppedMessage,
  EMPTY_RESULT,
  encodeError,
  encodeNotification,
  encodeRequest,
  encodeResult,
  idKey,
  type IncomingMessage,
  type InvalidMessage,
  type NotificationMessage,
  type RawJson,
  type RequestId,
  type RequestMessage,
  type ResponseMessage,
} from "../mcp/jsonrpc.ts";
export {
  isValidToolName,
  type ObjectSchema,
  type PropertySchema,
  type RequiredNames,
  type SchemaArgs,
  type SchemaValue,
  type ToolAnnotations,
  toolDefinition,
  ToolRegistry,
  type ToolTaskOptions,
} from "../mcp/tool.ts";
export {
  type PromptArgs,
  type PromptArgument,
  type PromptCompleter,
  type PromptCompletionContext,
  type PromptContext,
  promptDefinition,
  type PromptMessage,
  PromptRegistry,
  type PromptResult,
} from "../mcp/prompt.ts";
export {
  type Completer,
  type Completion,
  type CompletionContext,
  completionResult,
} from "../mcp/completion.ts";
export type { Icon } from "../mcp/icon.ts";
export { type SchemaDialect, schemaDialect } from "../mcp/schema_dialect.ts";
export type { SchemaCheck, SchemaFailure } from "../mcp/json_schema.ts";
export {
  decodeCursor,
  encodeCursor,
  invalidCursor,
  type Page,
  pageResult,
  paginate,
} from "../mcp/pagination.ts";
export {
  LOG_LEVELS,
  type Logger,
  type LogLevel,
  stderrLogger,
} from "../mcp/log.ts";
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
} from "../mcp/protocol_versions.ts";
export {
  type BlobResourceContents,
  type ResourceAnnotations,
  type TextResourceContents,
  uriParam,
} from "../mcp/resource.ts";
export {
  canSubscribe,
  type ChangeListener,
  SharedWatches,
  type Watchable,
} from "../mcp/watch.ts";
export {
  META,
  ModernErrorCode,
  type ModernServer,
  RequestSession,
} from "../mcp/era_2026.ts";
export {
  InputCollector,
  type InputRequest,
  InputRequiredError,
  setRequestStateKey,
} from "../mcp/mrtr.ts";
export {
  declaresListChanged,
  type ListKind,
  notifyListChanged,
} from "../mcp/list_changed.ts";
export {
  clientHasRoots,
  type ClientRoot,
  listClientRoots,
  rootsHandlers,
} from "../handlers/roots.ts";
