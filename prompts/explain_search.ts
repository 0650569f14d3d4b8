/**
 * The `explain_search` prompt: runs a text search over the workspace and
 * asks the model to explain what the hits show; the hits come as text and
 * the files they are in are embedded as resources.
 *
 * @module
 */

import { definePrompt, type Prompt } from "../mcp/prompt.ts";
import type { PromptMessage } from "../mcp/prompt.ts";
import { RpcError } from "../mcp/jsonrpc.ts";
import { searchTextTool } from "../tools/search_text.ts";
import { embedded, pathCompleter, type PromptSource } from "./common.ts";

/** Most files whose content the prompt embeds beside the hits. */
export const MAX_EMBEDDED_FILES = 5;

/** Make the `explain_search` prompt over `source`. */
export function explainSearchPrompt(source: PromptSource): Prompt {
  const { workspace, resources, caps } = source;
  const search = searchTextTool(workspace, caps);
  return definePrompt({
    name: "explain_search",
    title: "Explain search hits",
    description:
      `Search the workspace for a text and explain what the hits show: where it is defined, how it is used. The hits are included, and the first ${MAX_EMBEDDED_FILES} files with hits are embedded.`,
    arguments: [
      {
        name: "query",
        title: "Text",
        description: "Text to search for (case-sensitive, not a regex).",
        required: true,
      },
      {
        name: "path",
        title: "Where",
        description:
          "Directory or file to search, relative to the root (default: the whole workspace).",
        complete: pathCompleter(workspace),
      },
    ],
    async get(args, ctx) {
      if (args.query === "") {
        throw new RpcError(
          -32602,
          'Invalid params: argument "query" of explain_search is empty; pass the text to search for.',
        );
      }
      const result = await search.run(
        { query: args.query, path: args.path ?? "" },
        ctx,
      );
      const hits = result.content.map((block) => String(block.text ?? ""))
        .join("\n");
      const files: string[] = [];
      for (const line of hits.split("\n")) {
        const match = /^([^"[].*?):\d+:/.exec(line);
        if (match === null || files.includes(match[1])) continue;
        files.push(match[1]);
        if (files.length === MAX_EMBEDDED_FILES) break;
      }
      const where = args.path ? ` under ${args.path}` : "";
      const messages: PromptMessage[] = [{
        role: "user",
        content: {
          type: "text",
          text: files.length === 0
            ? `I searched this workspace${where} for "${args.query}" and found nothing:\n\n${hits}\n\nSuggest where else or what else to look for.`
            : `I searched this workspace${where} for "${args.query}". Explain what these hits show: where it is defined, how and where it is used, and anything surprising. The hits (path:line:text):\n\n${hits}`,
        },
      }];
      for (const path of files) {
        const uri = resources.uriOfPath(path);
        if (uri === undefined) continue;
        try {
          const [contents] = await resources.read(uri, ctx.signal);
          messages.push({ role: "user", content: embedded(contents) });
        } catch (error) {
          // Too large or gone since the search: the hits still stand.
          if (ctx.signal.aborted || !(error instanceof RpcError)) throw error;
        }
      }
      return {
        description: `Search hits for "${args.query}"${where}`,
        messages,
      };
    },
  });
}
