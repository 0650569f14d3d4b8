/**
 * `find_symbol`: definitions by name (exact, prefix or glob) across the
 * workspace or a directory, one a line as `path:line kind name`, in path
 * order, as plain text. Each file in a language the tools read is read
 * through the workspace (so `.gitignore` and `.git` rules apply), skipped
 * at once when its text does not hold the name's literal part, and parsed
 * otherwise, on a worker thread (`symbol_search.ts`); large files are
 * skipped with a note. Long calls report progress and stop when
 * cancelled. With `--index`, the index names the files to read
 * (`symbol_indexed.ts`), with the same answer.
 *
 * @module
 */

import { defineTool, type Tool } from "../mcp/tool.ts";
import { textContent, toolError } from "../mcp/content.ts";
import {
  type ResolvedPath,
  type WalkSkips,
  walkSkips,
} from "../workspace/workspace.ts";
import type { WorkspaceView } from "../workspace/roots.ts";
import type { TextIndex } from "../workspace/text_index.ts";
import { languageOf } from "../symbols/languages.ts";
import {
  displayPath,
  plural,
  READ_ONLY,
  skippedNote,
  type ToolCaps,
} from "./common.ts";
import { symbolFileCap } from "./symbol_source.ts";
import {
  searchSymbols,
  StaleIndex,
  type SymbolCandidate,
  type SymbolHits,
  type SymbolQuery,
  type SymbolSearchOptions,
} from "./symbol_search.ts";

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
 * definitions a call; with `index` (an index of `ws`), the files to read
 * come from it when it can tell.
 */
export function findSymbolTool(
  ws: WorkspaceView,
  caps: Pick<ToolCaps, "maxMatches" | "maxReadBytes">,
  index?: TextIndex,
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
      const query: SymbolQuery = {
        matches: nameMatcher(name, match),
        literal: literalPart(name, match),
        kind,
        limit: Math.min(args.limit ?? caps.maxMatches, caps.maxMatches),
        cap,
      };
      const options: Omit<SymbolSearchOptions, "endSkips"> = {
        signal: ctx.signal,
        progress: (files, found) =>
          ctx.reportProgress(
            files,
            undefined,
            `${plural(files, "file", "files")} read, ${
              plural(found, "definition", "definitions")
            } found`,
          ),
      };
      const search = (
        candidates: Iterable<SymbolCandidate> | AsyncIterable<SymbolCandidate>,
        endSkips: () => WalkSkips,
      ) => searchSymbols(ws, candidates, query, { ...options, endSkips });
      const start = await ws.resolve(path);
      let hits: SymbolHits | { refused: string } | undefined;
      if (index !== undefined && start.info.isDirectory) {
        const { indexedCandidates } = await import("./symbol_indexed.ts");
        const indexed = await indexedCandidates(index, start, query.literal);
        if (indexed !== undefined) {
          try {
            hits = await search(indexed.candidates, indexed.endSkips);
          } catch (error) {
            // A file changed since it was indexed: walk instead.
            if (!(error instanceof StaleIndex)) throw error;
          }
        }
      }
      if (hits === undefined) {
        const skips = walkSkips();
        hits = await search(
          walkCandidates(ws, start, path, skips, ctx.signal),
          () => ({ ...skips }),
        );
      }
      if ("refused" in hits) return toolError(hits.refused);
      return { content: [textContent(answerText(hits, args, query))] };
    },
  });
}

/**
 * The source files of a walk from `start` (or the file it is), with the
 * walk's skips as they stood when each was reached.
 */
async function* walkCandidates(
  ws: WorkspaceView,
  start: ResolvedPath,
  path: string,
  skips: WalkSkips,
  signal: AbortSignal,
): AsyncGenerator<SymbolCandidate> {
  if (start.info.isFile) {
    yield {
      target: path,
      relative: start.relative,
      named: true,
      skips: () => ({ ...skips }),
    };
    return;
  }
  for await (const entry of ws.walk({ path, signal, skips, sizes: true })) {
    if (!entry.isFile || languageOf(entry.relative) === undefined) continue;
    const at = { ...skips };
    yield {
      target: entry,
      relative: entry.relative,
      size: entry.size,
      skips: () => at,
    };
  }
}

/** The answer's text: the definitions found, then the notes. */
function answerText(
  hits: SymbolHits,
  args: { name: string; match?: string; kind?: string },
  query: SymbolQuery,
): string {
  const { name, match = "exact", kind } = args;
  const { found, large, failed, files, truncated } = hits;
  const { cap, limit } = query;
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
  const walkNote = skippedNote(hits.skips);
  if (walkNote !== undefined) notes.push(`[${walkNote}]`);
  return [...found, ...notes].join("\n");
}
