/**
 * In-process harness for tool tests: a server with the workspace tools
 * over a temporary fixture workspace, and a `call` that validates every
 * successful structured result against the tool's outputSchema.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { DEFAULTS, VERSION } from "../cli/flags.ts";
import { handlers } from "../handlers/mod.ts";
import { toolCaps } from "../main.ts";
import type { JsonObject } from "../mcp/jsonrpc.ts";
import { McpServer } from "../mcp/server.ts";
import { Session } from "../mcp/session.ts";
import { type ToolCaps, workspaceTools } from "../tools/mod.ts";
import { Workspace } from "../workspace/workspace.ts";

/**
 * The caps tools get in tests unless a test sets its own: those the server
 * gives them when no flag is set (the root plays no part in them).
 */
export const TEST_CAPS: ToolCaps = toolCaps({ ...DEFAULTS, root: ["."] });

/** A server over `root` and a session that finished initialize. */
export async function toolServer(
  root: string,
  options: {
    caps?: Partial<ToolCaps>;
    version?: string;
    includeIgnored?: boolean;
  } = {},
): Promise<{ server: McpServer; session: Session }> {
  const ws = await Workspace.open(root, {
    includeIgnored: options.includeIgnored,
  });
  const server = new McpServer({
    info: { name: "shipcode-mcp", version: VERSION },
    handlers,
    protocolVersions: ["2025-11-25", "2025-06-18"],
  });
  for (const tool of workspaceTools(ws, { ...TEST_CAPS, ...options.caps })) {
    server.tools.register(tool);
  }
  const session = new Session(() => {});
  await server.handle({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: options.version ?? "2025-06-18",
      capabilities: {},
      clientInfo: { name: "test", version: "1" },
    },
  }, session);
  return { server, session };
}

let nextId = 1;

/** The response to `tools/call` of `name` with `args`. */
export async function callRaw(
  server: McpServer,
  session: Session,
  name: string,
  args?: unknown,
): Promise<JsonObject> {
  const params: JsonObject = { name };
  if (args !== undefined) params.arguments = args;
  const response = await server.handle(
    { jsonrpc: "2.0", id: nextId++, method: "tools/call", params },
    session,
  );
  assert.ok(response !== undefined);
  return response;
}

/** A tool result (not a protocol error); structured results are checked. */
export async function call(
  server: McpServer,
  session: Session,
  name: string,
  args?: unknown,
): Promise<
  { content: JsonObject[]; structuredContent?: JsonObject; isError?: boolean }
> {
  const response = await callRaw(server, session, name, args);
  assert.equal(response.error, undefined, JSON.stringify(response.error));
  const result = response.result as {
    content: JsonObject[];
    structuredContent?: JsonObject;
    isError?: boolean;
  };
  const tool = server.tools.get(name);
  assert.ok(tool);
  if (!result.isError && tool.outputSchema !== undefined) {
    assert.ok(result.structuredContent, "structuredContent is missing");
    assert.deepEqual(
      await server.tools.validateOutput(tool, result.structuredContent),
      [],
    );
  }
  return result;
}

/** The text of a result's text blocks, joined. */
export function textOf(result: { content: JsonObject[] }): string {
  return result.content.filter((b) => b.type === "text").map((b) => b.text)
    .join("\n");
}
