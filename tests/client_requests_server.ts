/**
 * A server built with the library (`mod.ts`) whose tools ask the client
 * things: sampling, a form (elicitation), its roots; plus one that logs
 * and one that reports progress. The workspace server has no tool that
 * samples, so the end-to-end tests of these requests run against this
 * one. Run: `deno run --allow-read client_requests_server.ts`, or with
 * `--allow-net=127.0.0.1` and `--http [HOST:]PORT` over Streamable HTTP
 * (the URL is printed to stderr).
 *
 * @module
 */

import {
  defineTool,
  handlers,
  McpServer,
  RpcError,
  serveStdio,
  textContent,
} from "../mod.ts";
import { serveHttp } from "../exports/http.ts";
import { parseAddress } from "../cli/flags.ts";
import { loggingHandlers, modernHandlers } from "../handlers/mod.ts";

/** The failure of a request to the client, as text a test can match. */
function failure(error: unknown): string {
  return error instanceof RpcError
    ? `error ${error.code}: ${error.message}`
    : `error: ${(error as Error).message}`;
}

const server = new McpServer({
  handlers: { ...handlers, ...loggingHandlers, ...modernHandlers },
  info: { name: "client-requests-test", version: "1.0.0" },
  // 2026-07-28 too: its clients get what they ask as input_required results.
  protocolVersions: ["2025-11-25", "2025-06-18", "2026-07-28"],
});

server.tools.register(defineTool({
  name: "ask_model",
  description: "Asks the client's model to answer a question.",
  inputSchema: {
    type: "object",
    properties: { question: { type: "string" } },
    required: ["question"],
  },
  async run(args, ctx) {
    try {
      const answer = await ctx.sample({
        messages: [{
          role: "user",
          content: { type: "text", text: args.question },
        }],
        maxTokens: 50,
      });
      const content = answer.content as { text?: string };
      return { content: [textContent(`${answer.model}: ${content.text}`)] };
    } catch (error) {
      return { content: [textContent(failure(error))] };
    }
  },
}));

server.tools.register(defineTool({
  name: "ask_user",
  description: "Asks the user to fill in a form.",
  inputSchema: { type: "object", properties: {} },
  async run(_args, ctx) {
    try {
      const answer = await ctx.elicit({
        message: "Who are you?",
        requestedSchema: {
          type: "object",
          properties: {
            name: { type: "string", title: "Name", default: "Ada" },
            size: {
              type: "string",
              oneOf: [
                { const: "s", title: "Small" },
                { const: "l", title: "Large" },
              ],
              default: "s",
            },
            tags: {
              type: "array",
              items: { type: "string", enum: ["x", "y", "z"] },
              default: ["x"],
            },
          },
          required: ["name"],
        },
      });
      return { content: [textContent(JSON.stringify(answer))] };
    } catch (error) {
      return { content: [textContent(failure(error))] };
    }
  },
}));

server.tools.register(defineTool({
  name: "list_roots",
  description: "Lists the client's roots.",
  inputSchema: {
    type: "object",
    properties: { timeoutMs: { type: "integer" } },
  },
  async run(args, ctx) {
    try {
      const roots = await ctx.listRoots({ timeoutMs: args.timeoutMs });
      return { content: [textContent(roots.map((r) => r.uri).join("\n"))] };
    } catch (error) {
      return { content: [textContent(failure(error))] };
    }
  },
}));

server.tools.register(defineTool({
  name: "log",
  description: "Logs a record at each level.",
  inputSchema: { type: "object", properties: {} },
  run(_args, ctx) {
    for (const level of ["debug", "info", "warning", "error"] as const) {
      ctx.log(level, { level }, "test");
    }
    return { content: [textContent("logged")] };
  },
}));

const at = Deno.args.indexOf("--http");
if (at < 0) {
  await serveStdio(server);
} else {
  const http = serveHttp(server, parseAddress(Deno.args[at + 1] ?? ""));
  console.error(`serving MCP at ${http.url}`);
  Deno.addSignalListener("SIGTERM", () => http.shutdown());
  await http.finished;
}
