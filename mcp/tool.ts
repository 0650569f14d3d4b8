/**
 * Tools: what one is, and the registry a server lists and calls them from.
 *
 * @module
 */

import type { JsonObject } from "./jsonrpc.ts";
import type { HandlerContext } from "./server.ts";
import type { SchemaCheck, SchemaFailure } from "./json_schema.ts";
import { trackLoading } from "./loading.ts";

// The validator module (and Ajv behind it) loads with the first check:
// a server that is only asked to initialize and ping never pays for it.
// Loading it and compiling a schema count as loading code (loading.ts).
function compileSchema(schema: JsonObject): Promise<SchemaCheck> {
  return trackLoading(
    import("./json_schema.ts").then((m) => m.compileSchema(schema)),
  );
}

/**
 * An error whose message is written for the model: `tools/call` answers it
 * with a result carrying `isError: true` and the message, instead of
 * treating it as a fault of the server. Throw it (or a subclass) for
 * failures the caller can act on: a missing file, a bad pattern.
 */
export class ToolFailure extends Error {
  /** Make a failure whose message says what went wrong and what to do. */
  constructor(message: string) {
    super(message);
    this.name = "ToolFailure";
  }
}

/** Hints about a tool's behaviour, as the MCP specification defines them. */
export interface ToolAnnotations {
  /** Human-readable name. */
  title?: string;
  /** The tool does not change its environment. */
  readOnlyHint?: boolean;
  /** The tool may destroy or overwrite (meaningful when not read-only). */
  destructiveHint?: boolean;
  /** Calling it again with the same arguments has no further effect. */
  idempotentHint?: boolean;
  /** The tool reaches an open world (the web, say), not a closed one. */
  openWorldHint?: boolean;
}

/** One content block of a tool result. */
export type ContentBlock = JsonObject & { type: string };

/** What a tool's `run` returns: the `tools/call` result. */
export interface ToolResult {
  /** What the model reads: text, images, links… */
  content: ContentBlock[];
  /** The same result as data, valid against the tool's outputSchema. */
  structuredContent?: JsonObject;
  /** True when the call failed; `content` then says why. */
  isError?: boolean;
  /** Other members (`_meta`, …). */
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

/**
 * The tools a server offers. Schemas are compiled once per tool, on first
 * use (the validator loads lazily, off the startup path); {@linkcode
 * ToolRegistry.prepare} compiles them all ahead of time.
 */
export class ToolRegistry {
  readonly #tools = new Map<string, Tool>();
  readonly #inputChecks = new Map<string, Promise<SchemaCheck>>();
  readonly #outputChecks = new Map<string, Promise<SchemaCheck>>();
  #sorted: Tool[] | undefined;

  /** Add a tool; its name must be new and its inputSchema an object schema. */
  register(tool: Tool): void {
    if (this.#tools.has(tool.name)) {
      throw new TypeError(`A tool named "${tool.name}" is already registered`);
    }
    if (tool.inputSchema.type !== "object") {
      throw new TypeError(
        `Tool "${tool.name}": inputSchema must have "type": "object"`,
      );
    }
    this.#tools.set(tool.name, tool);
    this.#sorted = undefined;
  }

  /** The tool called `name`, if any. */
  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  /** All tools, in registration order. */
  list(): Tool[] {
    return [...this.#tools.values()];
  }

  /** All tools sorted by name (code-unit order): the `tools/list` order. */
  sorted(): readonly Tool[] {
    return this.#sorted ??= this.list().sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0
    );
  }

  /** How many tools there are. */
  get size(): number {
    return this.#tools.size;
  }

  /** Check `args` against the tool's inputSchema; empty when valid. */
  async validateArguments(tool: Tool, args: unknown): Promise<SchemaFailure[]> {
    let check = this.#inputChecks.get(tool.name);
    if (check === undefined) {
      check = compileSchema(tool.inputSchema);
      this.#inputChecks.set(tool.name, check);
    }
    return (await check)(args);
  }

  /**
   * Check a result's `structuredContent` against the tool's outputSchema;
   * empty when valid or when the tool declares none.
   */
  async validateOutput(tool: Tool, value: unknown): Promise<SchemaFailure[]> {
    const schema = tool.outputSchema;
    if (schema === undefined) return [];
    let check = this.#outputChecks.get(tool.name);
    if (check === undefined) {
      check = compileSchema(schema);
      this.#outputChecks.set(tool.name, check);
    }
    return (await check)(value);
  }

  /** Compile every tool's input schema now (e.g. in the background). */
  async prepare(): Promise<void> {
    for (const tool of this.#tools.values()) {
      await this.validateArguments(tool, {});
    }
  }
}
