/**
 * The conformance fixture server (`conformance_server.ts`) driven over
 * stdio by the official SDK client, once per protocol version the suite
 * tests servers at (2025-06-18 and 2025-11-25). Each row of `SCENARIOS`
 * names a server scenario of `@modelcontextprotocol/conformance`
 * 0.2.0-alpha.12, the fixture it calls, and what its checks expect; the
 * row's check asserts the same (and often more). Scenarios that test the
 * HTTP transport itself are listed in `TRANSPORT_SCENARIOS` and left to it.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import {
  Client,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  StdioClientTransport,
} from "../tests/sdk.ts";
import { DENO_RUN_FLAGS } from "../cli/run_command.ts";
import { PROJECT_ROOT } from "../tests/server_command.ts";
import {
  httpAddress,
  JSON_SCHEMA_2020_12_INPUT,
  RED_PIXEL_PNG,
  silentWav,
  WATCHED_URI,
} from "./conformance_server.ts";

const VERSIONS = ["2025-06-18", "2025-11-25"] as const;
type Version = typeof VERSIONS[number];

/** The scenarios that test the HTTP transport: run against it, not here. */
export const TRANSPORT_SCENARIOS: readonly string[] = [
  "server-session-lifecycle",
  "server-sse-polling (calls test_reconnection)",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Json = Record<string, unknown>;
type Content = {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  resource?: Json;
};

interface Connection {
  client: Client;
  version: Version;
  /** Every notification received, in order. */
  notifications: { method: string; params?: Json }[];
  /** The server's requests to the client (sampling, elicitation). */
  requests: { method: string; params: Json }[];
  /** The result of initialize, as the server sent it. */
  initialized?: Json;
}

// Answers the client gives, as the suite's client gives them.
const SAMPLING_ANSWER = {
  role: "assistant",
  content: { type: "text", text: "This is a test response from the client" },
  model: "test-model",
  stopReason: "endTurn",
};

function elicitationAnswer(params: Json): Json {
  const fields = (params.requestedSchema as Json).properties as Json;
  if ("username" in fields) {
    return {
      action: "accept",
      content: { username: "testuser", email: "test@example.com" },
    };
  }
  if ("verified" in fields) {
    return {
      action: "accept",
      content: {
        name: "Jane Smith",
        age: 25,
        score: 88,
        status: "inactive",
        verified: false,
      },
    };
  }
  return {
    action: "accept",
    content: {
      untitledSingle: "option1",
      titledSingle: "value1",
      legacyEnum: "opt1",
      untitledMulti: ["option1", "option2"],
      titledMulti: ["value1", "value2"],
    },
  };
}

/**
 * Connect the SDK client to the fixture server, asking for `version` (the
 * client itself asks for its latest; the suite rewrites the request too).
 */
async function connect(
  version: Version,
  capabilities: Json = { sampling: {}, elicitation: {} },
): Promise<Connection> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [
      "run",
      ...DENO_RUN_FLAGS,
      `${PROJECT_ROOT}examples/conformance_server.ts`,
    ],
    stderr: "ignore",
    env: { NO_COLOR: "1" },
  });
  const send = transport.send.bind(transport);
  transport.send = (message: Json, options?: Json) => {
    if (message.method === "initialize") {
      message = {
        ...message,
        params: { ...message.params as Json, protocolVersion: version },
      };
    }
    return send(message, options);
  };
  const client = new Client({ name: "conformance-test-client", version: "1" }, {
    capabilities,
  });
  const connection: Connection = {
    client,
    version,
    notifications: [],
    requests: [],
  };
  // The initialize result, before the SDK client keeps only parts of it.
  let onmessage = transport.onmessage;
  Object.defineProperty(transport, "onmessage", {
    get: () => onmessage,
    set(handler: typeof onmessage) {
      onmessage = handler === undefined
        ? undefined
        : (message: Json, extra?: Json) => {
          const result = (message as { result?: Json }).result;
          if (connection.initialized === undefined && result?.protocolVersion) {
            connection.initialized = result;
          }
          handler(message, extra);
        };
    },
  });
  client.fallbackNotificationHandler = (notification: Json) => {
    connection.notifications.push(
      notification as { method: string; params?: Json },
    );
    return Promise.resolve();
  };
  // The SDK refuses a handler for a capability the client did not declare.
  if ("sampling" in capabilities) {
    client.setRequestHandler(
      CreateMessageRequestSchema,
      (request: { method: string; params: Json }) => {
        connection.requests.push(request);
        return SAMPLING_ANSWER;
      },
    );
  }
  if ("elicitation" in capabilities) {
    client.setRequestHandler(
      ElicitRequestSchema,
      (request: { method: string; params: Json }) => {
        connection.requests.push(request);
        return elicitationAnswer(request.params);
      },
    );
  }
  await client.connect(transport);
  return connection;
}

async function call(
  c: Connection,
  name: string,
  args?: Json,
): Promise<{ content: Content[]; isError?: boolean }> {
  const result = await c.client.callTool(
    args === undefined ? { name } : { name, arguments: args },
  );
  return result as { content: Content[]; isError?: boolean };
}

function only(content: Content[], type: string): Content {
  const found = content.filter((block) => block.type === type);
  assert.equal(
    found.length,
    1,
    `one ${type} block in ${JSON.stringify(content)}`,
  );
  return found[0];
}

const decode = (base64: string) =>
  Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));

function assertPng(base64: string): void {
  assert.deepEqual(
    [...decode(base64).slice(0, 8)],
    [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
  );
}

/** The last request the server sent the client, by method. */
function lastRequest(c: Connection, method: string): Json {
  const found = c.requests.filter((r) => r.method === method).at(-1);
  assert.ok(found, `the server sent ${method}`);
  return found.params;
}

function since(c: Connection, start: number, method: string) {
  return c.notifications.slice(start).filter((n) => n.method === method);
}

interface Scenario {
  /** The suite's scenario name. */
  scenario: string;
  /** The fixture it calls. */
  fixture: string;
  /** What the suite expects. */
  expect: string;
  /** The first version the suite runs it at (default 2025-06-18). */
  from?: Version;
  /** Not a scenario of the suite at these versions: our own check. */
  ours?: boolean;
  check(c: Connection): Promise<void>;
}

/** Scenario → fixture → expected result, each checked by its row. */
const SCENARIOS: Scenario[] = [
  {
    scenario: "server-initialize",
    fixture: "initialize",
    expect:
      "the handshake completes; protocolVersion, capabilities, serverInfo",
    check(c) {
      assert.equal(c.initialized?.protocolVersion, c.version);
      assert.equal(
        c.client.getServerVersion()?.name,
        "shipcode-conformance-fixture",
      );
      assert.deepEqual(c.client.getServerCapabilities(), {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        logging: {},
        completions: {},
      });
      return Promise.resolve();
    },
  },
  {
    scenario: "ping",
    fixture: "ping",
    expect: "an empty object",
    async check(c) {
      assert.deepEqual(await c.client.ping(), {});
    },
  },
  {
    scenario: "logging-set-level",
    fixture: "logging/setLevel",
    expect: "an empty object",
    async check(c) {
      assert.deepEqual(await c.client.setLoggingLevel("info"), {});
    },
  },
  {
    scenario: "completion-complete",
    fixture: "prompt test_prompt_with_arguments, argument arg1",
    expect: "completion.values is an array",
    async check(c) {
      const ref = { type: "ref/prompt", name: "test_prompt_with_arguments" };
      const none = await c.client.complete({
        ref,
        argument: { name: "arg1", value: "test" },
      });
      assert.deepEqual(none.completion.values, []);
      const some = await c.client.complete({
        ref,
        argument: { name: "arg1", value: "par" },
      });
      assert.deepEqual(some.completion, {
        values: ["paris", "park", "party"],
        total: 3,
        hasMore: false,
      });
      const ids = await c.client.complete({
        ref: { type: "ref/resource", uri: "test://template/{id}/data" },
        argument: { name: "id", value: "1" },
      });
      assert.deepEqual(ids.completion.values, ["1", "12", "123"]);
    },
  },
  {
    scenario: "tools-list",
    fixture: "tools/list",
    expect:
      "each tool has name, description, inputSchema; names 1-128 of [A-Za-z0-9_.-]",
    async check(c) {
      const { tools } = await c.client.listTools();
      for (const tool of tools) {
        assert.match(tool.name, /^[A-Za-z0-9_.-]{1,64}$/);
        assert.ok(tool.description, `${tool.name} has a description`);
        assert.equal(tool.inputSchema.type, "object");
      }
      const names = tools.map((tool: { name: string }) => tool.name);
      for (
        const name of [
          "test_simple_text",
          "test_image_content",
          "test_audio_content",
          "test_embedded_resource",
          "test_multiple_content_types",
          "test_tool_with_logging",
          "test_tool_with_progress",
          "test_error_handling",
          "test_reconnection",
          "test_sampling",
          "test_elicitation",
          "test_elicitation_sep1034_defaults",
          "test_elicitation_sep1330_enums",
          "json_schema_2020_12_tool",
        ]
      ) assert.ok(names.includes(name), `${name} is listed`);
    },
  },
  {
    scenario: "tools-call-simple-text",
    fixture: "test_simple_text (called without arguments)",
    expect: "a text block",
    async check(c) {
      const { content } = await call(c, "test_simple_text");
      assert.deepEqual(content, [{
        type: "text",
        text: "This is a simple text response for testing.",
      }]);
    },
  },
  {
    scenario: "tools-call-image",
    fixture: "test_image_content",
    expect: "an image block with data and mimeType",
    async check(c) {
      const { content } = await call(c, "test_image_content", {});
      const image = only(content, "image");
      assert.equal(image.mimeType, "image/png");
      assertPng(image.data!);
    },
  },
  {
    scenario: "tools-call-audio",
    fixture: "test_audio_content",
    expect: "an audio block, mimeType audio/wav",
    async check(c) {
      const { content } = await call(c, "test_audio_content", {});
      const audio = only(content, "audio");
      assert.equal(audio.mimeType, "audio/wav");
      assert.equal(audio.data, silentWav());
      const bytes = decode(audio.data!);
      const text = new TextDecoder().decode(bytes.slice(0, 16));
      assert.match(text, /^RIFF....WAVEfmt $/s);
    },
  },
  {
    scenario: "tools-call-embedded-resource",
    fixture: "test_embedded_resource",
    expect: "a resource block with uri, mimeType and text",
    async check(c) {
      const { content } = await call(c, "test_embedded_resource", {});
      assert.deepEqual(only(content, "resource").resource, {
        uri: "test://embedded-resource",
        mimeType: "text/plain",
        text: "This is an embedded resource content.",
      });
    },
  },
  {
    scenario: "tools-call-mixed-content",
    fixture: "test_multiple_content_types",
    expect: "text, image and resource blocks",
    async check(c) {
      const { content } = await call(c, "test_multiple_content_types", {});
      assert.deepEqual(content.map((block) => block.type), [
        "text",
        "image",
        "resource",
      ]);
      assert.deepEqual(
        JSON.parse(only(content, "resource").resource!.text as string),
        { test: "data", value: 123 },
      );
    },
  },
  {
    scenario: "tools-call-with-logging",
    fixture: "test_tool_with_logging (after setLevel debug)",
    expect: "at least 3 notifications/message during the call",
    async check(c) {
      await c.client.setLoggingLevel("debug");
      const start = c.notifications.length;
      await call(c, "test_tool_with_logging", {});
      await sleep(50);
      assert.deepEqual(
        since(c, start, "notifications/message").map((n) => n.params),
        [
          "Tool execution started",
          "Tool processing data",
          "Tool execution completed",
        ].map((data) => ({ level: "info", data })),
      );
      // A level above info lets none of them through.
      await c.client.setLoggingLevel("warning");
      const quiet = c.notifications.length;
      await call(c, "test_tool_with_logging", {});
      await sleep(50);
      assert.deepEqual(since(c, quiet, "notifications/message"), []);
    },
  },
  {
    scenario: "tools-call-error",
    fixture: "test_error_handling",
    expect: "isError true with a text block",
    async check(c) {
      const result = await call(c, "test_error_handling", {});
      assert.equal(result.isError, true);
      assert.equal(
        result.content[0].text,
        "This tool intentionally returns an error for testing",
      );
    },
  },
  {
    scenario: "tools-call-with-progress",
    fixture: "test_tool_with_progress (with _meta.progressToken)",
    expect: "at least 3 notifications/progress, progress not decreasing",
    async check(c) {
      const seen: { progress: number; total?: number }[] = [];
      await c.client.callTool(
        { name: "test_tool_with_progress", arguments: {} },
        undefined,
        {
          onprogress: (p: { progress: number; total?: number }) =>
            seen.push({ progress: p.progress, total: p.total }),
        },
      );
      assert.deepEqual(seen, [
        { progress: 0, total: 100 },
        { progress: 50, total: 100 },
        { progress: 100, total: 100 },
      ]);
    },
  },
  {
    scenario: "tools-call-sampling",
    fixture: "test_sampling {prompt}",
    expect: "sampling/createMessage reaches the client; content returned",
    async check(c) {
      const { content } = await call(c, "test_sampling", {
        prompt: "Test prompt for sampling",
      });
      assert.deepEqual(lastRequest(c, "sampling/createMessage"), {
        messages: [{
          role: "user",
          content: { type: "text", text: "Test prompt for sampling" },
        }],
        maxTokens: 100,
      });
      assert.equal(
        content[0].text,
        "LLM response: This is a test response from the client",
      );
    },
  },
  {
    scenario: "tools-call-elicitation",
    fixture: "test_elicitation {message}",
    expect: "elicitation/create reaches the client; content returned",
    async check(c) {
      const { content } = await call(c, "test_elicitation", {
        message: "Please provide your information",
      });
      const params = lastRequest(c, "elicitation/create");
      assert.equal(params.message, "Please provide your information");
      assert.deepEqual(params.requestedSchema, {
        type: "object",
        properties: {
          username: { type: "string", description: "User's response" },
          email: { type: "string", description: "User's email address" },
        },
        required: ["username", "email"],
      });
      assert.equal(
        content[0].text,
        'User response: action=accept, content={"username":"testuser","email":"test@example.com"}',
      );
    },
  },
  {
    scenario: "elicitation-sep1034-defaults",
    fixture: "test_elicitation_sep1034_defaults",
    expect:
      "defaults: name John Doe, age 30 (integer), score 95.5, status active (enum), verified true",
    from: "2025-11-25",
    async check(c) {
      const { content } = await call(c, "test_elicitation_sep1034_defaults");
      const fields = (lastRequest(c, "elicitation/create")
        .requestedSchema as Json).properties as Record<string, Json>;
      assert.equal(fields.name.type, "string");
      assert.equal(fields.name.default, "John Doe");
      assert.equal(fields.age.type, "integer");
      assert.equal(fields.age.default, 30);
      assert.equal(fields.score.type, "number");
      assert.equal(fields.score.default, 95.5);
      assert.equal(fields.status.type, "string");
      assert.deepEqual(fields.status.enum, ["active", "inactive", "pending"]);
      assert.equal(fields.status.default, "active");
      assert.equal(fields.verified.type, "boolean");
      assert.equal(fields.verified.default, true);
      assert.match(content[0].text!, /^Elicitation completed: action=accept, /);
    },
  },
  {
    scenario: "elicitation-sep1330-enums",
    fixture: "test_elicitation_sep1330_enums",
    expect:
      "untitled and titled (oneOf) single select, legacy enumNames, untitled (items.enum) and titled (items.anyOf) multi-select",
    from: "2025-11-25",
    async check(c) {
      const { content } = await call(c, "test_elicitation_sep1330_enums");
      const f = (lastRequest(c, "elicitation/create").requestedSchema as Json)
        .properties as Record<string, Json & { items?: Json }>;
      const titled = (options: unknown) =>
        Array.isArray(options) && options.length > 0 &&
        options.every((o) =>
          typeof o.const === "string" && typeof o.title === "string"
        );
      assert.equal(f.untitledSingle.type, "string");
      assert.ok(Array.isArray(f.untitledSingle.enum));
      assert.ok(!("oneOf" in f.untitledSingle));
      assert.ok(!("enumNames" in f.untitledSingle));
      assert.equal(f.titledSingle.type, "string");
      assert.ok(titled(f.titledSingle.oneOf));
      assert.ok(!("enum" in f.titledSingle));
      assert.equal(f.legacyEnum.type, "string");
      assert.equal(
        (f.legacyEnum.enumNames as string[]).length,
        (f.legacyEnum.enum as string[]).length,
      );
      assert.equal(f.untitledMulti.type, "array");
      assert.equal(f.untitledMulti.items!.type, "string");
      assert.ok(Array.isArray(f.untitledMulti.items!.enum));
      assert.ok(!("anyOf" in f.untitledMulti.items!));
      assert.equal(f.titledMulti.type, "array");
      assert.ok(titled(f.titledMulti.items!.anyOf));
      assert.ok(!("enum" in f.titledMulti.items!));
      assert.match(content[0].text!, /^Elicitation completed: action=accept, /);
    },
  },
  {
    scenario: "json-schema-2020-12",
    fixture: "json_schema_2020_12_tool",
    expect:
      "$schema, $defs (with $anchor), additionalProperties false, allOf/anyOf, if/then/else listed as written",
    from: "2025-11-25",
    async check(c) {
      const { tools } = await c.client.listTools();
      const tool = tools.find((t: { name: string }) =>
        t.name === "json_schema_2020_12_tool"
      );
      assert.deepEqual(tool?.inputSchema, JSON_SCHEMA_2020_12_INPUT);
      // And the server validates calls by it, 2020-12 keywords included.
      const ok = await call(c, "json_schema_2020_12_tool", {
        name: "Ada",
        address: { city: "London" },
        contactMethod: "phone",
        phone: "123",
      });
      assert.equal(ok.isError, undefined);
      const bad = await call(c, "json_schema_2020_12_tool", {
        contactMethod: "phone",
        email: "ada@example.com",
      });
      assert.equal(bad.isError, true);
      assert.match(bad.content[0].text!, /required property 'phone'/);
    },
  },
  {
    scenario: "resources-list",
    fixture: "resources/list",
    expect: "each resource has uri and name",
    async check(c) {
      const { resources } = await c.client.listResources();
      // The skills' files come first (see fixtureSkills), then the rest.
      assert.deepEqual(resources.map((r: { uri: string }) => r.uri), [
        "skill://code-review/SKILL.md",
        "skill://code-review/references/checklist.md",
        "skill://code-review/references/style/naming.md",
        "skill://code-review/scripts/count_todos.sh",
        "skill://shipcode/release-notes/SKILL.md",
        "test://static-text",
        "test://static-binary",
        WATCHED_URI,
      ]);
      for (const r of resources as Json[]) {
        assert.ok(r.name);
        if (!String(r.uri).startsWith("skill://")) assert.ok(r.description);
      }
    },
  },
  {
    scenario: "resources-read-text",
    fixture: "test://static-text",
    expect: "contents[0] with uri, mimeType and text",
    async check(c) {
      const { contents } = await c.client.readResource({
        uri: "test://static-text",
      });
      assert.deepEqual(contents, [{
        uri: "test://static-text",
        mimeType: "text/plain",
        text: "This is the content of the static text resource.",
      }]);
    },
  },
  {
    scenario: "resources-read-binary",
    fixture: "test://static-binary",
    expect: "contents[0] with uri, mimeType and blob",
    async check(c) {
      const { contents } = await c.client.readResource({
        uri: "test://static-binary",
      });
      assert.equal(contents.length, 1);
      assert.equal(contents[0].mimeType, "image/png");
      assert.equal(contents[0].blob, RED_PIXEL_PNG);
      assertPng(contents[0].blob as string);
    },
  },
  {
    scenario: "resources-templates-read",
    fixture: "test://template/{id}/data, read as test://template/123/data",
    expect: "contents[0] text with the id substituted",
    async check(c) {
      const { resourceTemplates } = await c.client.listResourceTemplates();
      assert.deepEqual(
        resourceTemplates.map((t: { uriTemplate: string }) => t.uriTemplate),
        [
          "test://template/{id}/data",
        ],
      );
      const uri = "test://template/123/data";
      const { contents } = await c.client.readResource({ uri });
      assert.equal(contents[0].uri, uri);
      assert.equal(contents[0].mimeType, "application/json");
      assert.deepEqual(JSON.parse(contents[0].text as string), {
        id: "123",
        templateTest: true,
        data: "Data for ID: 123",
      });
    },
  },
  {
    scenario: "resources-subscribe, resources-unsubscribe",
    fixture: `${WATCHED_URI} (changed by test_update_watched_resource)`,
    expect:
      "subscribe and unsubscribe answer {}; updates reach only subscribers",
    async check(c) {
      const start = c.notifications.length;
      assert.deepEqual(
        await c.client.subscribeResource({ uri: WATCHED_URI }),
        {},
      );
      await call(c, "test_update_watched_resource");
      await sleep(100);
      assert.deepEqual(
        since(c, start, "notifications/resources/updated").map((n) => n.params),
        [{ uri: WATCHED_URI }],
      );
      const { contents } = await c.client.readResource({ uri: WATCHED_URI });
      assert.match(contents[0].text as string, /version \d+$/);
      assert.deepEqual(
        await c.client.unsubscribeResource({ uri: WATCHED_URI }),
        {},
      );
      const after = c.notifications.length;
      await call(c, "test_update_watched_resource");
      await sleep(100);
      assert.deepEqual(since(c, after, "notifications/resources/updated"), []);
    },
  },
  {
    scenario: "sep-2164-resource-not-found (suite: 2026-07-28 only)",
    fixture: "test://nonexistent-resource-for-conformance-testing",
    expect: "an error (not empty contents) whose data.uri is the URI",
    ours: true,
    async check(c) {
      const uri = "test://nonexistent-resource-for-conformance-testing";
      await assert.rejects(
        c.client.readResource({ uri }),
        (error: { code: number; data?: Json }) => {
          assert.equal(error.code, -32002);
          assert.deepEqual(error.data, { uri });
          return true;
        },
      );
    },
  },
  {
    scenario: "prompts-list",
    fixture: "prompts/list",
    expect: "each prompt has name and description",
    async check(c) {
      const { prompts } = await c.client.listPrompts();
      assert.deepEqual(prompts.map((p: { name: string }) => p.name), [
        // The 2026-07-28 scenarios' prompt (input required).
        "test_input_required_result_prompt",
        "test_prompt_with_arguments",
        "test_prompt_with_embedded_resource",
        "test_prompt_with_image",
        "test_simple_prompt",
      ]);
      for (const p of prompts as Json[]) assert.ok(p.description);
    },
  },
  {
    scenario: "prompts-get-simple",
    fixture: "test_simple_prompt",
    expect: "messages, each with role and content",
    async check(c) {
      const { messages } = await c.client.getPrompt({
        name: "test_simple_prompt",
      });
      assert.deepEqual(messages, [{
        role: "user",
        content: { type: "text", text: "This is a simple prompt for testing." },
      }]);
    },
  },
  {
    scenario: "prompts-get-with-args",
    fixture: "test_prompt_with_arguments {arg1, arg2}",
    expect: "both argument values appear in the messages",
    async check(c) {
      const { messages } = await c.client.getPrompt({
        name: "test_prompt_with_arguments",
        arguments: { arg1: "testValue1", arg2: "testValue2" },
      });
      assert.equal(
        (messages[0].content as Content).text,
        "Prompt with arguments: arg1='testValue1', arg2='testValue2'",
      );
      await assert.rejects(
        c.client.getPrompt({
          name: "test_prompt_with_arguments",
          arguments: { arg1: "only" },
        }),
        /arg2/,
      );
    },
  },
  {
    scenario: "prompts-get-embedded-resource",
    fixture: "test_prompt_with_embedded_resource {resourceUri}",
    expect: "a resource message",
    async check(c) {
      const { messages } = await c.client.getPrompt({
        name: "test_prompt_with_embedded_resource",
        arguments: { resourceUri: "test://example-resource" },
      });
      assert.deepEqual(messages[0].content, {
        type: "resource",
        resource: {
          uri: "test://example-resource",
          mimeType: "text/plain",
          text: "Embedded resource content for testing.",
        },
      });
      assert.equal(messages[1].content.type, "text");
    },
  },
  {
    scenario: "prompts-get-with-image",
    fixture: "test_prompt_with_image",
    expect: "an image message with data and mimeType",
    async check(c) {
      const { messages } = await c.client.getPrompt({
        name: "test_prompt_with_image",
      });
      const image = messages[0].content as Content;
      assert.equal(image.type, "image");
      assert.equal(image.mimeType, "image/png");
      assertPng(image.data!);
    },
  },
  {
    scenario: "list changes (suite: 2026-07-28's stateless scenario)",
    fixture: "test_trigger_tool_change, test_trigger_prompt_change",
    expect: "tools/list_changed and prompts/list_changed; the lists follow",
    ours: true,
    async check(c) {
      const start = c.notifications.length;
      const toolNames = async () =>
        (await c.client.listTools()).tools.map((t: { name: string }) => t.name);
      const promptNames = async () =>
        (await c.client.listPrompts()).prompts.map((p: { name: string }) =>
          p.name
        );
      await call(c, "test_trigger_tool_change");
      assert.ok((await toolNames()).includes("test_dynamic_tool"));
      assert.equal(
        (await call(c, "test_dynamic_tool")).content[0].text,
        "Dynamic tool called",
      );
      await call(c, "test_trigger_tool_change");
      assert.ok(!(await toolNames()).includes("test_dynamic_tool"));
      await call(c, "test_trigger_prompt_change");
      assert.ok((await promptNames()).includes("test_dynamic_prompt"));
      await call(c, "test_trigger_prompt_change");
      assert.ok(!(await promptNames()).includes("test_dynamic_prompt"));
      assert.deepEqual(
        c.notifications.slice(start).map((n) => n.method).filter((m) =>
          m.endsWith("/list_changed")
        ),
        [
          "notifications/tools/list_changed",
          "notifications/tools/list_changed",
          "notifications/prompts/list_changed",
          "notifications/prompts/list_changed",
        ],
      );
    },
  },
  {
    scenario: "server-sse-polling (the tool only; the stream is HTTP's)",
    fixture: "test_reconnection",
    expect: "a text result after about 100 ms",
    async check(c) {
      const { content } = await call(c, "test_reconnection");
      assert.match(content[0].text!, /^Reconnection test completed/);
    },
  },
];

for (const version of VERSIONS) {
  Deno.test(`conformance fixtures at ${version}: each scenario's checks hold`, async (t) => {
    const c = await connect(version);
    try {
      for (const row of SCENARIOS) {
        const ignore = row.from !== undefined && version < row.from;
        await t.step({
          name: `${row.scenario} → ${row.fixture}: ${row.expect}`,
          ignore,
          fn: () => row.check(c),
        });
      }
    } finally {
      await c.client.close();
    }
  });
}

Deno.test("conformance fixtures: without the client's capability, sampling and elicitation are tool errors", async () => {
  const c = await connect("2025-11-25", {});
  try {
    const sampled = await call(c, "test_sampling", { prompt: "hi" });
    assert.equal(sampled.isError, true);
    assert.match(sampled.content[0].text!, /sampling/);
    const elicited = await call(c, "test_elicitation", { message: "hi" });
    assert.equal(elicited.isError, true);
    assert.match(elicited.content[0].text!, /elicitation/);
    assert.deepEqual(c.requests, []);
  } finally {
    await c.client.close();
  }
});

Deno.test("conformance fixture: --http [HOST:]PORT names where it serves", () => {
  assert.equal(httpAddress([]), undefined);
  assert.deepEqual(httpAddress(["--http", "3001"]), {
    hostname: "127.0.0.1",
    port: 3001,
  });
  assert.deepEqual(httpAddress(["--http", "127.0.0.1:0"]), {
    hostname: "127.0.0.1",
    port: 0,
  });
  assert.deepEqual(httpAddress(["--http", "[::1]:8080"]), {
    hostname: "::1",
    port: 8080,
  });
  for (const bad of ["", "host:", "127.0.0.1:70000", "127.0.0.1:x"]) {
    assert.throws(
      () => httpAddress(["--http", bad]),
      /--http takes \[HOST:\]PORT/,
      bad,
    );
  }
  assert.throws(() => httpAddress(["--http"]), /--http takes/);
});
