/**
 * `search_text`: lines of workspace files that contain a string or match a
 * regular expression, as `path:line:text` lines; structured output holds
 * the counts alone.
 *
 * @module
 */

import { defineTool, type Tool } from "../mcp/tool.ts";
import { toolError } from "../mcp/content.ts";
import { decodeText } from "../workspace/content.ts";
import {
  type WalkEntry,
  walkSkips,
  Workspace,
} from "../workspace/workspace.ts";
import type { WorkspaceView } from "../workspace/roots.ts";
import type { TextIndex } from "../workspace/text_index.ts";
import {
  Pacer,
  plural,
  READ_ONLY,
  skippedNote,
  type ToolCaps,
} from "./common.ts";
import { GLOB_SYNTAX, globMatcher } from "./glob.ts";
import { literalPrefilter } from "./prefilter.ts";
import { MAX_REGEX_LENGTH, prepareRegex, type SearchRegex } from "./regex.ts";
import { literalLineScan, readSearchable } from "./scan_unit.ts";
import { type Match, searchAnswer } from "./search_answer.ts";
import {
  matchLines,
  RegexBudget,
  RegexTimeoutError,
  regexTimeoutMessage,
} from "./regex_worker.ts";
import {
  keepScanWorkersWarm,
  scanSearch,
  scanWorkersAvailable,
  scanWorkersRunning,
} from "./scan_pool.ts";

/**
 * Text files an index holds from which the scan workers are kept running
 * for its searches once it is ready, for as long as it is kept (see
 * `keepScanWorkersWarm`). Below it, they start with a search and stop
 * when idle.
 */
export const WARM_INDEX_TEXT_FILES = { least: 10_000 };

// Keep the scan workers warm for a large index once it is ready: its
// searches of more than a few dozen candidates go to them, and starting
// them cold would cost more than reading those candidates here.
function warmForIndex(index: TextIndex): void {
  index.whenCurrent().then(() => {
    const files = index.stats?.textFiles ?? 0;
    if (files >= WARM_INDEX_TEXT_FILES.least) {
      keepScanWorkersWarm(() => index.live);
    }
  });
}

/**
 * Time a regex search may spend matching any one file's lines, in ms (not
 * walking or reading): a regex that matches in linear time never runs out
 * of it however large the tree.
 */
export const REGEX_BUDGET_MS = 3000;

/** Longest line text returned per match, in characters. */
export const MAX_LINE_CHARS = 400;

// Largest file read into the search's reused buffer.
const SCRATCH_BYTES = 1 << 20;

function clip(line: string): string {
  return line.length > MAX_LINE_CHARS
    ? `${line.slice(0, MAX_LINE_CHARS)}…`
    : line;
}

/**
 * Lines of `text` containing `query` as [line number, line], at most
 * `limit`; yields to the event loop through `pacer` on long texts.
 */
async function literalMatches(
  text: string,
  query: string,
  caseSensitive: boolean,
  limit: number,
  pacer: Pacer,
): Promise<[number, string][]> {
  const hits: [number, string][] = [];
  for (const hit of literalLineScan(text, query, caseSensitive, limit)) {
    if (hit !== undefined) hits.push(hit);
    else if (pacer.due()) await pacer.pause();
  }
  return hits;
}

/**
 * Make the `search_text` tool over `ws`; with `index` (an index of `ws`),
 * calls it can answer exactly are answered from it.
 */
export function searchTextTool(
  ws: WorkspaceView,
  caps: Pick<ToolCaps, "maxMatches" | "maxReadBytes" | "rgPath">,
  index?: TextIndex,
): Tool {
  if (index !== undefined && ws instanceof Workspace) warmForIndex(index);
  return defineTool({
    name: "search_text",
    title: "Search text",
    description:
      `Search the workspace's text files for lines containing "query" (or matching it as a regular expression when "regex" is true). Case-sensitive unless "caseSensitive" is false. "path" limits the search to a directory or file, "glob" to files matching a glob ("*.ts", "src/**/*.{ts,js}"; syntax: ${GLOB_SYNTAX}). Returns one path:line:text line per match, at most ${caps.maxMatches} matches, with a last line in brackets when the search was cut or files were skipped; skips binary files, files over ${caps.maxReadBytes} bytes, .git and .gitignore'd files. Regexes use JavaScript syntax without flags (so no \\p{…}), at most ${MAX_REGEX_LENGTH} characters, and must run in linear time, as in ripgrep: backreferences and lookahead are refused; lookbehind works.`,
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
            "Treat query as a regular expression in JavaScript syntax, matchable in linear time (default false).",
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
          maximum: caps.maxMatches,
          description:
            `Most matches to return (default and maximum ${caps.maxMatches}).`,
        },
      },
      required: ["query"],
    },
    annotations: READ_ONLY,
    async run(args, ctx) {
      const {
        query,
        regex: useRegex = false,
        caseSensitive = true,
        path = "",
        glob,
      } = args;
      const limit = Math.min(args.limit ?? caps.maxMatches, caps.maxMatches);
      // Checked before anything is shared with other calls: a bad regex
      // fails its own call alone (RegexError is a message for the model).
      const regex: SearchRegex | undefined = useRegex
        ? prepareRegex(query, caseSensitive)
        : undefined;
      // Most files cannot hold a literal query: their bytes tell, and they
      // are never decoded.
      const mayContain = regex === undefined
        ? literalPrefilter(query, caseSensitive)
        : undefined;
      const start = await ws.resolve(path);
      const inGlob = glob === undefined ? () => true : globMatcher(
        glob,
        start.info.isDirectory ? start.relative : "",
      );
      // Progress: files looked at so far, of `total` when known.
      const examinedSoFar = (examined: number, total?: number) =>
        ctx.reportProgress(
          examined,
          total,
          `${plural(examined, "file", "files")} examined`,
        );
      // The query as the scan workers take it (a walk's adds the glob).
      const scanQuery = {
        query,
        regex,
        caseSensitive,
        maxReadBytes: caps.maxReadBytes,
        limit,
        maxLineChars: MAX_LINE_CHARS,
      };
      if (index !== undefined) {
        // The same answer from the index, when it is current and can tell.
        const { indexedSearchText } = await import("./search_indexed.ts");
        const answer = await indexedSearchText(index, ws, {
          query,
          regex,
          caseSensitive,
          start,
          inGlob,
          limit,
          maxReadBytes: caps.maxReadBytes,
          signal: ctx.signal,
          reportProgress: (examined) => examinedSoFar(examined),
        }, {
          literalMatches,
          clip,
          regexBudgetMs: REGEX_BUDGET_MS,
          maxLineChars: MAX_LINE_CHARS,
          scratchBytes: SCRATCH_BYTES,
          workers: ws instanceof Workspace && scanWorkersAvailable()
            ? {
              warm: () => scanWorkersRunning() > 0,
              search: (files) =>
                scanSearch(ws, "", scanQuery, {
                  signal: ctx.signal,
                  budgetMs: REGEX_BUDGET_MS,
                  files,
                  progress: (count) => examinedSoFar(count, files.length),
                }),
            }
            : undefined,
        });
        if (answer !== undefined) return answer;
      }

      // The total is known for one file.
      let examined = 0;
      const pacer = new Pacer(
        ctx.signal,
        () => examinedSoFar(examined, start.info.isFile ? 1 : undefined),
      );
      let skips = walkSkips();
      // Set once the worker scan has answered: nothing is left to walk.
      let scanned = false;
      // Whether the workers scan (their regex budget is per file).
      const byWorkers = ws instanceof Workspace && start.info.isDirectory &&
        scanWorkersAvailable();
      // The files to search: the one named, or a walk of the directory.
      async function* files(): AsyncGenerator<
        {
          relative: string;
          absolute: string;
          size: number;
          target: string | WalkEntry;
        }
      > {
        if (scanned) return;
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
          const entry of ws.walk({ path, signal: ctx.signal, skips })
        ) {
          if (pacer.due()) await pacer.pause();
          if (!entry.isFile || !inGlob(entry.relative)) continue;
          yield {
            relative: entry.relative,
            absolute: entry.absolute,
            size: entry.size ?? 0,
            target: entry,
          };
        }
      }

      // Every file is read into this one buffer (each is decoded, or
      // dropped, before the next is read), saving a fresh zeroed buffer per
      // file; larger files get their own.
      const scratch = new Uint8Array(
        Math.min(caps.maxReadBytes, SCRATCH_BYTES) + 1,
      );
      const matches: Match[] = [];
      let searched = 0;
      let skipped = 0;
      try {
        // A directory of one workspace is scanned by worker threads.
        if (byWorkers) {
          const outcome = await scanSearch(ws, path, {
            ...scanQuery,
            glob: glob === undefined
              ? undefined
              : { pattern: glob, base: start.relative },
          }, {
            signal: ctx.signal,
            budgetMs: REGEX_BUDGET_MS,
            rg: caps.rgPath === undefined
              ? undefined
              : { program: caps.rgPath },
            progress: (count) => examinedSoFar(count),
          });
          matches.push(...outcome.matches);
          searched = outcome.searched;
          skipped = outcome.skipped;
          skips = outcome.skips;
          scanned = true;
        }
        for await (const file of files()) {
          examined++;
          if (pacer.due()) await pacer.pause();
          if (matches.length >= limit) break;
          if (file.size > caps.maxReadBytes) {
            skipped++;
            continue;
          }
          // Read the very file the walk listed, bounded by the cap; one
          // that vanished, changed type or cannot be read is skipped.
          const bytes = await readSearchable(ws, file.target, {
            maxBytes: caps.maxReadBytes,
            signal: ctx.signal,
            scratch,
          });
          if (bytes === undefined) {
            skipped++;
            continue;
          }
          searched++;
          if (mayContain !== undefined && !mayContain(bytes)) continue;
          const text = decodeText(bytes);
          if (regex !== undefined) {
            // File by file, as the workers match: the budget bounds each
            // file's match, and the search stops after the file that
            // fills the cap, whichever path ran it.
            const hits = await matchLines(
              regex.source,
              regex.flags,
              [text],
              limit - matches.length,
              new RegexBudget(REGEX_BUDGET_MS),
              ctx.signal,
              MAX_LINE_CHARS,
            );
            for (const [, line, lineText] of hits) {
              matches.push({ path: file.relative, line, text: lineText });
            }
          } else {
            const hits = await literalMatches(
              text,
              query,
              caseSensitive,
              limit - matches.length,
              pacer,
            );
            for (const [line, lineText] of hits) {
              matches.push({ path: file.relative, line, text: clip(lineText) });
            }
          }
        }
      } catch (error) {
        if (error instanceof RegexTimeoutError) {
          return toolError(regexTimeoutMessage(query, REGEX_BUDGET_MS));
        }
        throw error;
      }
      return searchAnswer({
        matches,
        limit,
        searched,
        skipped,
        maxReadBytes: caps.maxReadBytes,
        walkNote: skippedNote(skips),
      });
    },
  });
}
