/**
 * Tools: what one is, and the registry a server lists and calls them from.
 *
 * @module
 */

import type {
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  Root,
} from "./client_requests.ts";
import type { JsonObject } from "./jsonrpc.ts";
import type { SchemaCheck, SchemaFailure } from "./json_schema.ts";
import type { Icon } from "./icon.ts";
import type { LoggingLevel } from "./logging.ts";
import type { ClientRequestOptions, Session } from "./session.ts";
import { trackLoading } from "./loading.ts";
import { schemaDialect } from "./schema_dialect.ts";
import { misspelledArguments } from "./misspelled.ts";

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

/** What a tool's `run` gets beside its arguments. */
export interface ToolContext {
  /** Aborted when the client cancels the call. */
  readonly signal: AbortSignal;
  /** The connection the call came on. */
  readonly session: Session;
  /** The `_meta` of the call's params, when sent. */
  readonly meta: JsonObject | undefined;
  /** Send a notification to this client. */
  notify(method: string, params?: JsonObject): void;
  /**
   * Send a request to this client and wait for its result. The call's
   * cancellation cancels it; see {@linkcode Session.request} for timeouts,
   * capabilities and errors.
   */
  request(
    method: string,
    params?: JsonObject,
    options?: ClientRequestOptions,
  ): Promise<unknown>;
  /**
   * Tell the client how far the work has got (`notifications/progress`).
   * A no-op unless the request carried `_meta.progressToken`; only values
   * above the last one sent go out, and never once the request is answered
   * or cancelled. Every call that passes is sent: a loop that could report
   * thousands of times a second paces itself (the workspace tools report
   * at most every 100 ms).
   */
  reportProgress(progress: number, total?: number, message?: string): void;
  /**
   * Send a log record to this client (`notifications/message`) when the
   * level it set with `logging/setLevel` lets `level` through; nothing
   * when it set none.
   */
  log(level: LoggingLevel, data: unknown, logger?: string): void;
  /** Ask the client to sample its model; see {@linkcode Session.sample}. */
  sample(
    params: CreateMessageParams,
    options?: ClientRequestOptions,
  ): Promise<CreateMessageResult>;
  /** Ask the user for input through a form; see {@linkcode Session.elicit}. */
  elicit(
    params: ElicitParams,
    options?: ClientRequestOptions,
  ): Promise<ElicitResult>;
  /** The client's roots; see {@linkcode Session.listRoots}. */
  listRoots(options?: ClientRequestOptions): Promise<Root[]>;
  /**
   * End the stream that will carry this request's answer now, telling the
   * client to reconnect for it (Streamable HTTP's polling, 2025-11-25):
   * what follows is kept until it does. Returns false where there is no
   * such stream (stdio, or an answer sent as JSON).
   */
  closeStream?(): boolean;
}

/**
 * How a tool takes part in the tasks extension (`io.modelcontextprotocol/tasks`,
 * see `ext_tasks.ts`). `support`: `optional`, it
 * runs as a task for a client that declares the extension and as a plain
 * call otherwise; `required`, it runs only as a task (other clients get
 * -32021). `prepare`, when given, runs first, inside the `tools/call`
 * request itself: what it asks the client is gathered there (as
 * `input_required` rounds under 2026-07-28), and the arguments it returns
 * are those the task runs with.
 */
export interface ToolTaskOptions {
  /** `optional` or `required`. */
  support: "optional" | "required";
  /** Gathers input before the task is created; returns the task's arguments. */
  prepare?: (args: JsonObject, ctx: ToolContext) => Promise<JsonObject>;
}

/**
 * A tool: its definition, as listed, and the function that runs it.
 * `Args` is the type of its arguments, which the server validates against
 * `inputSchema` before calling `run`; {@linkcode defineTool} infers it from
 * the schema. A registry holds tools of any `Args` as `Tool` (whose `run`
 * takes a {@linkcode JsonObject}).
 */
export interface Tool<Args extends JsonObject = JsonObject> {
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
  /** Icons for clients to show it with (2025-11-25). */
  icons?: Icon[];
  /**
   * Whether it runs as a task for clients of the tasks extension (not
   * listed: under the extension the server alone decides).
   */
  task?: ToolTaskOptions;
  /** Run the tool with arguments valid against `inputSchema`. */
  run(args: Args, ctx: ToolContext): ToolResult | Promise<ToolResult>;
}

/** The JSON Schema of one argument, as far as its type is inferred. */
export interface PropertySchema {
  /** The JSON type; `integer` and `number` both give `number`. */
  readonly type?:
    | "string"
    | "integer"
    | "number"
    | "boolean"
    | "array"
    | "object"
    | "null";
  /** The allowed values: their union is the argument's type. */
  readonly enum?: readonly unknown[];
  /** The schema of an array's items. */
  readonly items?: PropertySchema;
  /** Any other keyword (description, minimum, …). */
  readonly [keyword: string]: unknown;
}

/** An object schema a tool's arguments are inferred from. */
export interface ObjectSchema {
  /** Tool arguments are always an object. */
  readonly type: "object";
  /** The named arguments. */
  readonly properties?: { readonly [name: string]: PropertySchema };
  /** The arguments that must be given; the others are optional. */
  readonly required?: readonly string[];
  /** Any other keyword (additionalProperties, …). */
  readonly [keyword: string]: unknown;
}

/** The TypeScript type of a value valid against property schema `P`. */
export type SchemaValue<P> = P extends { readonly enum: readonly (infer E)[] }
  ? E
  : P extends { readonly type: "string" } ? string
  : P extends { readonly type: "integer" | "number" } ? number
  : P extends { readonly type: "boolean" } ? boolean
  : P extends { readonly type: "null" } ? null
  : P extends { readonly type: "array"; readonly items: infer I }
    ? SchemaValue<I>[]
  : P extends { readonly type: "array" } ? unknown[]
  : P extends { readonly type: "object" } ? JsonObject
  : unknown;

/** The names schema `S` lists in `required`, as a union. */
export type RequiredNames<S> = S extends
  { readonly required: readonly (infer R)[] } ? R
  : never;

/**
 * The arguments object schema `S` describes: each property typed by
 * {@linkcode SchemaValue}, those listed in `required` present, the others
 * optional.
 */
export type SchemaArgs<S extends ObjectSchema> = S extends
  { readonly properties: infer P } ?
    & {
      -readonly [K in keyof P as K extends RequiredNames<S> ? K : never]:
        SchemaValue<P[K]>;
    }
    & {
      -readonly [K in keyof P as K extends RequiredNames<S> ? never : K]?:
        SchemaValue<P[K]>;
    }
  : JsonObject;

/**
 * A tool whose `run` gets arguments typed from its `inputSchema`, written
 * as a literal: `{ type: "string" }` gives a string, `"integer"` and
 * `"number"` a number, `enum` the union of its values, and a property not
 * in `required` may be undefined. The server validates the arguments
 * against the schema before `run` is called, so the types hold.
 *
 * @example
 * ```ts
 * import { defineTool } from "./tool.ts";
 *
 * const greet = defineTool({
 *   name: "greet",
 *   description: "Greet someone by name.",
 *   inputSchema: {
 *     type: "object",
 *     properties: {
 *       name: { type: "string" },
 *       times: { type: "integer", minimum: 1 },
 *     },
 *     required: ["name"],
 *   },
 *   run: (args) => ({
 *     content: [{
 *       type: "text",
 *       text: `Hello, ${args.name}! `.repeat(args.times ?? 1),
 *     }],
 *   }),
 * });
 * ```
 */
export function defineTool<const S extends ObjectSchema>(
  tool: Tool<SchemaArgs<S>> & { inputSchema: S },
): Tool<SchemaArgs<S>> {
  return tool;
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
  if (tool.icons !== undefined) definition.icons = tool.icons;
  return definition;
}

/**
 * Whether `name` follows MCP 2025-11-25's rules for tool names: 1 to 128
 * characters, each an ASCII letter, digit, `_`, `-` or `.`.
 */
export function isValidToolName(name: string): boolean {
  return /^[A-Za-z0-9_.-]{1,128}$/.test(name);
}

/**
 * The tools a server offers. Schemas are compiled once per tool, on first
 * use (the validator loads lazily, off the start-up path).
 */
export class ToolRegistry {
  readonly #tools = new Map<string, Tool>();
  readonly #inputChecks = new Map<string, Promise<SchemaCheck>>();
  readonly #outputChecks = new Map<string, Promise<SchemaCheck>>();
  #sorted: Tool[] | undefined;
  /**
   * Called after each change of the set of tools (a server sets it to
   * announce `notifications/tools/list_changed`).
   */
  onChange: (() => void) | undefined;

  /**
   * Add a tool. Its name must be new and valid ({@linkcode isValidToolName}),
   * its inputSchema an object schema, and its schemas in a dialect the
   * validator supports.
   */
  register(tool: Tool): void {
    if (typeof tool.name !== "string" || !isValidToolName(tool.name)) {
      throw new TypeError(
        `Tool name ${
          JSON.stringify(tool.name)
        } is not valid: use 1 to 128 characters, each a letter (A-Z, a-z), a digit, "_", "-" or "."`,
      );
    }
    if (this.#tools.has(tool.name)) {
      throw new TypeError(`A tool named "${tool.name}" is already registered`);
    }
    if (tool.inputSchema.type !== "object") {
      throw new TypeError(
        `Tool "${tool.name}": inputSchema must have "type": "object"`,
      );
    }
    for (const schema of [tool.inputSchema, tool.outputSchema]) {
      if (schema === undefined) continue;
      try {
        schemaDialect(schema);
      } catch (error) {
        throw new TypeError(`Tool "${tool.name}": ${(error as Error).message}`);
      }
    }
    this.#tools.set(tool.name, tool);
    this.#sorted = undefined;
    this.onChange?.();
  }

  /** Remove the tool called `name`; returns whether there was one. */
  unregister(name: string): boolean {
    if (!this.#tools.delete(name)) return false;
    this.#inputChecks.delete(name);
    this.#outputChecks.delete(name);
    this.#sorted = undefined;
    this.onChange?.();
    return true;
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

  /**
   * Check `args` against the tool's inputSchema, and for undeclared names
   * that are slips of declared ones; empty when valid.
   */
  async validateArguments(tool: Tool, args: unknown): Promise<SchemaFailure[]> {
    let check = this.#inputChecks.get(tool.name);
    if (check === undefined) {
      check = compileSchema(tool.inputSchema);
      this.#inputChecks.set(tool.name, check);
    }
    return [
      ...(await check)(args),
      ...misspelledArguments(tool.inputSchema, args),
    ];
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
}
