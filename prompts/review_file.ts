/**
 * The `review_file` prompt: asks the model to review one workspace file,
 * embedded in the prompt as a resource (an image comes as an image).
 *
 * @module
 */

import type { CompletionContext } from "../mcp/completion.ts";
import { definePrompt, type Prompt } from "../mcp/prompt.ts";
import type { ContentBlock } from "../mcp/tool.ts";
import { WorkspaceError } from "../workspace/workspace.ts";
import {
  embedded,
  pathCompleter,
  type PromptSource,
  readPath,
} from "./common.ts";

/** What a review can focus on, in the order they are suggested. */
export const REVIEW_FOCUSES = [
  "correctness",
  "readability",
  "security",
  "performance",
  "tests",
] as const;

// A file whose name says it holds tests.
const TEST_FILE = /(^|[/_.-])(test|tests|spec)([/_.-]|$)/i;

/**
 * The focuses that begin with `value`, ranked by the file already chosen
 * (`context.arguments.path`): for a test file, "tests" comes first.
 */
export function completeFocus(
  value: string,
  context: CompletionContext,
): string[] {
  const path = context.arguments.path ?? "";
  const ranked = TEST_FILE.test(path)
    ? ["tests", ...REVIEW_FOCUSES.filter((f) => f !== "tests")]
    : [...REVIEW_FOCUSES];
  return ranked.filter((focus) => focus.startsWith(value));
}

/** Make the `review_file` prompt over `source`. */
export function reviewFilePrompt(source: PromptSource): Prompt {
  const { workspace, resources } = source;
  return definePrompt({
    name: "review_file",
    title: "Review a file",
    description:
      "Review one file of the workspace for bugs, unclear code and risks; the file is embedded in the prompt.",
    arguments: [
      {
        name: "path",
        title: "File",
        description: "File to review, relative to the workspace root.",
        required: true,
        complete: pathCompleter(workspace),
      },
      {
        name: "focus",
        title: "Focus",
        description: `What to look at most: ${REVIEW_FOCUSES.join(", ")}.`,
        complete: completeFocus,
      },
    ],
    async get(args, ctx) {
      const resolved = await workspace.resolve(args.path);
      if (!resolved.info.isFile) {
        throw new WorkspaceError(
          "not_a_file",
          args.path,
          `"${args.path}" is not a file; review_file takes a file (use summarize_directory for a directory).`,
        );
      }
      const [contents] = await readPath(
        resources,
        resolved.relative,
        ctx.signal,
      );
      const focus = args.focus === undefined || args.focus === ""
        ? "correctness first, then readability"
        : args.focus;
      const file: ContentBlock =
        "blob" in contents && contents.mimeType?.startsWith("image/")
          ? { type: "image", data: contents.blob, mimeType: contents.mimeType }
          : embedded(contents);
      return {
        description: `Review of ${resolved.relative}`,
        messages: [
          {
            role: "user",
            content: {
              type: "text",
              text:
                `Please review the file ${resolved.relative} from this workspace, focusing on ${focus}. Point out concrete problems with their line numbers, explain why each matters, and suggest a fix. Say plainly when you find nothing worth changing.`,
            },
          },
          { role: "user", content: file },
        ],
      };
    },
  });
}
