import { strict as assert } from "node:assert";
import { decode, type JsonObject } from "../mcp/jsonrpc.ts";
import type { Logger } from "../mcp/log.ts";
import { McpServer } from "../mcp/server.ts";
import { Session } from "../mcp/session.ts";
import { defineTool, ToolFailure } from "../mcp/tool.ts";
import { initialize } from "./initialize.ts";
import { METHODS } from "./mod.ts";
import { toolsCall } from "./tools_call.ts";

/** Resolved once the tool "waits" runs. */
let waiting = Promise.withResolvers<void>();

/** A tool per outcome `tools/call` tells apart. */
const tools = [
  defineTool({
    name: "echo",
    description: "Answers with its arguments.",
    inputSchema: {
      type: "object",
      properties: {
        path: { type: "string" },
        times: { type: "integer", minimum: 1 },
      },
      required: ["path"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: { path: { type: "string" } },
      required: ["path"],
    },
    run: (args) => ({
      content: [{ type: "text", text: args.path.repeat(args.times ?? 1) }],
      structuredContent: { path: args.path },
    }),
  }),
  defineTool({
    name: "optional",
    description: "Takes nothing it needs.",
    inputSchema: { type: "object", properties: { n: { type: "integer" } } },
    run: (args) => ({
      content: [{ type: "text", text: `n=${args.n ?? "none"}` }],
    }),
  }),
  defineTool({
    name: "refuses",
    description: "Fails the way a tool reports what the caller can fix.",
    inputSchema: { type: "object" },
    run: () => {
      throw new ToolFailure("No such file: a.txt. List the directory first.");
    },
  }),
  defineTool({
    name: "breaks",
    description: "Fails the way a bug does.",
    inputSchema: { type: "object" },
    run: () => Promise.reject(new TypeError("internal detail 42")),
  }),
  defineTool({
    name: "waits",
    description: "Waits to be cancelled, then throws.",
    inputSchema: { type: "object" },
    run: async (_args, { signal }) => {
      waiting.resolve();
      await new Promise((resolve) =>
        signal.addEventListener("abort", resolve, { once: true })
      );
      throw new Error("aborted while waiting");
    },
  }),
];

function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    level: "debug",
    lines,
    log(level, message, detail) {
      lines.push(
        `${level} ${message} ${
          detail instanceof Error ? detail.stack : detail ?? ""
        }`,
      );
    },
  };
}

/** A server with the tools above and a session initialized at `version`. */
async function initialized(version: string) {
  const logger = memoryLogger();
  const server = new McpServer({
    info: { name: "example-mcp", version: "1.0.0" },
    handlers: { "initialize": initialize, "tools/call": toolsCall },
    protocolVersions: ["2025-11-25", "2025-06-18", "2025-03-26"],
    logger,
  });
  for (const tool of tools) server.tools.register(tool);
  const session = new Session(() => {});
  const answer = await server.handle({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: "test", version: "1" },
    },
  }, session);
  assert.equal((answer?.result as JsonObject).protocolVersion, version);
  let nextId = 1;
  /** The whole response to `tools/call` with `params`. */
  const callRaw = async (params: unknown) =>
    (await server.handle(
      { jsonrpc: "2.0", id: nextId++, method: "tools/call", params },
      session,
    ))!;
  /** A result (not a protocol error) of calling `name` with `args`. */
  const call = async (name: string, args?: unknown) => {
    const response = await callRaw({ name, arguments: args });
    assert.equal(response.error, undefined, JSON.stringify(response.error));
    return response.result as {
      content: { type: string; text: string }[];
      structuredContent?: JsonObject;
      isError?: boolean;
    };
  };
  return { server, session, logger, callRaw, call };
}

const VERSIONS = ["2025-06-18", "2025-11-25"];

Deno.test("tools/call: runs the tool with its arguments; omitted arguments are {}", async () => {
  for (const version of VERSIONS) {
    const { call } = await initialized(version);
    assert.deepEqual(await call("echo", { path: "ab", times: 2 }), {
      content: [{ type: "text", text: "abab" }],
      structuredContent: { path: "ab" },
    });
    assert.deepEqual(
      (await call("optional")).content,
      [{ type: "text", text: "n=none" }],
    );
  }
});

Deno.test("tools/call: an unknown tool or a missing name is -32602 in every version", async () => {
  for (const version of VERSIONS) {
    const { callRaw } = await initialized(version);
    const unknown = await callRaw({ name: "nope", arguments: {} });
    assert.deepEqual(unknown.error, {
      code: -32602,
      message:
        `Unknown tool: "nope"; call tools/list for the names of this server's tools.`,
      data: { tool: "nope" },
    });
    for (const params of [{}, { name: 7 }]) {
      const error = (await callRaw(params)).error as {
        code: number;
        message: string;
      };
      assert.equal(error.code, -32602);
      assert.match(error.message, /tools\/call needs "name"/);
    }
  }
});

Deno.test("tools/call: arguments that are not an object are -32602 in every version", async () => {
  for (const version of VERSIONS) {
    const { callRaw } = await initialized(version);
    for (const args of ["src/main.ts", [1], 3]) {
      const error = (await callRaw({ name: "echo", arguments: args }))
        .error as { code: number; message: string };
      assert.equal(error.code, -32602, JSON.stringify(args));
      assert.match(error.message, /"arguments" must be an object/);
    }
  }
});

Deno.test("tools/call: invalid arguments are -32602 up to 2025-06-18, listing every failure", async () => {
  const { callRaw } = await initialized("2025-06-18");
  const invalid = await callRaw({ name: "echo", arguments: { path: 3 } });
  const error = invalid.error as {
    code: number;
    message: string;
    data: { tool: string; errors: { path: string }[] };
  };
  assert.equal(error.code, -32602);
  // The message alone tells a client's user what to fix.
  assert.match(
    error.message,
    /^Invalid arguments for tool echo: arguments\/path: must be string\./,
  );
  assert.equal(error.data.tool, "echo");
  assert.deepEqual(error.data.errors.map((e) => e.path), ["/path"]);
  const two = (await callRaw({
    name: "echo",
    arguments: { times: 0, extra: true },
  })).error as { message: string; data: { errors: unknown[] } };
  assert.ok(two.data.errors.length >= 2, JSON.stringify(two.data));
  assert.match(two.message, /; /);
});

Deno.test("tools/call: invalid arguments are a result with isError from 2025-11-25", async () => {
  const { call } = await initialized("2025-11-25");
  const soft = await call("echo", { path: 3 });
  assert.equal(soft.isError, true);
  assert.equal(soft.structuredContent, undefined);
  assert.match(
    soft.content[0].text,
    /^Error: Invalid arguments for tool echo:\narguments\/path: must be string/,
  );
  assert.match(soft.content[0].text, /inputSchema/);
});

Deno.test("tools/call: a ToolFailure is a result with isError and its message, not logged", async () => {
  const { call, logger } = await initialized("2025-06-18");
  assert.deepEqual(await call("refuses", {}), {
    content: [{
      type: "text",
      text: "Error: No such file: a.txt. List the directory first.",
    }],
    isError: true,
  });
  assert.deepEqual(logger.lines.filter((l) => l.startsWith("error")), []);
});

Deno.test("tools/call: any other error is a result with isError; the detail goes to the log", async () => {
  const { call, logger } = await initialized("2025-06-18");
  const result = await call("breaks", {});
  assert.equal(result.isError, true);
  assert.match(
    result.content[0].text,
    /^Error: Tool breaks failed unexpectedly \(internal detail 42\)\..*log/,
  );
  // The stack is for the operator, never for the client.
  assert.ok(!result.content[0].text.includes("at "), result.content[0].text);
  const log = logger.lines.join("\n");
  assert.match(log, /^error tool breaks failed:/m);
  assert.match(log, /TypeError: internal detail 42\n\s+at /);
});

Deno.test("tools/call: a cancelled call is not answered, whatever its tool throws", async () => {
  const { server, session, logger } = await initialized("2025-06-18");
  waiting = Promise.withResolvers<void>();
  const pending = server.handle({
    jsonrpc: "2.0",
    id: "w",
    method: "tools/call",
    params: { name: "waits", arguments: {} },
  }, session);
  await waiting.promise;
  session.cancel("w", "the user gave up");
  assert.equal(await pending, undefined);
  assert.deepEqual(logger.lines.filter((l) => l.startsWith("error")), []);
});

Deno.test("tools/call: the result is trimmed to what the session's version defines", async () => {
  const old = await initialized("2025-03-26");
  assert.deepEqual(await old.call("echo", { path: "a" }), {
    content: [{ type: "text", text: "a" }],
  });
  const current = await initialized("2025-06-18");
  assert.deepEqual(
    (await current.call("echo", { path: "a" })).structuredContent,
    { path: "a" },
  );
});

Deno.test("tools/call under 2026-07-28: a tool needing an undeclared capability refuses the call (-32021); a named input key keys its input request", async () => {
  const server = new McpServer({
    handlers: {
      "tools/call": { ...METHODS["tools/call"], handler: toolsCall },
    },
    info: { name: "t", version: "1" },
    protocolVersions: ["2026-07-28"],
  });
  const none = { type: "object" as const, properties: {} };
  server.tools.register(defineTool({
    name: "ask",
    description: "Asks the user's name.",
    inputSchema: none,
    run: async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: "Name?",
        requestedSchema: {
          type: "object",
          properties: { name: { type: "string" } },
        },
      }, { inputKey: "user_name" });
      return { content: [{ type: "text", text: JSON.stringify(answer) }] };
    },
  }));
  server.tools.register(defineTool({
    name: "needs_sampling",
    description: "Samples the client's model.",
    inputSchema: none,
    run: async (_args, ctx) => {
      await ctx.sample({ messages: [], maxTokens: 1 });
      return { content: [] };
    },
  }));
  const session = new Session(() => {});
  const call = async (id: number, params: JsonObject, capabilities = {}) => {
    const line = await server.dispatch(
      decode(JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: {
          arguments: {},
          ...params,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
          },
        },
      })),
      session,
    );
    return JSON.parse(line!);
  };
  const refused = await call(1, { name: "needs_sampling" });
  assert.equal(refused.error?.code, -32021);
  assert.deepEqual(refused.error.data, {
    requiredCapabilities: { sampling: {} },
  });
  const asked = await call(2, { name: "ask" }, { elicitation: {} });
  assert.equal(asked.result.resultType, "input_required");
  assert.deepEqual(Object.keys(asked.result.inputRequests), ["user_name"]);
  const done = await call(3, {
    name: "ask",
    inputResponses: {
      user_name: { action: "accept", content: { name: "Ann" } },
    },
    requestState: asked.result.requestState,
  }, { elicitation: {} });
  assert.equal(done.result.resultType, "complete");
  assert.match(done.result.content[0].text, /"name":"Ann"/);
});
