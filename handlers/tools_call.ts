/**
 * `tools/call`: find the tool, validate its arguments against its
 * inputSchema, run it.
 *
 * Failures a model can correct (bad arguments under 2025-11-25 and later,
 * and everything that goes wrong while the tool runs) come back as a result
 * with `isError: true`; only a call that names no tool, or (up to 2025-06-18)
 * carries invalid arguments, is a JSON-RPC error.
 *
 * @module
 */

import {
  ErrorCode,
  invalidParams,
  isObject,
  type JsonObject,
  RpcError,
} from "../mcp/jsonrpc.ts";
import type { Handler, HandlerContext } from "../mcp/server.ts";
import { formatFailures } from "../mcp/json_schema.ts";
import { toolError } from "../mcp/content.ts";
import { callResultForVersion } from "../mcp/protocol_versions.ts";
import { type Tool, ToolFailure, type ToolResult } from "../mcp/tool.ts";

/**
 * The first protocol version in which invalid tool arguments are a tool
 * execution error rather than a protocol error.
 */
export const ARGUMENT_ERRORS_AS_RESULTS_SINCE = "2025-11-25";

/** Handle `tools/call`. */
export const toolsCall: Handler = async (params, ctx) => {
  const name = params.name;
  if (typeof name !== "string") {
    throw invalidParams(
      'tools/call needs "name", a string naming a tool from tools/list.',
    );
  }
  const tool = ctx.server.tools.get(name);
  if (tool === undefined) {
    throw new RpcError(
      ErrorCode.InvalidParams,
      `Unknown tool: ${
        JSON.stringify(name.slice(0, 200))
      }; call tools/list for the names of this server's tools.`,
      { tool: name },
    );
  }
  const args = params.arguments ?? {};
  if (!isObject(args)) {
    throw invalidParams(
      '"arguments" must be an object of named arguments (or omitted).',
    );
  }
  const failures = await ctx.server.tools.validateArguments(tool, args);
  if (failures.length > 0) {
    const version = ctx.session.protocolVersion;
    if (version !== undefined && version >= ARGUMENT_ERRORS_AS_RESULTS_SINCE) {
      return toolError(
        `Invalid arguments for tool ${name}:\n${
          formatFailures(failures).join("\n")
        }\nFix them to match the tool's inputSchema (see tools/list) and call again.`,
      );
    }
    // Clients show the message alone: it lists every failure; `data`
    // keeps them structured for programs.
    throw new RpcError(
      ErrorCode.InvalidParams,
      `Invalid arguments for tool ${name}: ${
        formatFailures(failures).join("; ")
      }. Fix them to match the tool's inputSchema (see tools/list) and call again.`,
      { tool: name, errors: failures },
    );
  }
  const version = ctx.session.protocolVersion;
  // A tool that may run as a task (the tasks extension, loaded only for
  // such tools) decides with the request's capabilities how it runs.
  if (tool.task !== undefined) {
    const tasks = await import("../mcp/ext_tasks.ts");
    return await tasks.callWithTask(
      tool,
      args,
      ctx,
      tasks.taskStoreOf(ctx.server),
      async (args) => callResultForVersion(await run(tool, args, ctx), version),
      (result) => callResultForVersion(result, version),
    );
  }
  // Written for the newest version; trimmed to what the session speaks.
  return callResultForVersion(await run(tool, args, ctx), version);
};

async function run(
  tool: Tool,
  args: JsonObject,
  ctx: HandlerContext,
): Promise<ToolResult> {
  try {
    return await tool.run(args, ctx);
  } catch (error) {
    // Cancelled: the server drops the response; nothing to report.
    if (ctx.signal.aborted) throw error;
    if (error instanceof ToolFailure) return toolError(error.message);
    // A stateless request (2026-07-28) that needs a client capability its
    // _meta did not declare is refused as a whole, not as a tool error.
    if (
      error instanceof RpcError &&
      error.code === ErrorCode.MissingRequiredClientCapability
    ) throw error;
    ctx.server.loggerFor(ctx.session).log(
      "error",
      `tool ${tool.name} failed:`,
      error,
    );
    return toolError(
      `Tool ${tool.name} failed unexpectedly (${
        error instanceof Error ? error.message : String(error)
      }). Try different arguments; the server log has details.`,
    );
  }
}
