/**
 * `initialize`: negotiates the protocol version and tells the client who
 * this server is and what it can do.
 *
 * @module
 */

import {
  describeError,
  ErrorCode,
  invalidParams,
  isObject,
  type JsonObject,
  RpcError,
} from "../mcp/jsonrpc.ts";
import type { Handler } from "../mcp/server.ts";
import type { ClientInfo } from "../mcp/session.ts";
import {
  capabilitiesForVersion,
  isProtocolVersion,
  serverInfoForVersion,
} from "../mcp/protocol_versions.ts";

/**
 * Handle `initialize`. The requested version is echoed when supported;
 * otherwise the server's preferred version is offered, and the client
 * decides whether to go on.
 */
export const initialize: Handler = (params, { server, session }) => {
  if (session.state !== "new") {
    throw new RpcError(
      ErrorCode.InvalidRequest,
      describeError(
        ErrorCode.InvalidRequest,
        "this session is already initialized; send initialize only once per connection.",
      ),
    );
  }
  const requested = params.protocolVersion;
  if (server.protocolVersions.length === 0) {
    // Only stateless versions: there is nothing to negotiate, and this
    // error is all a client of the handshake era can show its user.
    const supported = server.modernVersions;
    throw new RpcError(
      ErrorCode.UnsupportedProtocolVersion,
      `Unsupported protocol version: this server speaks only MCP ${
        supported.join(", ")
      }, which has no initialize; use a client that sends "io.modelcontextprotocol/protocolVersion" in each request's _meta.`,
      {
        supported,
        requested: typeof requested === "string" ? requested : null,
      },
    );
  }
  const { capabilities, clientInfo } = params;
  if (server.strictInitialize) {
    if (requested === undefined) {
      throw invalidParams(
        'initialize needs "protocolVersion" (a string such as "2025-06-18").',
      );
    }
    if (typeof requested !== "string") {
      throw invalidParams(
        '"protocolVersion" must be a string such as "2025-06-18".',
      );
    }
    if (!isObject(capabilities)) {
      throw invalidParams(
        'initialize needs "capabilities" (an object; {} when the client has none).',
      );
    }
    if (!isObject(clientInfo)) {
      throw invalidParams(
        'initialize needs "clientInfo" (an object with "name" and "version").',
      );
    }
  }
  const version = typeof requested === "string" &&
      server.protocolVersions.includes(requested)
    ? requested
    : server.protocolVersions[0];
  if (version !== requested) {
    server.loggerFor(session).log(
      "info",
      versionMismatch(requested, version, clientInfo, server.protocolVersions),
    );
  }

  session.state = "initializing";
  session.protocolVersion = version;
  session.clientCapabilities = isObject(capabilities) ? capabilities : {};
  session.clientInfo = isObject(clientInfo)
    ? clientInfo as ClientInfo
    : undefined;

  const result: JsonObject = {
    protocolVersion: version,
    capabilities: capabilitiesForVersion(server.capabilities, version),
    serverInfo: serverInfoForVersion(
      server.info as unknown as JsonObject,
      version,
    ),
  };
  if (server.instructions !== undefined) {
    result.instructions = server.instructions;
  }
  return result;
};

/**
 * One log line for a client that asked for a version this server does not
 * serve: what it asked, what it was offered, and how to serve what it
 * asked for. Many clients give up on the offer with a message of their own
 * that names no cause; this line is where the user finds it. Client text
 * is quoted (a newline cannot forge a log line) and cut.
 */
export function versionMismatch(
  requested: unknown,
  offered: string,
  clientInfo: unknown,
  served: readonly string[],
): string {
  const quote = (value: unknown) => JSON.stringify(String(value).slice(0, 100));
  const client = isObject(clientInfo)
    ? `client ${quote(clientInfo.name)} ${quote(clientInfo.version)}`
    : "a client";
  const asked = typeof requested === "string"
    ? `asked for protocol version ${quote(requested)}`
    : "gave no protocol version";
  let how = "";
  if (typeof requested === "string" && isProtocolVersion(requested)) {
    const wanted = [...served, requested].sort().join(",");
    how =
      ` To serve it too, start the server with --protocol-versions ${wanted}.`;
  } else if (typeof requested === "string") {
    how = " This server does not know that version.";
  }
  return `${client} ${asked}; this server serves ${
    served.join(", ")
  } and offered ${offered}.${how}`;
}

/** Handle `notifications/initialized`: the session is ready. */
export const initialized: Handler = (_params, { session }) => {
  if (session.state === "initializing") session.state = "ready";
};
