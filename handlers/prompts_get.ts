/**
 * `prompts/get`: find the prompt, check its arguments against its
 * declaration, and write its messages.
 *
 * Every argument is a string; a required one must be given, and a name the
 * prompt does not declare is refused, so a typo is never silently dropped.
 * Each failure is -32602 with a message naming the argument.
 *
 * @module
 */

import {
  ErrorCode,
  invalidParams,
  isObject,
  type JsonObject,
  RpcError,
} from "../mcp/jsonrpc.ts";
import type { Handler } from "../mcp/server.ts";
import type { Prompt } from "../mcp/prompt.ts";
import { promptResultForVersion } from "../mcp/protocol_versions.ts";

/** A name as error messages show it: quoted, escaped, cut at 200 characters. */
export function quoted(name: string): string {
  return JSON.stringify(name.length > 200 ? name.slice(0, 200) + "…" : name);
}

/** The -32602 error for a prompt name the server does not have. */
export function unknownPrompt(name: string): RpcError {
  return new RpcError(
    ErrorCode.InvalidParams,
    `Unknown prompt: ${
      quoted(name)
    }; call prompts/list for the names of this server's prompts.`,
    { prompt: name },
  );
}

/** The prompt `params.name` names, or -32602. */
export function promptParam(params: JsonObject, server: {
  prompts: { get(name: string): Prompt | undefined };
}, method: string): Prompt {
  const name = params.name;
  if (typeof name !== "string") {
    throw invalidParams(
      `${method} needs "name", a string naming a prompt from prompts/list.`,
    );
  }
  const prompt = server.prompts.get(name);
  if (prompt === undefined) throw unknownPrompt(name);
  return prompt;
}

// What the prompt declares, as one phrase for error messages.
function declared(prompt: Prompt): string {
  const names = (prompt.arguments ?? []).map((a) => a.name);
  return names.length === 0
    ? `prompt ${prompt.name} takes no arguments`
    : `prompt ${prompt.name} takes ${names.join(", ")}`;
}

/**
 * `given` checked against `prompt`'s arguments: an object of strings, each
 * declared, every required one present. Throws -32602 naming what is wrong.
 */
export function checkArguments(
  prompt: Prompt,
  given: unknown,
): Record<string, string> {
  if (given === undefined) given = {};
  if (!isObject(given)) {
    throw invalidParams(
      `"arguments" must be an object of named string arguments (or omitted); ${
        declared(prompt)
      }.`,
    );
  }
  const known = new Set((prompt.arguments ?? []).map((a) => a.name));
  const args: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (!known.has(name)) {
      throw invalidParams(
        `unknown argument ${quoted(name)}; ${declared(prompt)}.`,
        { prompt: prompt.name, argument: name },
      );
    }
    if (typeof value !== "string") {
      throw invalidParams(
        `argument ${
          quoted(name)
        } must be a string (prompt arguments are text), got ${
          value === null
            ? "null"
            : Array.isArray(value)
            ? "an array"
            : typeof value
        }.`,
        { prompt: prompt.name, argument: name },
      );
    }
    args[name] = value;
  }
  const missing = (prompt.arguments ?? []).filter((a) =>
    a.required === true && !Object.hasOwn(args, a.name)
  ).map((a) => a.name);
  if (missing.length > 0) {
    throw invalidParams(
      `missing required argument${missing.length > 1 ? "s" : ""} ${
        missing.map(quoted).join(", ")
      } of prompt ${prompt.name}; pass ${
        missing.length > 1 ? "them" : "it"
      } in "arguments".`,
      { prompt: prompt.name, missing },
    );
  }
  return args;
}

/** Handle `prompts/get`. */
export const promptsGet: Handler = async (params, ctx) => {
  const prompt = promptParam(params, ctx.server, "prompts/get");
  const args = checkArguments(prompt, params.arguments);
  const written = await prompt.get(args, ctx);
  // Keys in the specification's order, whatever order `get` used.
  const result: JsonObject = {};
  if (written.description !== undefined) {
    result.description = written.description;
  }
  result.messages = written.messages as unknown as JsonObject[];
  // Written for the newest version; trimmed to what the session speaks.
  return promptResultForVersion(result, ctx.session.protocolVersion);
};
