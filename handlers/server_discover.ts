/**
 * `server/discover` (MCP 2026-07-28): the versions, capabilities and
 * instructions of the server, for a client that asks before anything else
 * or probes whether the server is of the stateless era at all. The
 * server's identity and the caching hints are added to every stateless
 * result (see `mcp/era_2026.ts`).
 *
 * @module
 */

import {
  describeError,
  ErrorCode,
  type JsonObject,
  RpcError,
} from "../mcp/jsonrpc.ts";
import { isModernVersion } from "../mcp/protocol_versions.ts";
import type { Handler } from "../mcp/server.ts";

/**
 * Handle `server/discover`: `supportedVersions` lists the stateless
 * versions first (those a request's `_meta` may name), then those an
 * `initialize` negotiates.
 */
export const serverDiscover: Handler = (_params, { server, session }) => {
  if (!isModernVersion(session.protocolVersion ?? "")) {
    throw new RpcError(
      ErrorCode.MethodNotFound,
      describeError(
        ErrorCode.MethodNotFound,
        "server/discover belongs to MCP 2026-07-28, which this server does not offer; use initialize.",
      ),
    );
  }
  const result: JsonObject = {
    supportedVersions: [...server.modernVersions, ...server.protocolVersions],
    capabilities: server.capabilities,
  };
  if (server.instructions !== undefined) {
    result.instructions = server.instructions;
  }
  return result;
};
