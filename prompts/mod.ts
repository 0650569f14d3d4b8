/**
 * The workspace prompt set. Adding a prompt is one module in this folder
 * (see the README's "Prompts and completion") and its entry in the list
 * below.
 *
 * @module
 */

import { describeError, ErrorCode, RpcError } from "../mcp/jsonrpc.ts";
import type { Prompt } from "../mcp/prompt.ts";
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
