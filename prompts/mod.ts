/**
 * The workspace prompt set. Adding a prompt is one module in this folder
 * (see the README's "Prompts and completion") and its entry in the list
 * below.
 *
 * @module
 */

import { describeError, ErrorCode, RpcError } from "../mcp/jsonrpc.ts";
import type {
  Prompt,
  PromptArgument,
  PromptCompletionContext,
} from "../mcp/prompt.ts";
import type { Session } from "../mcp/session.ts";
import type { ToolCaps } from "../tools/common.ts";
import { rootsNote, type RootsSource, type Served } from "../tools/served.ts";
import { Roots } from "../workspace/roots.ts";
import { WorkspaceError } from "../workspace/workspace.ts";
import type { PromptSource } from "./common.ts";
import { explainSearchPrompt } from "./explain_search.ts";
import { reviewFilePrompt } from "./review_file.ts";
import { summarizeDirectoryPrompt } from "./summarize_directory.ts";

export type { PromptSource } from "./common.ts";

/** Every workspace prompt over `source`. */
export function workspacePrompts(source: PromptSource): Prompt[] {
  return [
    reviewFilePrompt(source),
    explainSearchPrompt(source),
    summarizeDirectoryPrompt(source),
  ].map(reportingWorkspaceErrors);
}

/**
 * The workspace prompts over what `served` serves, as its tools see it:
 * one root as itself; over several, paths start with a root's name, which
 * each prompt's description then says (as the tools' do).
 */
export function servedPrompts(served: Served, caps: ToolCaps): Prompt[] {
  const prompts = workspacePrompts({
    workspace: served.view,
    resources: served.resources,
    caps,
  });
  if (!(served.view instanceof Roots)) return prompts;
  const note = rootsNote(served.view);
  return prompts.map((prompt) => ({
    ...prompt,
    description: `${prompt.description} ${note}`,
  }));
}

/**
 * The workspace prompts over the roots each session is served
 * (`roots.servedFor(session)`: its client's roots, as the tools serve
 * them): `prompts/get` and the completion of each argument run over the
 * session's own. Their definitions are those over `fallback`.
 */
export function sessionPrompts(
  roots: RootsSource,
  fallback: Served,
  caps: ToolCaps,
): Prompt[] {
  // One prompt set per set of roots served, made when first used.
  const made = new WeakMap<Served, Map<string, Prompt>>();
  const promptsFor = async (session: Session) => {
    const served = await roots.servedFor(session);
    let prompts = made.get(served);
    if (prompts === undefined) {
      prompts = new Map(
        servedPrompts(served, caps).map((prompt) => [prompt.name, prompt]),
      );
      made.set(served, prompts);
    }
    return prompts;
  };
  return servedPrompts(fallback, caps).map((prompt) => ({
    ...prompt,
    arguments: prompt.arguments?.map((argument): PromptArgument => {
      const complete = argument.complete;
      if (complete === undefined) return argument;
      return {
        ...argument,
        complete: async (value: string, context: PromptCompletionContext) => {
          const own = (await promptsFor(context.session)).get(prompt.name)
            ?.arguments?.find((a) => a.name === argument.name)?.complete ??
            complete;
          return await own(value, context);
        },
      };
    }),
    async get(args, ctx) {
      const own = (await promptsFor(ctx.session)).get(prompt.name) ?? prompt;
      return await own.get(args, ctx);
    },
  }));
}

/**
 * `prompt`, with the workspace's refusals (a missing file, a path outside
 * the root) turned into -32602 errors that say what was wrong: the
 * arguments named something the workspace does not serve.
 */
function reportingWorkspaceErrors(prompt: Prompt): Prompt {
  return {
    ...prompt,
    async get(args, ctx) {
      try {
        return await prompt.get(args, ctx);
      } catch (error) {
        if (error instanceof WorkspaceError) {
          throw new RpcError(
            ErrorCode.InvalidParams,
            describeError(
              ErrorCode.InvalidParams,
              `prompt ${prompt.name}: ${error.message}`,
            ),
            { prompt: prompt.name, path: error.path },
          );
        }
        throw error;
      }
    },
  };
}
