/**
 * Streamable HTTP: {@linkcode serveHttp} serves one `McpServer` to many
 * sessions over HTTP/1.1 (sessions, SSE streams, resumption, origin and
 * host checks), until the returned {@linkcode HttpServer} is shut down.
 * Its defaults are in `./limits`.
 *
 * @example Serve on 127.0.0.1:3000
 * ```ts ignore
 * import { handlers, McpServer } from "../mod.ts";
 * import { serveHttp } from "./http.ts";
 *
 * const server = new McpServer({
 *   handlers,
 *   info: { name: "example", version: "1.0.0" },
 * });
 * const http = serveHttp(server, { hostname: "127.0.0.1", port: 3000 });
 * console.error(`serving MCP at ${http.url}`);
 * await http.finished;
 * ```
 *
 * @module
 */

export {
  type HttpOptions,
  type HttpServer,
  serveHttp,
} from "../mcp/transports/http.ts";
