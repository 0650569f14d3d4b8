/**
 * The library's tuning constants: the defaults its options start from and
 * the fixed caps it keeps (sizes in bytes, times in milliseconds). Each is
 * documented where it is defined; an option of the same meaning (in
 * `McpServerOptions`, `ConnectionOptions`, `HttpOptions`, …) overrides a
 * default.
 *
 * @module
 */

export { DEFAULT_PAGE_SIZE } from "../mcp/server.ts";
export { DEFAULT_CLIENT_REQUEST_TIMEOUT_MS } from "../mcp/session.ts";
export {
  DEFAULT_MAX_REQUESTS_IN_FLIGHT,
  MAX_BATCH_MESSAGES,
  MAX_CONCURRENT_REQUESTS,
  MAX_HELD_RESPONSES,
} from "../mcp/connection.ts";
export {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_TIMEOUT_MS,
} from "../mcp/transports/http.ts";
export {
  DEFAULT_HEADER_TIMEOUT_MS,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  DEFAULT_MAX_CONNECTIONS,
} from "../mcp/transports/http1.ts";
export { DEFAULT_MAX_LINE_BYTES } from "../mcp/line_stream.ts";
export { MAX_COMPLETION_VALUES } from "../mcp/completion.ts";
export { REQUEST_STATE_TTL_MS } from "../mcp/mrtr.ts";
export { ROOTS_TIMEOUT_MS } from "../handlers/roots.ts";
