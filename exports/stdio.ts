/**
 * The stdio transport: newline-delimited JSON-RPC on stdin and stdout (or
 * any byte streams). {@linkcode serveStdio} (also in the root module) runs
 * a server until end of input; {@linkcode StdioTransport} is the
 * transport itself, for `serve` from `./transport`.
 *
 * @example Serve a server on stdin and stdout
 * ```ts ignore
 * import { handlers, McpServer } from "../mod.ts";
 * import { serveStdio } from "./stdio.ts";
 *
 * await serveStdio(
 *   new McpServer({ handlers, info: { name: "example", version: "1.0.0" } }),
 * );
 * ```
 *
 * @module
 */

export {
  type ByteWriter,
  serveStdio,
  type StdioOptions,
  StdioTransport,
  type StdioTransportOptions,
} from "../mcp/transports/stdio.ts";
