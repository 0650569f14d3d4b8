/**
 * The library half of the model-eye matrix: the MCP client libraries agent
 * frameworks are built on, each driven the way its users drive it, and
 * what each turns a tool result into, which is what a model is handed.
 *
 * Each library is pinned here (the SDKs in `../sdk.ts` and `../sdk2.ts`)
 * and locked in tests/deno.lock, never in the server's deno.lock. The
 * framework libraries are imported only when their session opens, so one
 * that fails to load fails its own test alone.
 *
 * @module
 */

import type { Call, Reading } from "./script.ts";
import {
  Client as Sdk1Client,
  StdioClientTransport as Sdk1Stdio,
} from "../sdk.ts";
import {
  Client as Sdk2Client,
  StdioClientTransport as Sdk2Stdio,
} from "../sdk2.ts";

/** How a library starts the server: a program and its arguments. */
export interface ServerCommand {
  /** The program. */
  command: string;
  /** Its arguments. */
  args: string[];
}

/** A library connected to one server process it started. */
export interface LibrarySession {
  /** Make `call` as the library's users do; what the model would read. */
  call(call: Call): Promise<Reading>;
  /** Close the library's client and stop the server. */
  close(): Promise<void>;
}

/** One MCP client library of the matrix. */
export interface Library {
  /** Name in tables and test names. */
  name: string;
  /** npm package. */
  package: string;
  /** Pinned version. */
  version: string;
  /** What it hands the model from a tool result, for the README's table. */
  hands: string;
  /**
   * The problems the library itself causes, whatever the server does:
   * each as the test reports it (`case: problem`), with why. The test
   * expects exactly these, so a library that changes shows up.
   */
  known?: Readonly<Record<string, string>>;
  /** Start the server with `server` and connect to it. */
  open(server: ServerCommand): Promise<LibrarySession>;
}

/** The name a client gives itself to our server. */
const CLIENT_INFO = { name: "shipcode-model-eye", version: "0.0.1" };

/** The server's name in the libraries' multi-server configurations. */
const SERVER = "shipcode";

/** A content block of a tool result, as the libraries pass it on. */
interface Block {
  type: string;
  text?: string;
}

/** The text blocks of `content` joined by "\n", other blocks as JSON. */
function textOf(content: readonly Block[]): string {
  return content.map((block) =>
    block.type === "text" && typeof block.text === "string"
      ? block.text
      : JSON.stringify(block)
  ).join("\n");
}

/** The message of a thrown value. */
function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The AI SDK's tool output for the model (`LanguageModelV4ToolResultOutput`)
 * as a reading's text and flag: `error-text` and `error-json` are the
 * error kinds (a provider maps them to its error flag: Anthropic's
 * `is_error`); the others are not errors.
 */
function fromModelOutput(
  output: unknown,
): { text: string; isError: boolean } {
  if (output === null || typeof output !== "object" || !("type" in output)) {
    return { text: JSON.stringify(output), isError: false };
  }
  const typed = output as { type: string; value?: unknown };
  const isError = typed.type === "error-text" || typed.type === "error-json";
  switch (typed.type) {
    case "text":
    case "error-text":
      return { text: String(typed.value), isError };
    case "content":
      return { text: textOf(typed.value as Block[]), isError };
    default:
      return { text: JSON.stringify(typed.value ?? null), isError };
  }
}

/** A LangChain ToolMessage's content as the text a chat model reads. */
function fromToolMessage(
  message: { content: unknown; status?: string },
): { text: string; isError: boolean } {
  const content = message.content;
  const text = typeof content === "string"
    ? content
    : textOf(content as Block[]);
  return { text, isError: message.status === "error" };
}

let ids = 0;

/** A fresh tool-call id, as a model's would be. */
function callId(): string {
  return `call_${++ids}`;
}

/** The official TypeScript SDK 1.x: `callTool`, the result's text blocks. */
export const sdk1: Library = {
  name: "MCP SDK 1.x",
  package: "@modelcontextprotocol/sdk",
  version: "1.32.2",
  hands: "the result as is; hosts pass the `content` blocks (text) on, " +
    "and the client checks `structuredContent` against the `outputSchema`",
  async open(server) {
    const client = new Sdk1Client(CLIENT_INFO);
    await client.connect(new Sdk1Stdio({ ...server, stderr: "ignore" }));
    // The client validates structured results against the output schemas
    // of the tools it listed, as hosts list them before calling.
    await client.listTools();
    return {
      async call(call) {
        const result = await client.callTool({
          name: call.tool,
          arguments: call.args,
        });
        return {
          call,
          shownName: call.tool,
          text: textOf(result.content as Block[]),
          isError: result.isError === true,
        };
      },
      close: () => client.close(),
    };
  },
};

/** The official TypeScript client 2.x: `callTool`, the text blocks. */
export const sdk2: Library = {
  name: "MCP client 2.x",
  package: "@modelcontextprotocol/client",
  version: "2.4.0",
  hands: "the result as is; hosts pass the `content` blocks (text) on, " +
    "and the client checks `structuredContent` against the `outputSchema`",
  async open(server) {
    const client = new Sdk2Client(CLIENT_INFO);
    await client.connect(new Sdk2Stdio({ ...server, stderr: "ignore" }));
    await client.listTools();
    return {
      async call(call) {
        const result = await client.callTool({
          name: call.tool,
          arguments: call.args,
        });
        return {
          call,
          shownName: call.tool,
          text: textOf(result.content as Block[]),
          isError: result.isError === true,
        };
      },
      close: () => client.close(),
    };
  },
};

/** An AI SDK tool, as the AI SDK runs one. */
interface AiSdkTool {
  execute?(
    input: unknown,
    options: { toolCallId: string; messages: unknown[]; context: unknown },
  ): unknown;
  toModelOutput?(
    options: { toolCallId: string; input: unknown; output: unknown },
  ): unknown;
}

/**
 * The AI SDK's MCP client: `createMCPClient` → `tools()`; the AI SDK runs a
 * tool's `execute` and hands the model its `toModelOutput` of the result
 * (or, when `execute` throws, the error's message as `error-text`).
 */
export const aiSdk: Library = {
  name: "AI SDK",
  package: "@ai-sdk/mcp",
  version: "2.0.99",
  hands: "the `content` text blocks (`toModelOutput`), never " +
    "`structuredContent`; an `isError` result goes to the model as an " +
    "ordinary result (`execute` returns it rather than throwing), so the " +
    'text\'s leading "Error: " is what marks it',
  async open(server) {
    // deno-lint-ignore no-import-prefix
    const { createMCPClient } = await import("npm:@ai-sdk/mcp@2.0.99");
    const { Experimental_StdioMCPTransport } = await import(
      // deno-lint-ignore no-import-prefix
      "npm:@ai-sdk/mcp@2.0.99/mcp-stdio"
    );
    const client = await createMCPClient({
      transport: new Experimental_StdioMCPTransport({
        ...server,
        stderr: "ignore",
      }),
    });
    const tools: Record<string, AiSdkTool> = await client.tools();
    return {
      async call(call) {
        const tool = tools[call.tool];
        if (tool?.execute === undefined) {
          throw new Error(`the AI SDK offers no tool ${call.tool}`);
        }
        const toolCallId = callId();
        let modelOutput: unknown;
        try {
          const output = await tool.execute(call.args, {
            toolCallId,
            messages: [],
            context: {},
          });
          modelOutput = tool.toModelOutput === undefined
            ? { type: "json", value: output }
            : await tool.toModelOutput({
              toolCallId,
              input: call.args,
              output,
            });
        } catch (error) {
          modelOutput = { type: "error-text", value: messageOf(error) };
        }
        return { call, shownName: call.tool, ...fromModelOutput(modelOutput) };
      },
      close: () => client.close(),
    };
  },
};

/**
 * Run one tool call through LangChain's `createAgent`, with a chat model
 * that asks for `call` (as `shownName`) and then stops: the ToolMessage the
 * agent's tool node produced is what a chat model is handed (its content,
 * and an `error` status for a tool that threw).
 */
async function runAgent(
  tools: unknown[],
  call: Call,
  shownName: string,
): Promise<Reading> {
  // deno-lint-ignore no-import-prefix
  const { createAgent } = await import("npm:langchain@1.5.14");
  const { AIMessage, ToolMessage } = await import(
    // deno-lint-ignore no-import-prefix
    "npm:@langchain/core@1.4.0/messages"
  );
  const { BaseChatModel } = await import(
    // deno-lint-ignore no-import-prefix
    "npm:@langchain/core@1.4.0/language_models/chat_models"
  );
  type Message = InstanceType<typeof AIMessage> | { type: string };
  class ScriptedModel extends BaseChatModel {
    _llmType(): string {
      return "scripted";
    }
    override bindTools(): this {
      return this;
    }
    _generate(messages: Message[]) {
      const done = messages.at(-1) instanceof ToolMessage;
      const message = new AIMessage(
        done ? { content: "All calls made." } : {
          content: "",
          tool_calls: [{ id: callId(), name: shownName, args: call.args }],
        },
      );
      return Promise.resolve({
        generations: [{ text: done ? "All calls made." : "", message }],
      });
    }
  }
  const agent = createAgent({
    model: new ScriptedModel({}),
    tools: tools as Parameters<typeof createAgent>[0]["tools"],
  });
  const state = await agent.invoke({
    messages: [{ role: "user", content: "Make the call." }],
  });
  const message = state.messages.find((m) => m instanceof ToolMessage);
  if (message === undefined) {
    throw new Error("the agent ran no tool");
  }
  return { call, shownName, ...fromToolMessage(message) };
}

/**
 * LangChain's MCP adapters: `MultiServerMCPClient` → `getTools()`, run by
 * the `ToolNode` of `createAgent`.
 */
export const langchain: Library = {
  name: "LangChain",
  package: "@langchain/mcp-adapters",
  version: "1.1.4",
  hands: "the `content` text, as is; for a result with " +
    "`structuredContent`, the JSON of its text block with the structured " +
    "content beside the text (both); an `isError` result is thrown and " +
    "reaches the model as an `error` ToolMessage (`ToolException: MCP tool " +
    "… returned an error: <text>`)",
  async open(server) {
    const { MultiServerMCPClient } = await import(
      // deno-lint-ignore no-import-prefix
      "npm:@langchain/mcp-adapters@1.1.4"
    );
    const client = new MultiServerMCPClient({
      mcpServers: {
        [SERVER]: { transport: "stdio", ...server, stderr: "ignore" },
      },
    });
    const tools = await client.getTools();
    return {
      call: (call) => runAgent(tools, call, call.tool),
      close: () => client.close(),
    };
  },
};

/** A Mastra tool, as a Mastra agent runs one. */
interface MastraTool {
  execute?(input: unknown, context: unknown): unknown;
  toModelOutput?(output: unknown): unknown;
}

/**
 * Mastra's MCP client: `MCPClient` → `listTools()`; a Mastra agent hands
 * the model the tool's `toModelOutput` of what `execute` returned when the
 * tool has one, else that value (an object as JSON); a thrown error as its
 * message.
 */
export const mastra: Library = {
  name: "Mastra",
  package: "@mastra/mcp",
  version: "2.0.0",
  hands: "for a tool with an `outputSchema`, the `content` text; for one " +
    "without, the whole result as JSON (`content`, and " +
    "`structuredContent` when there is one); an `isError` result is thrown " +
    "and reaches the model as an error with the `content` text",
  async open(server) {
    // deno-lint-ignore no-import-prefix
    const { MCPClient } = await import("npm:@mastra/mcp@2.0.0");
    const mcp = new MCPClient({
      id: `model-eye-${callId()}`,
      servers: { [SERVER]: { ...server, stderr: "ignore" } },
    });
    const tools: Record<string, MastraTool> = await mcp.listTools();
    return {
      async call(call) {
        const shownName = `${SERVER}_${call.tool}`;
        const tool = tools[shownName];
        if (tool?.execute === undefined) {
          throw new Error(`Mastra offers no tool ${shownName}`);
        }
        let modelOutput: unknown;
        try {
          const output = await tool.execute(call.args, {});
          modelOutput = tool.toModelOutput === undefined
            ? typeof output === "string"
              ? { type: "text", value: output }
              : { type: "json", value: output }
            : await tool.toModelOutput(output);
        } catch (error) {
          modelOutput = { type: "error-text", value: messageOf(error) };
        }
        return { call, shownName, ...fromModelOutput(modelOutput) };
      },
      close: () => mcp.disconnect(),
    };
  },
};

/**
 * mcp-use 1.x: `MCPClient` → `LangChainAdapter.createTools`, run by the
 * `ToolNode` of `createAgent`, as its `MCPAgent` runs them. (mcp-use 2.x
 * is a server framework; its client, `@mcp-use/client`, is not on npm.)
 */
export const mcpUse: Library = {
  name: "mcp-use",
  package: "mcp-use",
  version: "1.34.6",
  hands: "`JSON.stringify` of the whole result (`content`, " +
    "`structuredContent`, `isError`) as the ToolMessage's text, never an " +
    'error status (the text\'s leading "Error: " marks an error)',
  async open(server) {
    // Its telemetry (PostHog) is on unless this says otherwise.
    Deno.env.set("MCP_USE_ANONYMIZED_TELEMETRY", "false");
    // deno-lint-ignore no-import-prefix
    const { MCPClient } = await import("npm:mcp-use@1.34.6");
    // deno-lint-ignore no-import-prefix
    const { LangChainAdapter } = await import("npm:mcp-use@1.34.6/adapters");
    const client = new MCPClient({ mcpServers: { [SERVER]: server } });
    const tools = await LangChainAdapter.createTools(client);
    return {
      call: (call) => runAgent(tools, call, call.tool),
      close: () => client.closeAllSessions(),
    };
  },
};

/** Every library the matrix runs, in the order of the README's table. */
export const LIBRARIES: readonly Library[] = [
  sdk1,
  sdk2,
  aiSdk,
  langchain,
  mastra,
  mcpUse,
];
