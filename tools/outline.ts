/**
 * `outline`: a file's definitions (functions, classes, methods, types…),
 * one a line, indented by nesting, each with its kind, name and line
 * range, as plain text: what a model reads to find its way in a file
 * before reading one part of it.
 *
 * @module
 */

import { defineTool, type Tool } from "../mcp/tool.ts";
import { textContent, toolError } from "../mcp/content.ts";
import type { WorkspaceView } from "../workspace/roots.ts";
import { displayPath, plural, READ_ONLY, type ToolCaps } from "./common.ts";
import { READ_PAGE_BYTES } from "./read_file.ts";
import {
  definitionsIn,
  lineRange,
  readSource,
  symbolFileCap,
} from "./symbol_source.ts";

/** Make the `outline` tool over `ws`. */
export function outlineTool(
  ws: WorkspaceView,
  caps: Pick<ToolCaps, "maxReadBytes">,
): Tool {
  const cap = symbolFileCap(caps);
  return defineTool({
    name: "outline",
    title: "Outline a file",
    description:
      `List a source file's definitions (functions, classes, methods, interfaces, types, top-level constants…) without reading the file: one per line, indented by nesting, as "kind name first-last" (line numbers, 1-based). Then read one with read_symbol, or read_file with offset and limit. Reads TypeScript, JavaScript, Python, Go, Rust, Java, C#, C and C++, Ruby, PHP, Bash, PowerShell, CSS and INI files of at most ${cap} bytes.`,
    inputSchema: {
      type: "object",
      properties: {
        path: {
          type: "string",
          minLength: 1,
          description:
            'File path relative to the workspace root, e.g. "src/main.ts".',
        },
      },
      required: ["path"],
    },
    annotations: READ_ONLY,
    async run(args, ctx) {
      const source = await readSource(ws, args.path, cap, ctx.signal);
      if (!source.ok) return toolError(source.reason);
      const result = await definitionsIn(source, ctx.signal);
      const shown = displayPath(source.relative);
      if (!result.ok) {
        return toolError(
          `${shown} could not be outlined: ${result.reason}. Use read_file instead.`,
        );
      }
      const { definitions } = result;
      let text = `${shown} (${source.language.name}): ${
        plural(definitions.length, "definition", "definitions")
      }`;
      if (result.syntaxErrors) {
        text += " (the file has syntax errors; some may be missing)";
      }
      let shownCount = 0;
      for (const def of definitions) {
        const line = `\n${"  ".repeat(def.depth)}${def.kind} ${def.name} ${
          lineRange(def.start, def.end)
        }`;
        if (text.length + line.length > READ_PAGE_BYTES - 200) break;
        text += line;
        shownCount++;
      }
      if (shownCount < definitions.length) {
        const next = definitions[shownCount];
        text += `\n[${shownCount} of ${definitions.length} shown (the ${
          READ_PAGE_BYTES - 200
        }-character limit); the rest start at line ${next.start}: use find_symbol with this path, or read_file from there.]`;
      }
      return { content: [textContent(text)] };
    },
  });
}
