/**
 * The `summarize_directory` prompt: asks the model to summarise a
 * directory, with its listing (and its README, when it has one) embedded.
 *
 * @module
 */

import { RpcError } from "../mcp/jsonrpc.ts";
import {
  definePrompt,
  type Prompt,
  type PromptMessage,
} from "../mcp/prompt.ts";
import { listDirectoryTool } from "../tools/list_directory.ts";
import { embedded, pathCompleter, type PromptSource } from "./common.ts";

/** How deep the embedded listing goes. */
export const LISTING_DEPTH = 2;

/** Make the `summarize_directory` prompt over `source`. */
export function summarizeDirectoryPrompt(source: PromptSource): Prompt {
  const { workspace, resources, caps } = source;
  const list = listDirectoryTool(workspace, caps);
  return definePrompt({
    name: "summarize_directory",
    title: "Summarise a directory",
    description:
      `Summarise what a directory of the workspace holds and how it is organised; its listing (${LISTING_DEPTH} levels deep) and its README, if any, are embedded.`,
    arguments: [
      {
        name: "path",
        title: "Directory",
        description:
          "Directory relative to the workspace root (default: the root).",
        complete: pathCompleter(workspace, { directoriesOnly: true }),
      },
    ],
    async get(args, ctx) {
      const path = args.path ?? "";
      const resolved = await workspace.resolve(path);
      const base = resolved.relative === "" ? "" : `${resolved.relative}/`;
      // The top of several roots has no URI: its listing comes as text.
      const uri = resources.uriOfPath(base);
      const name = resolved.relative !== ""
        ? resolved.relative
        : uri === undefined
        ? "the workspace (each top-level directory is a root)"
        : "the workspace root";
      const result = await list.run(
        { path: resolved.relative, depth: LISTING_DEPTH },
        ctx,
      );
      const listing = result.content.map((block) => String(block.text ?? ""))
        .join("\n");
      const messages: PromptMessage[] = [
        {
          role: "user",
          content: {
            type: "text",
            text:
              `Summarise ${name}: what it holds, how it is organised, and where a newcomer should start reading. Its listing and README (when there is one) follow.`,
          },
        },
      ];
      messages.push({
        role: "user",
        content: uri === undefined
          ? { type: "text", text: listing }
          : embedded({ uri, mimeType: "text/plain", text: listing }),
      });
      const readme = /^(README|readme|Readme)(\.[A-Za-z]+)? \(/m.exec(
        listing.split("\n").map((line) => line.slice(base.length)).join("\n"),
      );
      const readmeUri = readme === null
        ? undefined
        : resources.uriOfPath(base + readme[0].slice(0, -2));
      if (readmeUri !== undefined) {
        try {
          const [contents] = await resources.read(readmeUri, ctx.signal);
          messages.push({ role: "user", content: embedded(contents) });
        } catch (error) {
          if (ctx.signal.aborted || !(error instanceof RpcError)) throw error;
        }
      }
      return { description: `Summary of ${name}`, messages };
    },
  });
}
