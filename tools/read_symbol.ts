/**
 * `read_symbol`: one definition's text, as numbered lines (like
 * `read_file`), found by its name in a file or by a line inside it
 * (`path:line`), optionally with the comment above it (its doc comment).
 * A model reads the one method it wants instead of the whole file.
 *
 * @module
 */

import { defineTool, type Tool } from "../mcp/tool.ts";
import { textContent, toolError } from "../mcp/content.ts";
import type { Definition } from "../symbols/definitions.ts";
import type { WorkspaceView } from "../workspace/roots.ts";
import { displayPath, READ_ONLY, type ToolCaps } from "./common.ts";
import { numberLines, READ_PAGE_BYTES } from "./read_file.ts";
import {
  definitionsIn,
  lineRange,
  readSource,
  symbolFileCap,
} from "./symbol_source.ts";

/** Languages whose comments start with `#`. */
const HASH_COMMENTS = new Set(["python", "ruby", "bash", "powershell", "php"]);

/**
 * The first line of the comment block (and, in Rust, attributes) right
 * above line `start` (1-based) of `lines`, or `start` when there is none.
 */
export function docStart(
  lines: readonly string[],
  start: number,
  language: string,
): number {
  let first = start;
  let inBlock = false;
  for (let i = start - 2; i >= 0; i--) {
    const line = lines[i].trim();
    if (inBlock) {
      first = i + 1;
      if (line.startsWith("/*")) inBlock = false;
      continue;
    }
    if (line.endsWith("*/")) {
      first = i + 1;
      if (!line.startsWith("/*")) inBlock = true;
      continue;
    }
    const comment = line.startsWith("//") ||
      (HASH_COMMENTS.has(language) && line.startsWith("#")) ||
      (language === "rust" && line.startsWith("#[")) ||
      (language === "powershell" && line.startsWith("<#"));
    if (!comment) break;
    first = i + 1;
  }
  return first;
}

/** Which of `definitions` `name` ("name" or "Outer.name") names. */
function named(definitions: Definition[], name: string): Definition[] {
  const exact = definitions.filter((def) => def.name === name);
  if (exact.length > 0) return exact;
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return [];
  const outer = name.slice(0, dot);
  const inner = name.slice(dot + 1);
  return definitions.filter((def) =>
    def.name === inner && def.parent === outer
  );
}

/** Make the `read_symbol` tool over `ws`. */
export function readSymbolTool(
  ws: WorkspaceView,
  caps: Pick<ToolCaps, "maxReadBytes">,
): Tool {
  const cap = symbolFileCap(caps);
  const pageBytes = Math.min(caps.maxReadBytes, READ_PAGE_BYTES);
  return defineTool({
    name: "read_symbol",
    title: "Read one definition",
    description:
      `Read one definition (a function, class, method, type…) from a source file, as numbered lines like read_file, instead of the whole file. Name it by "path" and "name" ("parseHead", or "Server.shutdown" for a method of a class), or by a line inside it: "path" as "src/main.ts:120" (as find_symbol answers). "doc": true adds the comment right above it. Reads the languages outline reads.`,
    inputSchema: {
      type: "object",
      properties: {
        path: {
          type: "string",
          minLength: 1,
          description:
            'File path relative to the workspace root, optionally with ":line", e.g. "src/main.ts" or "src/main.ts:120".',
        },
        name: {
          type: "string",
          minLength: 1,
          description:
            'The definition\'s name, or "Outer.name" (a method of a class).',
        },
        doc: {
          type: "boolean",
          description:
            "Also return the comment right above it (default false).",
        },
      },
      required: ["path"],
    },
    annotations: READ_ONLY,
    async run(args, ctx) {
      let path = args.path;
      let line: number | undefined;
      const colon = /:(\d+)$/.exec(path);
      if (colon !== null && args.name === undefined) {
        path = path.slice(0, colon.index);
        line = Number(colon[1]);
      }
      if (line === undefined && args.name === undefined) {
        return toolError(
          `Say which definition: give "name", or a line as "${path}:LINE". outline lists the file's definitions.`,
        );
      }
      const source = await readSource(ws, path, cap, ctx.signal);
      if (!source.ok) return toolError(source.reason);
      const result = await definitionsIn(source, ctx.signal);
      const shown = displayPath(source.relative);
      if (!result.ok) {
        return toolError(
          `${shown} could not be parsed: ${result.reason}. Use read_file instead.`,
        );
      }
      let def: Definition | undefined;
      if (args.name !== undefined) {
        const candidates = named(result.definitions, args.name);
        if (candidates.length === 0) {
          return toolError(
            `${shown} has no definition named "${args.name}". Use outline to list its definitions, or find_symbol to search other files.`,
          );
        }
        if (candidates.length > 1) {
          return toolError(
            `${shown} has ${candidates.length} definitions named "${args.name}": ${
              candidates.map((d) =>
                `${source.relative}:${d.line} ${d.kind}${
                  d.parent === undefined ? "" : ` (in ${d.parent})`
                }`
              ).join("; ")
            }. Call again with one of these as "path" (and no name).`,
          );
        }
        def = candidates[0];
      } else {
        // The innermost definition holding the line.
        for (const d of result.definitions) {
          if (d.start <= line! && line! <= d.end) {
            if (def === undefined || d.depth > def.depth) def = d;
          }
        }
        if (def === undefined) {
          return toolError(
            `No definition in ${shown} holds line ${line}. Use outline to list its definitions, or read_file with offset ${line}.`,
          );
        }
      }
      const lines = source.text.split("\n");
      for (let i = 0; i < lines.length; i++) {
        if (lines[i].endsWith("\r")) lines[i] = lines[i].slice(0, -1);
      }
      const first = args.doc === true
        ? docStart(lines, def.start, source.language.name)
        : def.start;
      let last = def.end;
      let body = numberLines(lines.slice(first - 1, last), first);
      let note = "";
      if (body.length > pageBytes) {
        // Cut at a line end within the page; say where the rest starts.
        const cut = body.lastIndexOf("\n", pageBytes);
        body = body.slice(0, Math.max(cut, 0));
        last = first + body.split("\n").length - 1;
        note =
          `\n[Lines ${first}-${last} of ${first}-${def.end} shown (the ${pageBytes}-byte limit); call read_file with offset ${
            last + 1
          } for the rest.]`;
      }
      const header = `${shown}:${lineRange(first, def.end)} ${def.kind} ${
        def.parent === undefined ? "" : `${def.parent}.`
      }${def.name}`;
      return { content: [textContent(`${header}\n${body}${note}`)] };
    },
  });
}
