/**
 * Prompts and completion in-process, through the method maps: results of
 * every content kind, argument checks, completers with the other
 * arguments, the 100-value cap, template completion through the resource
 * provider, and what each protocol version sees.
 */

import { strict as assert } from "node:assert";
import { completionHandlers, handlers, promptHandlers } from "./mod.ts";
import type { JsonObject } from "../mcp/jsonrpc.ts";
import type { CompletionContext } from "../mcp/completion.ts";
import { definePrompt } from "../mcp/prompt.ts";
import type { ResourceProvider } from "../mcp/resource.ts";
import { McpServer } from "../mcp/server.ts";
import { Session } from "../mcp/session.ts";

const ICON = { src: "https://example.com/i.png", mimeType: "image/png" };

function server(): McpServer {
  const s = new McpServer({
    handlers: { ...handlers, ...promptHandlers, ...completionHandlers },
    info: { name: "t", version: "1", icons: [ICON] },
    protocolVersions: ["2025-11-25", "2025-06-18", "2024-11-05"],
  });
  s.prompts.register(definePrompt({
    name: "show",
    title: "Show",
    description: "Every kind of message.",
    icons: [ICON],
    arguments: [
      { name: "what", title: "What", required: true },
      { name: "how", description: "How" },
    ],
    get: (args) => ({
      description: `showing ${args.what}`,
      messages: [
        { role: "user", content: { type: "text", text: args.what } },
        {
          role: "assistant",
          content: { type: "image", data: "AAAA", mimeType: "image/png" },
        },
        {
          role: "user",
          content: {
            type: "resource",
            resource: {
              uri: "file:///a.txt",
              mimeType: "text/plain",
              text: "a",
            },
          },
        },
        {
          role: "user",
          content: { type: "resource_link", uri: "file:///b.txt", name: "b" },
        },
      ],
    }),
  }));
  const seen: Record<string, string>[] = [];
  s.prompts.register(definePrompt({
    name: "pick",
    arguments: [
      { name: "first" },
      {
        name: "second",
        complete: (value: string, context: CompletionContext) => {
          seen.push({ ...context.arguments });
          return Array.from(
            { length: 150 },
            (_, i) => `${context.arguments.first ?? "x"}${value}${i}`,
          );
        },
      },
      { name: "third", complete: () => ({ values: ["a"], total: 7 }) },
    ],
    get: () => ({ messages: [] }),
  }));
  (s as unknown as { seen: typeof seen }).seen = seen;
  return s;
}

async function call(
  s: McpServer,
  session: Session,
  method: string,
  params: JsonObject,
): Promise<JsonObject> {
  const answer = await s.handle(
    { jsonrpc: "2.0", id: 1, method, params },
    session,
  );
  return answer as JsonObject;
}

async function session(s: McpServer, version: string): Promise<Session> {
  const session = new Session(() => {});
  await call(s, session, "initialize", {
    protocolVersion: version,
    capabilities: {},
    clientInfo: { name: "c", version: "1" },
  });
  return session;
}

Deno.test("prompts/get: text, image, embedded resource and link messages", async () => {
  const s = server();
  const result = (await call(s, await session(s, "2025-11-25"), "prompts/get", {
    name: "show",
    arguments: { what: "hi" },
  })).result as JsonObject;
  assert.deepEqual(Object.keys(result), ["description", "messages"]);
  const types = (result.messages as JsonObject[]).map((m) =>
    (m.content as JsonObject).type
  );
  assert.deepEqual(types, ["text", "image", "resource", "resource_link"]);
});

Deno.test("prompts/get: before 2025-06-18 a resource_link becomes text", async () => {
  const s = server();
  const result = (await call(s, await session(s, "2024-11-05"), "prompts/get", {
    name: "show",
    arguments: { what: "hi" },
  })).result as JsonObject;
  const last = (result.messages as JsonObject[])[3].content;
  assert.deepEqual(last, { type: "text", text: "b: file:///b.txt" });
});

Deno.test("prompts/get: argument errors are -32602 and name the argument", async () => {
  const s = server();
  const ses = await session(s, "2025-11-25");
  const cases: [JsonObject, RegExp][] = [
    [{ name: "show" }, /missing required argument "what" of prompt show/],
    [{ name: "show", arguments: { how: "x" } }, /argument "what"/],
    [
      { name: "show", arguments: { what: 1 } },
      /argument "what" must be a string/,
    ],
    [
      { name: "show", arguments: { what: "a", why: "b" } },
      /unknown argument "why"; prompt show takes what, how/,
    ],
    [{ name: "nope" }, /^Unknown prompt: "nope"/],
    [{}, /needs "name"/],
  ];
  for (const [params, message] of cases) {
    const error = (await call(s, ses, "prompts/get", params))
      .error as JsonObject;
    assert.equal(error.code, -32602, JSON.stringify(params));
    assert.match(error.message as string, message);
  }
});

Deno.test("prompts/list: title and icons by protocol version", async () => {
  const s = server();
  const list = async (version: string) =>
    ((await call(s, await session(s, version), "prompts/list", {}))
      .result as { prompts: JsonObject[] }).prompts[1];
  const newest = await list("2025-11-25");
  assert.deepEqual(Object.keys(newest), [
    "name",
    "title",
    "description",
    "arguments",
    "icons",
  ]);
  assert.deepEqual(newest.icons, [ICON]);
  const middle = await list("2025-06-18");
  assert.deepEqual(Object.keys(middle), [
    "name",
    "title",
    "description",
    "arguments",
  ]);
  assert.deepEqual((middle.arguments as JsonObject[])[0], {
    name: "what",
    title: "What",
    required: true,
  });
  const oldest = await list("2024-11-05");
  assert.deepEqual(Object.keys(oldest), ["name", "description", "arguments"]);
  assert.deepEqual((oldest.arguments as JsonObject[])[0], {
    name: "what",
    required: true,
  });
});

Deno.test("initialize: serverInfo icons only under 2025-11-25", async () => {
  const s = server();
  const info = async (version: string) => {
    const ses = new Session(() => {});
    const answer = await call(s, ses, "initialize", {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: "c", version: "1" },
    });
    return (answer.result as JsonObject).serverInfo;
  };
  assert.deepEqual(await info("2025-11-25"), {
    name: "t",
    version: "1",
    icons: [ICON],
  });
  assert.deepEqual(await info("2025-06-18"), { name: "t", version: "1" });
});

Deno.test("completion/complete: a completer gets the other arguments; 100 values at most", async () => {
  const s = server();
  const ses = await session(s, "2025-11-25");
  const answer = await call(s, ses, "completion/complete", {
    ref: { type: "ref/prompt", name: "pick" },
    argument: { name: "second", value: "v" },
    context: { arguments: { first: "F" } },
  });
  const completion = (answer.result as JsonObject).completion as JsonObject;
  assert.equal((completion.values as string[]).length, 100);
  assert.equal((completion.values as string[])[0], "Fv0");
  assert.equal(completion.total, 150);
  assert.equal(completion.hasMore, true);
  assert.deepEqual((s as unknown as { seen: unknown[] }).seen, [{
    first: "F",
  }]);

  const third = await call(s, ses, "completion/complete", {
    ref: { type: "ref/prompt", name: "pick" },
    argument: { name: "third", value: "" },
  });
  assert.deepEqual((third.result as JsonObject).completion, {
    values: ["a"],
    total: 7,
    hasMore: true,
  });
  const none = await call(s, ses, "completion/complete", {
    ref: { type: "ref/prompt", name: "pick" },
    argument: { name: "first", value: "" },
  });
  assert.deepEqual((none.result as JsonObject).completion, {
    values: [],
    total: 0,
    hasMore: false,
  });
});

Deno.test("completion/complete: template variables through the provider", async () => {
  const s = server();
  const calls: unknown[] = [];
  const provider: Partial<ResourceProvider> = {
    templates: () => [{ uriTemplate: "mem:///{+path}{?rev}", name: "m" }],
    complete: (uriTemplate, variable, value, context) => {
      calls.push([uriTemplate, variable, value, context.arguments]);
      return Promise.resolve({ values: [`${value}done`] });
    },
  };
  s.resources = provider as ResourceProvider;
  const ses = await session(s, "2025-11-25");
  const answer = await call(s, ses, "completion/complete", {
    ref: { type: "ref/resource", uri: "mem:///{+path}{?rev}" },
    argument: { name: "rev", value: "r" },
    context: { arguments: { path: "a" } },
  });
  assert.deepEqual((answer.result as JsonObject).completion, {
    values: ["rdone"],
    total: 1,
    hasMore: false,
  });
  assert.deepEqual(calls, [["mem:///{+path}{?rev}", "rev", "r", {
    path: "a",
  }]]);
  const unknown = await call(s, ses, "completion/complete", {
    ref: { type: "ref/resource", uri: "mem:///{other}" },
    argument: { name: "path", value: "" },
  });
  assert.equal((unknown.error as JsonObject).code, -32602);
  assert.match(
    (unknown.error as JsonObject).message as string,
    /unknown resource template "mem:\/\/\/\{other\}"/,
  );
});
