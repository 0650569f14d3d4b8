/**
 * The fixture server of the official MCP conformance suite
 * (`@modelcontextprotocol/conformance`), built with this library alone:
 * the tools, resources and prompts its server scenarios call, by the names
 * and with the behaviour they check, plus logging, completion, resource
 * subscriptions and list changes.
 *
 * {@linkcode createConformanceServer} makes the server and knows no
 * transport; run as a program this module serves it on stdio, or with
 * `--http [HOST:]PORT` over Streamable HTTP at `/mcp` (port 0 picks a free
 * one; the URL is printed to stderr), which is how the conformance suite
 * tests it (`deno task conformance`):
 *
 * ```sh
 * deno run --allow-read --allow-sys=uid --no-prompt examples/conformance_server.ts
 * deno run --allow-read --allow-net=127.0.0.1:3001 --allow-sys=uid --no-prompt examples/conformance_server.ts --http 127.0.0.1:3001
 * ```
 *
 * Fixtures beyond the 2025-06-18 and 2025-11-25 scenarios:
 * `test_trigger_tool_change` and `test_trigger_prompt_change` (named as
 * the suite's later list-change scenarios name them) add or remove a tool
 * or prompt, and `test_update_watched_resource` changes
 * `test://watched-resource`, so that list changes and subscriptions can be
 * seen to work.
 *
 * @module
 */

import {
  audioContent,
  capabilitiesOf,
  completionHandlers,
  type ContentBlock,
  definePrompt,
  defineTool,
  type Handler,
  type HandlerMap,
  handlers,
  imageContent,
  loggingHandlers,
  McpServer,
  modernHandlers,
  promptHandlers,
  type Resource,
  type ResourceChanges,
  type ResourceContents,
  resourceNotFound,
  type ResourcePage,
  type ResourceProvider,
  type ResourceTemplate,
  type ResourceWatch,
  RpcError,
  serveStdio,
  type Session,
  textContent,
  watchResources,
} from "../mod.ts";
import {
  invalidCursor,
  METHODS,
  MODERN_PROTOCOL_VERSIONS,
  PROTOCOL_VERSIONS,
} from "../exports/protocol.ts";
import { serveHttp } from "../exports/http.ts";
import {
  skillHandlers,
  SKILLS_EXTENSION,
  skillsCapability,
} from "../exports/extensions/skills.ts";
import { taskHandlers, TASKS_EXTENSION } from "../exports/extensions/tasks.ts";
import {
  form,
  registerSkillFixtures,
  registerTaskFixtures,
} from "./conformance_extensions.ts";

/** A 1×1 red PNG, base64: the image of the image fixtures. */
export const RED_PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

/**
 * A short silent WAV (8 kHz, 8-bit mono, `samples` long), base64: the
 * audio of the audio fixture.
 */
export function silentWav(samples = 800): string {
  const bytes = new Uint8Array(44 + samples);
  const view = new DataView(bytes.buffer);
  const ascii = (at: number, text: string) => {
    for (let i = 0; i < text.length; i++) {
      bytes[at + i] = text.charCodeAt(i);
    }
  };
  ascii(0, "RIFF");
  view.setUint32(4, 36 + samples, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  view.setUint32(16, 16, true); // Size of the fmt chunk.
  view.setUint16(20, 1, true); // PCM.
  view.setUint16(22, 1, true); // Mono.
  view.setUint32(24, 8000, true); // Sample rate.
  view.setUint32(28, 8000, true); // Byte rate.
  view.setUint16(32, 1, true); // Block align.
  view.setUint16(34, 8, true); // Bits per sample.
  ascii(36, "data");
  view.setUint32(40, samples, true);
  bytes.fill(128, 44); // Silence, in unsigned 8-bit PCM.
  return btoa(String.fromCharCode(...bytes));
}

/** The resource the subscription fixtures watch. */
export const WATCHED_URI = "test://watched-resource";

const TEMPLATE = "test://template/{id}/data";
const TEMPLATE_URI = /^test:\/\/template\/([^/?#]+)\/data$/;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });

/**
 * The `test://` resources: two static ones, one that changes on demand
 * (and reports it to whoever watches), and the template
 * `test://template/{id}/data`, whose `id` completes from a few samples.
 */
export class FixtureResources implements ResourceProvider {
  readonly #listeners = new Set<(changes: ResourceChanges) => void>();
  #watched = "Watched resource content";
  #version = 0;

  /** The static resources, in `resources/list` order. */
  resources(): Resource[] {
    return [
      {
        uri: "test://static-text",
        name: "static-text",
        title: "Static text resource",
        description: "A static text resource for testing.",
        mimeType: "text/plain",
      },
      {
        uri: "test://static-binary",
        name: "static-binary",
        title: "Static binary resource",
        description: "A static binary resource (a PNG image) for testing.",
        mimeType: "image/png",
      },
      {
        uri: WATCHED_URI,
        name: "watched-resource",
        title: "Watched resource",
        description:
          "A resource to subscribe to; test_update_watched_resource changes it.",
        mimeType: "text/plain",
      },
    ];
  }

  list(after: string | undefined, limit: number): Promise<ResourcePage> {
    const all = this.resources();
    let start = 0;
    if (after !== undefined) {
      start = all.findIndex((resource) => resource.uri === after) + 1;
      if (start === 0) return Promise.reject(invalidCursor());
    }
    const resources = all.slice(start, start + limit);
    const page: ResourcePage = { resources };
    if (start + limit < all.length) page.nextKey = resources.at(-1)!.uri;
    return Promise.resolve(page);
  }

  templates(): readonly ResourceTemplate[] {
    return [{
      uriTemplate: TEMPLATE,
      name: "template",
      title: "Template resource",
      description: "Data for the id in the URI.",
      mimeType: "application/json",
    }];
  }

  read(uri: string): Promise<ResourceContents[]> {
    switch (uri) {
      case "test://static-text":
        return Promise.resolve([{
          uri,
          mimeType: "text/plain",
          text: "This is the content of the static text resource.",
        }]);
      case "test://static-binary":
        return Promise.resolve([{
          uri,
          mimeType: "image/png",
          blob: RED_PIXEL_PNG,
        }]);
      case WATCHED_URI:
        return Promise.resolve([{
          uri,
          mimeType: "text/plain",
          text: this.#watched,
        }]);
    }
    const match = TEMPLATE_URI.exec(uri);
    if (match === null) return Promise.reject(resourceNotFound(uri));
    const id = decodeURIComponent(match[1]);
    return Promise.resolve([{
      uri,
      mimeType: "application/json",
      text: JSON.stringify({
        id,
        templateTest: true,
        data: `Data for ID: ${id}`,
      }),
    }]);
  }

  async canonicalUri(uri: string): Promise<string> {
    await this.read(uri); // Throws -32002 for a URI that names nothing.
    return uri;
  }

  normalizeUri(uri: string): string | undefined {
    return uri.startsWith("test://") ? uri : undefined;
  }

  watch(listener: (changes: ResourceChanges) => void): ResourceWatch {
    this.#listeners.add(listener);
    return { close: () => this.#listeners.delete(listener) };
  }

  complete(
    uriTemplate: string,
    variable: string,
    value: string,
  ): Promise<{ values: string[] } | undefined> {
    if (uriTemplate !== TEMPLATE || variable !== "id") {
      return Promise.resolve(undefined);
    }
    const ids = ["1", "12", "123", "42"];
    return Promise.resolve({
      values: ids.filter((id) => id.startsWith(value)),
    });
  }

  /** Change the watched resource and tell every watcher. */
  updateWatched(): string {
    this.#watched = `Watched resource content, version ${++this.#version}`;
    for (const listener of this.#listeners) {
      listener({ updated: [WATCHED_URI], listChanged: false });
    }
    return this.#watched;
  }
}

// One watch per session that subscribed, started by its first
// resources/subscribe: sessions that never subscribe cost nothing, and
// whichever transport serves the server needs to know nothing of it.
function watchingSubscribe(subscribe: Handler): Handler {
  const watching = new WeakSet<Session>();
  return async (params, ctx) => {
    const result = await subscribe(params, ctx);
    if (!watching.has(ctx.session)) {
      watching.add(ctx.session);
      const watch = watchResources(ctx.server, ctx.session);
      if (watch !== undefined) ctx.session.onClose(() => watch.close());
    }
    return result;
  };
}

const NO_ARGUMENTS = { type: "object", properties: {} } as const;

/** The inputSchema of `json_schema_2020_12_tool`, exactly as the suite lists it. */
export const JSON_SCHEMA_2020_12_INPUT = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      $anchor: "addressDef",
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
    },
  },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" },
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: {
    properties: { contactMethod: { const: "phone" } },
    required: ["contactMethod"],
  },
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
} as const;

/** The failure of a request to the client, as the text of a tool error. */
function clientFailure(what: string, error: unknown) {
  const reason = error instanceof RpcError
    ? `${error.message} (code ${error.code})`
    : (error as Error).message;
  return {
    content: [
      textContent(`The ${what} request to the client failed: ${reason}`),
    ],
    isError: true,
  };
}

/**
 * Make the conformance fixture server: every method of the library
 * (tools, resources with subscriptions, prompts, completion, logging), the
 * capabilities with `listChanged` and `subscribe`, every protocol version
 * the library speaks (2025-11-25 preferred), and the suite's fixtures.
 * Serve it with any transport (`serveStdio(server)`, `serve(server, t)`).
 */
export function createConformanceServer(): McpServer {
  const map: HandlerMap = {
    ...handlers,
    ...promptHandlers,
    ...completionHandlers,
    ...loggingHandlers,
    ...modernHandlers,
    ...taskHandlers,
    ...skillHandlers,
    "resources/subscribe": {
      ...METHODS["resources/subscribe"],
      handler: watchingSubscribe(METHODS["resources/subscribe"].handler),
    },
  };
  const capabilities = capabilitiesOf(map, { listChanged: true });
  capabilities.resources = { subscribe: true, listChanged: true };
  capabilities.extensions = {
    [TASKS_EXTENSION]: {},
    [SKILLS_EXTENSION]: skillsCapability(),
  };
  const resources = new FixtureResources();
  const server = new McpServer({
    handlers: map,
    info: {
      name: "shipcode-conformance-fixture",
      title: "MCP conformance fixtures",
      version: "1.0.0",
    },
    protocolVersions: [
      ...MODERN_PROTOCOL_VERSIONS,
      ...[...PROTOCOL_VERSIONS].reverse(),
    ],
    capabilities,
    resources,
  });
  registerTools(server, resources);
  registerPrompts(server);
  registerStatelessFixtures(server);
  registerTaskFixtures(server);
  registerSkillFixtures(server);
  return server;
}

/** The text of a sampling answer. */
function sampledText(answer: { content: unknown }): string {
  const content = Array.isArray(answer.content)
    ? answer.content[0]
    : answer.content as { text?: unknown } | undefined;
  return typeof content?.text === "string"
    ? content.text
    : JSON.stringify(content);
}

/**
 * The fixtures of the suite's MCP 2026-07-28 scenarios: tools (and a
 * prompt) whose requests to the client become `input_required` results
 * under the keys the scenarios expect, a tool that needs an undeclared
 * capability, one that logs, and one whose arguments are mirrored into
 * `Mcp-Param-*` headers. Under 2025-x they ask the client as before.
 */
function registerStatelessFixtures(server: McpServer): void {
  const tools = server.tools;
  tools.register(defineTool({
    name: "test_input_required_result_elicitation",
    description: "Asks the user's name (input user_name), then greets them.",
    inputSchema: NO_ARGUMENTS,
    async run(_args, ctx) {
      const answer = await ctx.elicit(
        form("What is your name?", "name", "string"),
        { inputKey: "user_name" },
      );
      const name = (answer.content as { name?: unknown } | undefined)?.name;
      return { content: [textContent(`Hello, ${String(name)}!`)] };
    },
  }));
  tools.register(defineTool({
    name: "test_input_required_result_sampling",
    description: "Asks the client's model a question (input capital_question).",
    inputSchema: NO_ARGUMENTS,
    async run(_args, ctx) {
      const answer = await ctx.sample({
        messages: [{
          role: "user",
          content: textContent("What is the capital of France?"),
        }],
        maxTokens: 100,
      }, { inputKey: "capital_question" });
      return {
        content: [textContent(`The model said: ${sampledText(answer)}`)],
      };
    },
  }));
  tools.register(defineTool({
    name: "test_input_required_result_list_roots",
    description: "Asks the client's roots (input client_roots).",
    inputSchema: NO_ARGUMENTS,
    async run(_args, ctx) {
      const roots = await ctx.listRoots({ inputKey: "client_roots" });
      return {
        content: [
          textContent(`Roots: ${roots.map((root) => root.uri).join(", ")}`),
        ],
      };
    },
  }));
  tools.register(defineTool({
    name: "test_input_required_result_request_state",
    description: "Asks for a confirmation (input confirm), with request state.",
    inputSchema: NO_ARGUMENTS,
    async run(_args, ctx) {
      const answer = await ctx.elicit(
        form("Please confirm", "ok", "boolean"),
        { inputKey: "confirm" },
      );
      return {
        content: [
          textContent(`Confirmed: ${JSON.stringify(answer.content ?? {})}`),
        ],
      };
    },
  }));
  tools.register(defineTool({
    name: "test_input_required_result_multiple_inputs",
    description:
      "Asks for a name, a sampled greeting and the roots at once (inputs user_name, greeting, client_roots).",
    inputSchema: NO_ARGUMENTS,
    async run(_args, ctx) {
      const [name, greeting, roots] = await Promise.all([
        ctx.elicit(form("What is your name?", "name", "string"), {
          inputKey: "user_name",
        }),
        ctx.sample({
          messages: [{
            role: "user",
            content: textContent("Generate a greeting"),
          }],
          maxTokens: 50,
        }, { inputKey: "greeting" }),
        ctx.listRoots({ inputKey: "client_roots" }),
      ]);
      return {
        content: [
          textContent(
            `${sampledText(greeting)} ${
              JSON.stringify(name.content ?? {})
            } (${roots.length} roots)`,
          ),
        ],
      };
    },
  }));
  tools.register(defineTool({
    name: "test_input_required_result_multi_round",
    description:
      "Asks for a name (input step1), then a colour (input step2): two rounds.",
    inputSchema: NO_ARGUMENTS,
    async run(_args, ctx) {
      const name = await ctx.elicit(
        form("Step 1: What is your name?", "name", "string"),
        { inputKey: "step1" },
      );
      const color = await ctx.elicit(
        form("Step 2: What is your favorite color?", "color", "string"),
        { inputKey: "step2" },
      );
      return {
        content: [
          textContent(
            `${JSON.stringify(name.content ?? {})} likes ${
              JSON.stringify(color.content ?? {})
            }`,
          ),
        ],
      };
    },
  }));
  tools.register(defineTool({
    name: "test_input_required_result_tampered_state",
    description:
      "Asks for a confirmation (input confirm); its request state is signed.",
    inputSchema: NO_ARGUMENTS,
    async run(_args, ctx) {
      const answer = await ctx.elicit(
        form("Please confirm", "ok", "boolean"),
        { inputKey: "confirm" },
      );
      return {
        content: [textContent(`Confirmed: ${answer.action}`)],
      };
    },
  }));
  tools.register(defineTool({
    name: "test_input_required_result_capabilities",
    description:
      "Asks only what the client declared it can answer: a form (elicitation), a sample (sampling).",
    inputSchema: NO_ARGUMENTS,
    async run(_args, ctx) {
      const asked: Promise<unknown>[] = [];
      if (ctx.session.declares("elicitation")) {
        asked.push(ctx.elicit(form("What is your name?", "name", "string"), {
          inputKey: "user_name",
        }));
      }
      if (ctx.session.declares("sampling")) {
        asked.push(ctx.sample({
          messages: [{ role: "user", content: textContent("Say hello") }],
          maxTokens: 20,
        }, { inputKey: "greeting" }));
      }
      await Promise.all(asked);
      return { content: [textContent(`Asked ${asked.length} question(s)`)] };
    },
  }));
  tools.register(defineTool({
    name: "test_missing_capability",
    description:
      "Needs the client's sampling capability: without it, the call is refused (-32021).",
    inputSchema: NO_ARGUMENTS,
    async run(_args, ctx) {
      const answer = await ctx.sample({
        messages: [{ role: "user", content: textContent("Say hello") }],
        maxTokens: 20,
      });
      return { content: [textContent(sampledText(answer))] };
    },
  }));
  tools.register(defineTool({
    name: "test_streaming_elicitation",
    description:
      "Reports progress, then asks the user (input user_name): the request's stream carries notifications only.",
    inputSchema: NO_ARGUMENTS,
    async run(_args, ctx) {
      ctx.reportProgress(1, 2, "asking");
      const answer = await ctx.elicit(
        form("What is your name?", "name", "string"),
        { inputKey: "user_name" },
      );
      return { content: [textContent(`Hello, ${answer.action}!`)] };
    },
  }));
  tools.register(defineTool({
    name: "test_logging_tool",
    description:
      "Logs at every level while it works: records reach only a client that asked for them.",
    inputSchema: NO_ARGUMENTS,
    run(_args, ctx) {
      ctx.log("info", "test_logging_tool started");
      ctx.log("error", "test_logging_tool: a record at error level");
      return { content: [textContent("Logged.")] };
    },
  }));
  tools.register(defineTool({
    name: "test_custom_headers",
    description:
      "Echoes its arguments; region and priority are mirrored into the Mcp-Param-Region and Mcp-Param-Priority headers.",
    inputSchema: {
      type: "object",
      properties: {
        region: {
          type: "string",
          description: "A region, mirrored into Mcp-Param-Region",
          "x-mcp-header": "Region",
        },
        priority: {
          type: "integer",
          description: "A priority, mirrored into Mcp-Param-Priority",
          "x-mcp-header": "Priority",
        },
        query: { type: "string", description: "Not mirrored" },
      },
      required: ["region"],
    },
    run(args) {
      return { content: [textContent(JSON.stringify(args))] };
    },
  }));
  server.prompts.register(definePrompt({
    name: "test_input_required_result_prompt",
    description:
      "Asks the user for the context to use (input user_context), then builds the prompt.",
    async get(_args, ctx) {
      const answer = await ctx.elicit(
        form("What context should the prompt use?", "context", "string"),
        { inputKey: "user_context" },
      );
      const context = (answer.content as { context?: unknown } | undefined)
        ?.context;
      return {
        messages: [{
          role: "user",
          content: textContent(`Use this context: ${String(context)}`),
        }],
      };
    },
  }));
}

function registerTools(server: McpServer, resources: FixtureResources): void {
  const tools = server.tools;
  tools.register(defineTool({
    name: "test_simple_text",
    description: "Returns simple text.",
    inputSchema: NO_ARGUMENTS,
    run: () => ({
      content: [textContent("This is a simple text response for testing.")],
    }),
  }));
  tools.register(defineTool({
    name: "test_image_content",
    description: "Returns an image (a 1x1 red PNG).",
    inputSchema: NO_ARGUMENTS,
    run: () => ({ content: [imageContent(RED_PIXEL_PNG, "image/png")] }),
  }));
  tools.register(defineTool({
    name: "test_audio_content",
    description: "Returns audio (a short silent WAV).",
    inputSchema: NO_ARGUMENTS,
    run: () => ({ content: [audioContent(silentWav(), "audio/wav")] }),
  }));
  tools.register(defineTool({
    name: "test_embedded_resource",
    description: "Returns an embedded text resource.",
    inputSchema: NO_ARGUMENTS,
    run: () => ({
      content: [{
        type: "resource",
        resource: {
          uri: "test://embedded-resource",
          mimeType: "text/plain",
          text: "This is an embedded resource content.",
        },
      }],
    }),
  }));
  tools.register(defineTool({
    name: "test_multiple_content_types",
    description: "Returns text, an image and an embedded resource.",
    inputSchema: NO_ARGUMENTS,
    run: () => ({
      content: [
        textContent("Multiple content types test:"),
        imageContent(RED_PIXEL_PNG, "image/png"),
        {
          type: "resource",
          resource: {
            uri: "test://mixed-content-resource",
            mimeType: "application/json",
            text: JSON.stringify({ test: "data", value: 123 }),
          },
        },
      ],
    }),
  }));
  tools.register(defineTool({
    name: "test_tool_with_logging",
    description: "Logs three info records while it runs, 50 ms apart.",
    inputSchema: NO_ARGUMENTS,
    async run(_args, ctx) {
      ctx.log("info", "Tool execution started");
      await sleep(50, ctx.signal);
      ctx.log("info", "Tool processing data");
      await sleep(50, ctx.signal);
      ctx.log("info", "Tool execution completed");
      return {
        content: [textContent("Tool with logging executed successfully")],
      };
    },
  }));
  tools.register(defineTool({
    name: "test_tool_with_progress",
    description: "Reports progress 0, 50 and 100 of 100 when asked for it.",
    inputSchema: NO_ARGUMENTS,
    async run(_args, ctx) {
      // Steps 50 ms apart, as the suite's own fixture paces them, each
      // reported before its wait: the official SDK client handles a
      // notification a microtask after the message, so a progress
      // notification read in one chunk with the answer would reach it
      // after the answer had ended the call, and be dropped.
      for (const progress of [0, 50, 100]) {
        ctx.reportProgress(
          progress,
          100,
          `Completed step ${progress} of 100`,
        );
        await sleep(50, ctx.signal);
      }
      const token = ctx.meta?.progressToken;
      return { content: [textContent(String(token ?? "no progress token"))] };
    },
  }));
  tools.register(defineTool({
    name: "test_error_handling",
    description: "Always fails, as a tool error.",
    inputSchema: NO_ARGUMENTS,
    run: () => ({
      content: [
        textContent("This tool intentionally returns an error for testing"),
      ],
      isError: true,
    }),
  }));
  tools.register(defineTool({
    name: "test_reconnection",
    description:
      "Closes the stream its answer would travel on, then answers after 100 ms: the client must reconnect to get it.",
    inputSchema: NO_ARGUMENTS,
    async run(_args, ctx) {
      // Over Streamable HTTP this ends the stream the answer would travel
      // on (the client reconnects with Last-Event-ID to get it); over
      // stdio there is no such stream, and it does nothing.
      ctx.closeStream?.();
      await sleep(100, ctx.signal);
      return {
        content: [
          textContent(
            "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.",
          ),
        ],
      };
    },
  }));
  tools.register(defineTool({
    name: "test_sampling",
    description: "Asks the client's model to answer the prompt.",
    inputSchema: {
      type: "object",
      properties: {
        prompt: { type: "string", description: "The prompt to send" },
      },
      required: ["prompt"],
    },
    async run(args, ctx) {
      try {
        const answer = await ctx.sample({
          messages: [{
            role: "user",
            content: { type: "text", text: args.prompt },
          }],
          maxTokens: 100,
        });
        const content = Array.isArray(answer.content)
          ? answer.content[0]
          : answer.content;
        const text = typeof content?.text === "string"
          ? content.text
          : JSON.stringify(content);
        return { content: [textContent(`LLM response: ${text}`)] };
      } catch (error) {
        return clientFailure("sampling", error);
      }
    },
  }));
  tools.register(defineTool({
    name: "test_elicitation",
    description: "Asks the user for a username and an email address.",
    inputSchema: {
      type: "object",
      properties: {
        message: { type: "string", description: "The message to show" },
      },
      required: ["message"],
    },
    async run(args, ctx) {
      try {
        const answer = await ctx.elicit({
          message: args.message,
          requestedSchema: {
            type: "object",
            properties: {
              username: { type: "string", description: "User's response" },
              email: { type: "string", description: "User's email address" },
            },
            required: ["username", "email"],
          },
        });
        return {
          content: [
            textContent(
              `User response: action=${answer.action}, content=${
                JSON.stringify(answer.content ?? {})
              }`,
            ),
          ],
        };
      } catch (error) {
        return clientFailure("elicitation", error);
      }
    },
  }));
  tools.register(defineTool({
    name: "test_elicitation_sep1034_defaults",
    description: "Asks for a form whose fields all have defaults.",
    inputSchema: NO_ARGUMENTS,
    async run(_args, ctx) {
      try {
        const answer = await ctx.elicit({
          message: "Please review and update the form fields with defaults",
          requestedSchema: {
            type: "object",
            properties: {
              name: {
                type: "string",
                description: "User name",
                default: "John Doe",
              },
              age: { type: "integer", description: "User age", default: 30 },
              score: {
                type: "number",
                description: "User score",
                default: 95.5,
              },
              status: {
                type: "string",
                description: "User status",
                enum: ["active", "inactive", "pending"],
                default: "active",
              },
              verified: {
                type: "boolean",
                description: "Verification status",
                default: true,
              },
            },
          },
        });
        return elicitationCompleted(answer);
      } catch (error) {
        return clientFailure("elicitation", error);
      }
    },
  }));
  tools.register(defineTool({
    name: "test_elicitation_sep1330_enums",
    description: "Asks for a form with each kind of enum field.",
    inputSchema: NO_ARGUMENTS,
    async run(_args, ctx) {
      try {
        const answer = await ctx.elicit({
          message: "Please select options from the enum fields",
          requestedSchema: {
            type: "object",
            properties: {
              untitledSingle: {
                type: "string",
                description: "Select one option",
                enum: ["option1", "option2", "option3"],
              },
              titledSingle: {
                type: "string",
                description: "Select one option with titles",
                oneOf: [
                  { const: "value1", title: "First Option" },
                  { const: "value2", title: "Second Option" },
                  { const: "value3", title: "Third Option" },
                ],
              },
              legacyEnum: {
                type: "string",
                description: "Select one option (legacy)",
                enum: ["opt1", "opt2", "opt3"],
                enumNames: ["Option One", "Option Two", "Option Three"],
              },
              untitledMulti: {
                type: "array",
                description: "Select multiple options",
                minItems: 1,
                maxItems: 3,
                items: {
                  type: "string",
                  enum: ["option1", "option2", "option3"],
                },
              },
              titledMulti: {
                type: "array",
                description: "Select multiple options with titles",
                minItems: 1,
                maxItems: 3,
                items: {
                  anyOf: [
                    { const: "value1", title: "First Choice" },
                    { const: "value2", title: "Second Choice" },
                    { const: "value3", title: "Third Choice" },
                  ],
                },
              },
            },
            required: [],
          },
        });
        return elicitationCompleted(answer);
      } catch (error) {
        return clientFailure("elicitation", error);
      }
    },
  }));
  tools.register(defineTool({
    name: "json_schema_2020_12_tool",
    description: "Tool with JSON Schema 2020-12 features",
    inputSchema: JSON_SCHEMA_2020_12_INPUT,
    run: (args) => ({
      content: [
        textContent(
          `JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`,
        ),
      ],
    }),
  }));
  // Each call adds test_dynamic_tool, or removes it: the tool list
  // changes, and the server says so.
  tools.register(defineTool({
    name: "test_trigger_tool_change",
    description: "Adds the tool test_dynamic_tool, or removes it.",
    inputSchema: NO_ARGUMENTS,
    run: () => {
      if (tools.unregister("test_dynamic_tool")) {
        return { content: [textContent("Removed test_dynamic_tool")] };
      }
      tools.register(defineTool({
        name: "test_dynamic_tool",
        description: "A tool added at run time.",
        inputSchema: NO_ARGUMENTS,
        run: () => ({ content: [textContent("Dynamic tool called")] }),
      }));
      return { content: [textContent("Added test_dynamic_tool")] };
    },
  }));
  tools.register(defineTool({
    name: "test_trigger_prompt_change",
    description: "Adds the prompt test_dynamic_prompt, or removes it.",
    inputSchema: NO_ARGUMENTS,
    run: () => {
      const prompts = server.prompts;
      if (prompts.unregister("test_dynamic_prompt")) {
        return { content: [textContent("Removed test_dynamic_prompt")] };
      }
      prompts.register(definePrompt({
        name: "test_dynamic_prompt",
        description: "A prompt added at run time.",
        get: () => ({
          messages: [{
            role: "user",
            content: textContent("This prompt was added at run time."),
          }],
        }),
      }));
      return { content: [textContent("Added test_dynamic_prompt")] };
    },
  }));
  tools.register(defineTool({
    name: "test_update_watched_resource",
    description: `Changes ${WATCHED_URI}; its subscribers are told.`,
    inputSchema: NO_ARGUMENTS,
    run: () => ({
      content: [textContent(`Updated: ${resources.updateWatched()}`)],
    }),
  }));
}

function elicitationCompleted(
  answer: { action: string; content?: unknown },
): { content: ContentBlock[] } {
  return {
    content: [
      textContent(
        `Elicitation completed: action=${answer.action}, content=${
          JSON.stringify(answer.content ?? {})
        }`,
      ),
    ],
  };
}

function registerPrompts(server: McpServer): void {
  const prompts = server.prompts;
  prompts.register(definePrompt({
    name: "test_simple_prompt",
    title: "Simple prompt",
    description: "A prompt without arguments.",
    get: () => ({
      messages: [{
        role: "user",
        content: textContent("This is a simple prompt for testing."),
      }],
    }),
  }));
  prompts.register(definePrompt({
    name: "test_prompt_with_arguments",
    title: "Prompt with arguments",
    description: "A prompt with two required arguments.",
    arguments: [
      {
        name: "arg1",
        description: "First test argument",
        required: true,
        complete: (value: string) =>
          ["paris", "park", "party"].filter((word) => word.startsWith(value)),
      },
      { name: "arg2", description: "Second test argument", required: true },
    ],
    get: (args) => ({
      messages: [{
        role: "user",
        content: textContent(
          `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`,
        ),
      }],
    }),
  }));
  prompts.register(definePrompt({
    name: "test_prompt_with_embedded_resource",
    title: "Prompt with an embedded resource",
    description: "A prompt embedding the resource it is given.",
    arguments: [
      {
        name: "resourceUri",
        description: "URI of the resource to embed",
        required: true,
      },
    ],
    get: (args) => ({
      messages: [
        {
          role: "user",
          content: {
            type: "resource",
            resource: {
              uri: args.resourceUri,
              mimeType: "text/plain",
              text: "Embedded resource content for testing.",
            },
          },
        },
        {
          role: "user",
          content: textContent("Please process the embedded resource above."),
        },
      ],
    }),
  }));
  prompts.register(definePrompt({
    name: "test_prompt_with_image",
    title: "Prompt with an image",
    description: "A prompt carrying an image.",
    get: () => ({
      messages: [
        { role: "user", content: imageContent(RED_PIXEL_PNG, "image/png") },
        {
          role: "user",
          content: textContent("Please analyze the image above."),
        },
      ],
    }),
  }));
}

/**
 * The address `--http [HOST:]PORT` names, or undefined without `--http`.
 * The host defaults to 127.0.0.1; port 0 asks for a free port.
 */
export function httpAddress(
  args: readonly string[],
): { hostname: string; port: number } | undefined {
  const at = args.indexOf("--http");
  if (at < 0) return undefined;
  const value = args[at + 1] ?? "";
  const match = /^(?:(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):)?([0-9]{1,5})$/
    .exec(value);
  if (match === null || Number(match[2]) > 65535) {
    throw new Error(
      `--http takes [HOST:]PORT with PORT from 0 to 65535 (0: a free port), such as 127.0.0.1:3001, not "${value}"`,
    );
  }
  const host = match[1] ?? "127.0.0.1";
  return {
    hostname: host.startsWith("[") ? host.slice(1, -1) : host,
    port: Number(match[2]),
  };
}

if (import.meta.main) {
  const address = httpAddress(Deno.args);
  if (address === undefined) {
    await serveStdio(createConformanceServer());
  } else {
    const http = serveHttp(createConformanceServer(), address);
    console.error(`conformance fixture server: ${http.url}`);
    Deno.addSignalListener("SIGTERM", () => http.shutdown());
    Deno.addSignalListener("SIGINT", () => http.shutdown());
    await http.finished;
  }
}
