/**
 * `find_symbol`: definitions by name (exact, prefix or glob) across the
 * workspace or a directory, one a line as `path:line kind name`, in path
 * order, as plain text. Each file in a language the tools read is read
 * through the workspace (so `.gitignore` and `.git` rules apply), skipped
 * at once when its text does not hold the name's literal part, and parsed
 * otherwise; large files are skipped with a note. Long calls report
 * progress and stop when cancelled.
 *
 * @module
 */

import { defineTool, type Tool } from "../mcp/tool.ts";
import { textContent, toolError } from "../mcp/content.ts";
import { walkSkips } from "../workspace/workspace.ts";
import type { WorkspaceView } from "../workspace/roots.ts";
import { languageOf } from "../symbols/languages.ts";
import {
  displayPath,
  Pacer,
  plural,
  READ_ONLY,
  skippedNote,
  type ToolCaps,
} from "./common.ts";
import { definitionsIn, readSource, symbolFileCap } from "./symbol_source.ts";

/** Longest name pattern accepted, in characters. */
export const MAX_NAME_PATTERN = 200;

/**
 * A test of names against `pattern`: equal to it ("exact"), starting with
 * it ("prefix"), or matching it as a glob ("glob": `*` any run of
 * characters, `?` one), case-sensitively. Glob matching is the two-pointer
 * kind, linear in practice and never worse than the product of the
 * lengths, whatever the pattern.
 */
export function nameMatcher(
  pattern: string,
  match: "exact" | "prefix" | "glob",
): (name: string) => boolean {
  if (match === "exact") return (name) => name === pattern;
  if (match === "prefix") return (name) => name.startsWith(pattern);
  return (name) => {
    let p = 0, n = 0, star = -1, mark = 0;
    while (n < name.length) {
      if (
        p < pattern.length && (pattern[p] === "?" || pattern[p] === name[n])
      ) {
        p++;
        n++;
      } else if (p < pattern.length && pattern[p] === "*") {
        star = p++;
        mark = n;
      } else if (star >= 0) {
        p = star + 1;
        n = ++mark;
      } else return false;
    }
    while (p < pattern.length && pattern[p] === "*") p++;
    return p === pattern.length;
  };
}

/**
 * The longest run of `pattern` that any name it matches holds literally
 * ("" when none): a file whose text lacks it holds no such definition.
 */
export function literalPart(
  pattern: string,
  match: "exact" | "prefix" | "glob",
): string {
  if (match !== "glob") return pattern;
  return pattern.split(/[*?]/).reduce(
    (a, b) => b.length > a.length ? b : a,
    "",
  );
}

/**
 * Make the `find_symbol` tool over `ws`: at most `caps.maxMatches`
 * definitions a call.
 */
export function findSymbolTool(
  ws: WorkspaceView,
  caps: Pick<ToolCaps, "maxMatches" | "maxReadBytes">,
): Tool {
  const cap = symbolFileCap(caps);
  return defineTool({
    name: "find_symbol",
    title: "Find a definition",
    description:
      `Find where functions, classes, methods, types and other definitions are defined, by name, across the workspace or a directory. Returns one per line, in path order: "path:line kind name", with "(in Outer)" for one nested in another; read one with read_symbol ("path:line"). "match" is exact (default), prefix, or glob (* any characters, ? one); names are case-sensitive. Reads the languages outline reads; skips .gitignore'd files and files over ${cap} bytes (with a note). At most ${caps.maxMatches} results.`,
    inputSchema: {
      type: "object",
      properties: {
        name: {
          type: "string",
          minLength: 1,
          maxLength: MAX_NAME_PATTERN,
          description:
            'The name, prefix or glob, e.g. "parseHead", "parse", "*Tool".',
        },
        match: {
          type: "string",
          enum: ["exact", "prefix", "glob"],
          description: "How name is matched (default exact).",
        },
        path: {
          type: "string",
          description:
            "Directory (or file) to search, relative to the root (default: the root).",
        },
        kind: {
          type: "string",
          description:
            'Only definitions of this kind: "function", "class", "method", "interface", "type"…',
        },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: caps.maxMatches,
          description:
            `Most definitions to return (default and maximum ${caps.maxMatches}).`,
        },
      },
      required: ["name"],
    },
    annotations: READ_ONLY,
    async run(args, ctx) {
      const { name, match = "exact", path = "", kind } = args;
      const limit = Math.min(args.limit ?? caps.maxMatches, caps.maxMatches);
      const matches = nameMatcher(name, match);
      const literal = literalPart(name, match);
      const found: string[] = [];
      const large: string[] = [];
      const failed: string[] = [];
      let files = 0;
      let truncated = false;
      const pacer = new Pacer(
        ctx.signal,
        () =>
          ctx.reportProgress(
            files,
            undefined,
            `${plural(files, "file", "files")} read, ${
              plural(found.length, "definition", "definitions")
            } found`,
          ),
      );
      const skips = walkSkips();
      const start = await ws.resolve(path);
      const targets = start.info.isFile
        ? [path]
        : ws.walk({ path, signal: ctx.signal, skips, sizes: true });
      walking: for await (const entry of targets) {
        if (pacer.due()) await pacer.pause();
        if (typeof entry !== "string") {
          if (!entry.isFile || languageOf(entry.relative) === undefined) {
            continue;
          }
          if (entry.size !== undefined && entry.size > cap) {
            large.push(entry.relative);
            continue;
          }
        }
        files++;
        let source;
        try {
          source = await readSource(ws, entry, cap, ctx.signal);
        } catch (error) {
          // A file that vanished or became unreadable since the walk.
          if (ctx.signal.aborted) throw error;
          failed.push(typeof entry === "string" ? entry : entry.relative);
          continue;
        }
        if (!source.ok) {
          if (source.tooLarge) large.push(source.relative);
          else if (typeof entry === "string") {
            return toolError(source.reason);
          }
          continue;
        }
        if (literal !== "" && !source.text.includes(literal)) continue;
        const result = await definitionsIn(source);
        if (!result.ok) {
          failed.push(source.relative);
          continue;
        }
        for (const def of result.definitions) {
          if (!matches(def.name)) continue;
          if (kind !== undefined && def.kind !== kind) continue;
          if (found.length === limit) {
            truncated = true;
            break walking;
          }
          found.push(
            `${
              displayPath(source.relative)
            }:${def.line} ${def.kind} ${def.name}${
              def.parent === undefined ? "" : ` (in ${def.parent})`
            }`,
          );
        }
      }
      const notes: string[] = [];
      if (found.length === 0) {
        notes.push(
          `No definition ${
            match === "exact" ? "named" : `matching (${match})`
          } "${name}"${kind === undefined ? "" : ` of kind ${kind}`} in ${
            plural(files, "source file", "source files")
          }. Try match "prefix" or "glob", or search_text for uses of the name.`,
        );
      }
      if (truncated) {
        notes.push(
          `[The first ${limit} shown; more follow: narrow "path", "kind" or the name.]`,
        );
      }
      if (large.length > 0) {
        notes.push(
          `[${
            plural(large.length, "file was", "files were")
          } skipped as over ${cap} bytes: ${
            large.slice(0, 5).map(displayPath).join(", ")
          }${large.length > 5 ? ", …" : ""}; search_text can search them.]`,
        );
      }
      if (failed.length > 0) {
        notes.push(
          `[${
            plural(failed.length, "file", "files")
          } could not be read or parsed in time: ${
            failed.slice(0, 5).map(displayPath).join(", ")
          }${failed.length > 5 ? ", …" : ""}.]`,
        );
      }
      const walkNote = skippedNote(skips);
      if (walkNote !== undefined) notes.push(`[${walkNote}]`);
      return { content: [textContent([...found, ...notes].join("\n"))] };
    },
  });
}
