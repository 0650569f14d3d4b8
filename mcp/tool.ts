/**
 * Tools: what one is, and the registry a server lists and calls them from.
 *
 * @module
 */

import type { JsonObject } from "./jsonrpc.ts";
import type { HandlerContext } from "./server.ts";

/** Hints about a tool's behaviour, as the MCP specification defines them. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** One content block of a tool result. */
export type ContentBlock = JsonObject & { type: string };

/** What a tool's `run` returns: the `tools/call` result. */
export interface ToolResult {
  content: ContentBlock[];
  structuredContent?: JsonObject;
  isError?: boolean;
  [key: string]: unknown;
}

/** A tool: its definition, as listed, and the function that runs it. */
export interface Tool {
  /** Unique name the client calls it by. */
  name: string;
  /** Human-readable name. */
  title?: string;
  /** What it does, for the model. */
  description: string;
  /** JSON Schema of its arguments; `"type": "object"`. */
  inputSchema: JsonObject;
  /** JSON Schema of its `structuredContent`, when it returns some. */
  outputSchema?: JsonObject;
  /** Behaviour hints. */
  annotations?: ToolAnnotations;
  /** Run the tool with validated arguments. */
  run(args: JsonObject, ctx: HandlerContext): ToolResult | Promise<ToolResult>;
}

/** The wire form of a tool in `tools/list`: keys in the order clients expect. */
export function toolDefinition(tool: Tool): JsonObject {
  const definition: JsonObject = { name: tool.name };
  if (tool.title !== undefined) definition.title = tool.title;
  definition.description = tool.description;
  definition.inputSchema = tool.inputSchema;
  if (tool.outputSchema !== undefined) {
    definition.outputSchema = tool.outputSchema;
  }
  if (tool.annotations !== undefined) definition.annotations = tool.annotations;
  return definition;
}

/** The tools a server offers, in registration order. */
export class ToolRegistry {
  readonly #tools = new Map<string, Tool>();

  /** Add a tool; its name must be new. */
  register(tool: Tool): void {
    if (this.#tools.has(tool.name)) {
      throw new TypeError(`A tool named "${tool.name}" is already registered`);
    }
    this.#tools.set(tool.name, tool);
  }

  /** The tool called `name`, if any. */
  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  /** All tools, in registration order. */
  list(): Tool[] {
    return [...this.#tools.values()];
  }

  /** How many tools there are. */
  get size(): number {
    return this.#tools.size;
  }
}
