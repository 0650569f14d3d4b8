/**
 * `search_text`: lines of workspace files that contain a string or match a
 * regular expression, as `path:line:text`.
 *
 * @module
 */

import type { JsonObject } from "../mcp/jsonrpc.ts";
import type { Tool } from "../mcp/tool.ts";
import { textContent, toolError } from "../mcp/content.ts";
import { decodeText, isProbablyText } from "../workspace/content.ts";
import {
  type ReadResult,
  type WalkEntry,
  type Workspace,
  WorkspaceError,
} from "../workspace/workspace.ts";
import { globMatcher, plural, READ_ONLY, type ToolCaps } from "./common.ts";
import { matchLines, RegexTimeoutError } from "./regex_worker.ts";

/** Time a whole regex search may spend matching, in milliseconds. */
export const REGEX_BUDGET_MS = 3000;

/** Longest line text returned per match, in characters. */
export const MAX_LINE_CHARS = 400;

// Files are handed to the regex worker in batches of about this many chars.
const BATCH_CHARS = 1 << 20;

interface Match {
  path: string;
  line: number;
  text: string;
}

function clip(line: string): string {
  return line.length > MAX_LINE_CHARS
    ? `${line.slice(0, MAX_LINE_CHARS)}…`
    : line;
}

function lineAt(text: string, number: number): string {
  let start = 0;
  for (let i = 1; i < number; i++) start = text.indexOf("\n", start) + 1;
  const end = text.indexOf("\n", start);
  const line = text.slice(start, end === -1 ? text.length : end);
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

function literalMatches(
  text: string,
  query: string,
  caseSensitive: boolean,
  limit: number,
): [number, string][] {
  const hits: [number, string][] = [];
  const haystack = caseSensitive ? text : text.toLowerCase();
  const needle = caseSensitive ? query : query.toLowerCase();
  // Lower-casing can change lengths for a few characters, so positions are
  // mapped through line numbers only when the lengths still agree.
  const sameShape = haystack.length === text.length;
  const lines = sameShape ? undefined : text.split("\n");
  let from = 0;
  let lineNumber = 1;
  let lineStart = 0;
  while (hits.length < limit) {
    const at = haystack.indexOf(needle, from);
    if (at === -1) break;
    // Advance the line counter to the match.
    let newline: number;
    while (
      (newline = haystack.indexOf("\n", lineStart)) !== -1 && newline < at
    ) {
      lineNumber++;
      lineStart = newline + 1;
    }
    const end = haystack.indexOf("\n", lineStart);
    const lineEnd = end === -1 ? haystack.length : end;
    const raw = sameShape
      ? text.slice(lineStart, lineEnd)
      : (lines as string[])[lineNumber - 1] ?? "";
    hits.push([lineNumber, raw.endsWith("\r") ? raw.slice(0, -1) : raw]);
    from = lineEnd + 1;
    if (end === -1) break;
  }
  return hits;
}

/** Make the `search_text` tool over `ws`. */
export function searchTextTool(
  ws: Workspace,
  caps: Pick<ToolCaps, "maxMatches" | "maxReadBytes">,
): Tool {
  return {
    name: "search_text",
    title: "Search text",
    description:
      `Search the workspace's text files for lines containing "query" (or matching it as a JavaScript regular expression when "regex" is true). Case-sensitive unless "caseSensitive" is false. "path" limits the search to a directory, "glob" to matching files ("*.ts"). Returns path:line:text lines, at most ${caps.maxMatches} matches; skips binary files, files over ${caps.maxReadBytes} bytes, .git and .gitignore'd files.`,
    inputSchema: {
      type: "object",
      properties: {
        query: {
          type: "string",
          minLength: 1,
          description:
            "Text to find, or a regular expression when regex is true.",
        },
        regex: {
          type: "boolean",
          description:
            "Treat query as a JavaScript regular expression (default false).",
        },
        caseSensitive: {
          type: "boolean",
          description: "Match case exactly (default true).",
        },
        path: {
          type: "string",
          description:
            "Directory (or file) to search, relative to the root (default: the root).",
        },
        glob: {
          type: "string",
          minLength: 1,
          description: 'Only search files matching this glob, e.g. "*.ts".',
        },
        limit: {
          type: "integer",
          minimum: 1,
          description:
            `Most matches to return (default and maximum ${caps.maxMatches}).`,
        },
      },
      required: ["query"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        query: { type: "string" },
        matches: {
          type: "array",
          items: {
            type: "object",
            properties: {
              path: { type: "string" },
              line: { type: "integer", minimum: 1 },
              text: { type: "string" },
            },
            required: ["path", "line", "text"],
          },
        },
        filesSearched: { type: "integer", minimum: 0 },
        filesSkipped: { type: "integer", minimum: 0 },
        truncated: { type: "boolean" },
        note: { type: "string" },
      },
      required: ["query", "matches", "filesSearched", "truncated"],
    },
    annotations: READ_ONLY,
    async run(args, ctx) {
      const query = args.query as string;
      const useRegex = (args.regex as boolean | undefined) ?? false;
      const caseSensitive = (args.caseSensitive as boolean | undefined) ?? true;
      const path = (args.path as string | undefined) ?? "";
      const limit = Math.min(
        (args.limit as number | undefined) ?? caps.maxMatches,
        caps.maxMatches,
      );
      let flags = caseSensitive ? "" : "i";
      if (useRegex) {
        try {
          new RegExp(query, flags + "u");
          flags += "u";
        } catch {
          try {
            new RegExp(query, flags);
          } catch (error) {
            return toolError(
              `"${query}" is not a valid regular expression (${
                (error as Error).message
              }); fix it, or pass regex: false to search for the text literally.`,
            );
          }
        }
      }
      const start = await ws.resolve(path);
      const inGlob = args.glob === undefined ? () => true : await globMatcher(
        args.glob as string,
        start.info.isDirectory ? start.relative : "",
      );

      // The files to search: the one named, or a walk of the directory.
      async function* files(): AsyncGenerator<
        {
          relative: string;
          absolute: string;
          size: number;
          target: string | WalkEntry;
        }
      > {
        if (start.info.isFile) {
          yield {
            relative: start.relative,
            absolute: start.absolute,
            size: start.info.size,
            target: start.relative,
          };
          return;
        }
        for await (
          const entry of ws.walk({ path, signal: ctx.signal })
        ) {
          if (!entry.isFile || !inGlob(entry.relative)) continue;
          yield {
            relative: entry.relative,
            absolute: entry.absolute,
            size: entry.size ?? 0,
            target: entry,
          };
        }
      }

      const matches: Match[] = [];
      let searched = 0;
      let skipped = 0;
      const deadline = performance.now() + REGEX_BUDGET_MS;
      let batch: { path: string; text: string }[] = [];
      let batchChars = 0;
      const flush = async () => {
        if (batch.length === 0 || matches.length >= limit) return;
        const hits = await matchLines(
          query,
          flags,
          batch.map((f) => f.text),
          limit - matches.length,
          deadline,
          REGEX_BUDGET_MS,
          ctx.signal,
        );
        for (let i = 0; i < hits.length; i += 2) {
          const file = batch[hits[i]];
          matches.push({
            path: file.path,
            line: hits[i + 1],
            text: clip(lineAt(file.text, hits[i + 1])),
          });
        }
        batch = [];
        batchChars = 0;
      };
      try {
        for await (const file of files()) {
          if (matches.length >= limit) break;
          if (file.size > caps.maxReadBytes) {
            skipped++;
            continue;
          }
          // Read the very file the walk listed, bounded by the cap; one
          // that vanished, changed type or cannot be read is skipped.
          let read: ReadResult;
          try {
            read = await ws.readFile(file.target, {
              maxBytes: caps.maxReadBytes,
              signal: ctx.signal,
              skipLarger: true,
            });
          } catch (error) {
            if (!(error instanceof WorkspaceError)) throw error;
            skipped++;
            continue;
          }
          if (read.truncated) {
            skipped++;
            continue;
          }
          const bytes = read.bytes;
          if (!isProbablyText(bytes.subarray(0, 8192))) {
            skipped++;
            continue;
          }
          searched++;
          const text = decodeText(bytes);
          if (useRegex) {
            batch.push({ path: file.relative, text });
            batchChars += text.length;
            if (batchChars >= BATCH_CHARS) await flush();
          } else {
            for (
              const [line, lineText] of literalMatches(
                text,
                query,
                caseSensitive,
                limit - matches.length,
              )
            ) {
              matches.push({ path: file.relative, line, text: clip(lineText) });
            }
          }
        }
        await flush();
      } catch (error) {
        if (error instanceof RegexTimeoutError) {
          return toolError(
            `The regular expression "${query}" took too long (over ${REGEX_BUDGET_MS} ms) and was stopped; simplify it (avoid nested quantifiers such as (a+)+), narrow "path" or "glob", or search literally with regex: false.`,
          );
        }
        throw error;
      }
      const truncated = matches.length >= limit;
      const data: JsonObject = {
        query,
        matches: matches.map((m) => ({
          path: m.path,
          line: m.line,
          text: m.text,
        })),
        filesSearched: searched,
        filesSkipped: skipped,
        truncated,
      };
      const notes: string[] = [];
      if (truncated) {
        notes.push(
          `Stopped at ${
            plural(limit, "match", "matches")
          }; narrow "path" or "glob", or refine the query, to see others.`,
        );
      }
      if (skipped > 0) {
        notes.push(
          `${
            plural(skipped, "file was", "files were")
          } skipped (binary, or over ${caps.maxReadBytes} bytes).`,
        );
      }
      if (matches.length === 0) notes.push("No matches.");
      if (notes.length > 0) data.note = notes.join(" ");
      const lines = matches.map((m) => `${m.path}:${m.line}:${m.text}`);
      if (data.note !== undefined) lines.push(`(${data.note})`);
      return {
        content: [textContent(lines.join("\n"))],
        structuredContent: data,
      };
    },
  };
}
