/**
 * `completion/complete`: suggestions for a prompt argument (`ref/prompt`)
 * or a resource template variable (`ref/resource`) as the user types it.
 * The other arguments already filled in (`context.arguments`) reach the
 * completer. At most 100 values come back, with `total` and `hasMore`.
 *
 * @module
 */

import { invalidParams, isObject, type JsonObject } from "../mcp/jsonrpc.ts";
import type { Handler, HandlerContext } from "../mcp/server.ts";
import {
  type Completion,
  type CompletionContext,
  completionResult,
} from "../mcp/completion.ts";
import { promptParam, quoted } from "./prompts_get.ts";

const NONE: Completion = { values: [] };

/**
 * The variable names of RFC 6570 template `template`: `{+path}` and
 * `{?q,page*}` name path, q and page.
 */
export function templateVariables(template: string): string[] {
  const names: string[] = [];
  for (const [, body] of template.matchAll(/\{([^}]*)\}/g)) {
    for (const spec of body.replace(/^[+#./;?&]/, "").split(",")) {
      const name = spec.replace(/(\*|:\d+)$/, "");
      if (name !== "") names.push(name);
    }
  }
  return names;
}

function argumentParam(params: JsonObject): { name: string; value: string } {
  const argument = params.argument;
  if (
    !isObject(argument) || typeof argument.name !== "string" ||
    typeof argument.value !== "string"
  ) {
    throw invalidParams(
      'completion/complete needs "argument", an object with the "name" of the argument being typed and its "value" so far (strings), for example {"name":"path","value":"src/"}.',
    );
  }
  return { name: argument.name, value: argument.value };
}

function contextArguments(params: JsonObject): Record<string, string> {
  const context = params.context;
  if (context === undefined) return {};
  const args = isObject(context) ? context.arguments : undefined;
  if (
    !isObject(context) ||
    (args !== undefined &&
      (!isObject(args) ||
        Object.values(args).some((v) => typeof v !== "string")))
  ) {
    throw invalidParams(
      '"context" must be an object whose "arguments" maps the names of arguments already filled in to their values (strings).',
    );
  }
  return { ...(args as Record<string, string> | undefined) };
}

async function completePrompt(
  ref: JsonObject,
  name: string,
  value: string,
  context: CompletionContext,
  ctx: HandlerContext,
): Promise<string[] | Completion> {
  const prompt = promptParam(ref, ctx.server, 'completion/complete\'s "ref"');
  const argument = prompt.arguments?.find((a) => a.name === name);
  if (argument === undefined) {
    const names = (prompt.arguments ?? []).map((a) => a.name);
    throw invalidParams(
      `prompt ${prompt.name} has no argument ${quoted(name)}; ${
        names.length === 0 ? "it takes none" : `it takes ${names.join(", ")}`
      }.`,
    );
  }
  return argument.complete === undefined
    ? NONE
    : await argument.complete(value, { ...context, session: ctx.session });
}

async function completeTemplate(
  ref: JsonObject,
  name: string,
  value: string,
  context: CompletionContext,
  ctx: HandlerContext,
): Promise<Completion> {
  const uri = ref.uri;
  if (typeof uri !== "string") {
    throw invalidParams(
      'a "ref/resource" reference needs "uri", a URI template from resources/templates/list.',
    );
  }
  // The session's own resources (its client's roots) when it has them;
  // a provider still finding them says so, and its templates are those
  // of what it will serve.
  const resources = ctx.server.resourcesFor(ctx.session);
  await resources?.settled?.();
  const template = resources?.templates().find((t) => t.uriTemplate === uri);
  if (resources === undefined || template === undefined) {
    throw invalidParams(
      `unknown resource template ${
        quoted(uri)
      }; pass a "uriTemplate" from resources/templates/list exactly as listed.`,
    );
  }
  const variables = templateVariables(template.uriTemplate);
  if (!variables.includes(name)) {
    throw invalidParams(
      `the template ${template.uriTemplate} has no variable ${quoted(name)}; ${
        variables.length === 0
          ? "it has none"
          : `its variables are ${variables.join(", ")}`
      }.`,
    );
  }
  if (resources.complete === undefined) return NONE;
  return await resources.complete(uri, name, value, context) ?? NONE;
}

/** Handle `completion/complete`. */
export const completionComplete: Handler = async (params, ctx) => {
  const ref = params.ref;
  if (!isObject(ref)) {
    throw invalidParams(
      'completion/complete needs "ref": {"type":"ref/prompt","name":…} for a prompt argument or {"type":"ref/resource","uri":…} for a resource template.',
    );
  }
  const { name, value } = argumentParam(params);
  const context: CompletionContext = {
    arguments: contextArguments(params),
    signal: ctx.signal,
  };
  let suggested: string[] | Completion;
  switch (ref.type) {
    case "ref/prompt":
      suggested = await completePrompt(ref, name, value, context, ctx);
      break;
    case "ref/resource":
      suggested = await completeTemplate(ref, name, value, context, ctx);
      break;
    default:
      throw invalidParams(
        `"ref.type" must be "ref/prompt" or "ref/resource", got ${
          JSON.stringify(ref.type) ?? "nothing"
        }.`,
      );
  }
  return { completion: completionResult(suggested) };
};
