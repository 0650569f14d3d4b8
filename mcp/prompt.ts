/**
 * Prompts: what one is, and the registry a server lists and gets them from.
 * A prompt is declared like a tool, in one {@linkcode definePrompt}: its
 * name, title, description, arguments (each may complete its values) and
 * the function that writes its messages.
 *
 * @module
 */

import type { JsonObject } from "./jsonrpc.ts";
import type { ContentBlock, ToolContext } from "./tool.ts";
import type { Completion, CompletionContext } from "./completion.ts";
import type { Icon } from "./icon.ts";

/** What a prompt's `get` and its completers get beside their arguments. */
export type PromptContext = ToolContext;

/**
 * What a prompt argument's completer gets beside the value typed: the
 * completion context and the session the request came on (a completer
 * whose values depend on what that session is served reads it here).
 */
export interface PromptCompletionContext extends CompletionContext {
  /** The session the `completion/complete` request came on. */
  readonly session: ToolContext["session"];
}

/**
 * Suggests values for a prompt argument as it is typed; any `Completer`
 * (mcp/completion.ts) is one.
 */
export type PromptCompleter = (
  value: string,
  context: PromptCompletionContext,
) => string[] | Completion | Promise<string[] | Completion>;

/** One argument of a prompt. */
export interface PromptArgument {
  /** The name the client passes it by. */
  readonly name: string;
  /** Human-readable name. */
  readonly title?: string;
  /** What it is, for the person filling it in. */
  readonly description?: string;
  /** Whether `prompts/get` must carry it. */
  readonly required?: boolean;
  /** Suggests values for `completion/complete`. */
  readonly complete?: PromptCompleter;
}

/** One message of a `prompts/get` result. */
export interface PromptMessage {
  /** Who speaks. */
  role: "user" | "assistant";
  /** One content block: text, image, audio, resource, resource_link. */
  content: ContentBlock;
}

/** What a prompt's `get` returns: the `prompts/get` result. */
export interface PromptResult {
  /** What this particular prompt is about. */
  description?: string;
  /** The messages, in order. */
  messages: PromptMessage[];
}

/**
 * The arguments object a prompt's `get` receives for argument list `A`:
 * the required ones are strings, the others may be undefined.
 */
export type PromptArgs<A extends readonly PromptArgument[]> =
  & {
    [
      P in A[number] as P extends { readonly required: true } ? P["name"]
        : never
    ]: string;
  }
  & {
    [
      P in A[number] as P extends { readonly required: true } ? never
        : P["name"]
    ]?: string;
  };

/**
 * A prompt: its definition, as listed, and the function that writes it.
 * The server checks the arguments against `arguments` (each a string,
 * every required one present, no unknown name) before `get` is called.
 */
export interface Prompt<
  Args extends Record<string, string | undefined> = Record<
    string,
    string | undefined
  >,
> {
  /** Unique name the client gets it by. */
  name: string;
  /** Human-readable name. */
  title?: string;
  /** What it is for. */
  description?: string;
  /** Its arguments, in the order a client should ask for them. */
  arguments?: readonly PromptArgument[];
  /** Icons for clients to show it with (2025-11-25). */
  icons?: Icon[];
  /** Write the prompt's messages for valid `args`. */
  get(args: Args, ctx: PromptContext): PromptResult | Promise<PromptResult>;
}

/**
 * A prompt whose `get` gets arguments typed from its `arguments` list,
 * written as a literal: a required argument is a string, the others
 * `string | undefined`. (A completer written inline needs its parameters
 * typed, or given as a named function, for the inference to work.)
 *
 * @example
 * ```ts
 * import { definePrompt } from "./prompt.ts";
 *
 * const greet = definePrompt({
 *   name: "greet",
 *   title: "Greet",
 *   description: "Ask the model to greet someone.",
 *   arguments: [
 *     { name: "who", description: "Who to greet", required: true },
 *     { name: "tone", complete: () => ["warm", "formal"] },
 *   ],
 *   get: (args) => ({
 *     messages: [{
 *       role: "user",
 *       content: {
 *         type: "text",
 *         text: `Greet ${args.who} in a ${args.tone ?? "warm"} tone.`,
 *       },
 *     }],
 *   }),
 * });
 * ```
 */
export function definePrompt<
  const A extends readonly PromptArgument[] = readonly [],
>(
  prompt: Omit<Prompt, "arguments" | "get"> & {
    arguments?: A;
    get(
      args: PromptArgs<A>,
      ctx: PromptContext,
    ): PromptResult | Promise<PromptResult>;
  },
): Prompt {
  return prompt as unknown as Prompt;
}

/** The wire form of a prompt in `prompts/list`, keys in the specification's order. */
export function promptDefinition(prompt: Prompt): JsonObject {
  const definition: JsonObject = { name: prompt.name };
  if (prompt.title !== undefined) definition.title = prompt.title;
  if (prompt.description !== undefined) {
    definition.description = prompt.description;
  }
  if (prompt.arguments !== undefined && prompt.arguments.length > 0) {
    definition.arguments = prompt.arguments.map((argument) => {
      const out: JsonObject = { name: argument.name };
      if (argument.title !== undefined) out.title = argument.title;
      if (argument.description !== undefined) {
        out.description = argument.description;
      }
      if (argument.required !== undefined) out.required = argument.required;
      return out;
    });
  }
  if (prompt.icons !== undefined) definition.icons = prompt.icons;
  return definition;
}

/** The prompts a server offers. */
export class PromptRegistry {
  readonly #prompts = new Map<string, Prompt>();
  #sorted: Prompt[] | undefined;
  /**
   * Called after each change of the set of prompts (a server sets it to
   * announce `notifications/prompts/list_changed`).
   */
  onChange: (() => void) | undefined;

  /** Add a prompt; its name, and each argument's name, must be new. */
  register(prompt: Prompt): void {
    if (typeof prompt.name !== "string" || prompt.name === "") {
      throw new TypeError("A prompt needs a non-empty name");
    }
    if (this.#prompts.has(prompt.name)) {
      throw new TypeError(
        `A prompt named "${prompt.name}" is already registered`,
      );
    }
    const names = new Set<string>();
    for (const argument of prompt.arguments ?? []) {
      if (names.has(argument.name)) {
        throw new TypeError(
          `Prompt "${prompt.name}" declares argument "${argument.name}" twice`,
        );
      }
      names.add(argument.name);
    }
    this.#prompts.set(prompt.name, prompt);
    this.#sorted = undefined;
    this.onChange?.();
  }

  /** Remove the prompt called `name`; returns whether there was one. */
  unregister(name: string): boolean {
    if (!this.#prompts.delete(name)) return false;
    this.#sorted = undefined;
    this.onChange?.();
    return true;
  }

  /** The prompt called `name`, if any. */
  get(name: string): Prompt | undefined {
    return this.#prompts.get(name);
  }

  /** How many prompts there are. */
  get size(): number {
    return this.#prompts.size;
  }

  /** All prompts sorted by name (code-unit order): the `prompts/list` order. */
  sorted(): readonly Prompt[] {
    return this.#sorted ??= [...this.#prompts.values()].sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0
    );
  }
}
