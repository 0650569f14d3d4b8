/**
 * The memory section's floods: hostile but legal loads under which the
 * server's peak resident memory must stay within its budget. Adding one is
 * one entry in {@linkcode defaultFloods}.
 *
 * @module
 */

import type { FloodLine, FloodPlan } from "./flood.ts";
import type { Fixtures } from "./fixtures.ts";
import { request } from "./workloads.ts";

/** A flood: a name, and how to make its fixture and its per-run plan. */
export interface Flood {
  /** Short name used in targets and `--floods`. */
  key: string;
  /** What it does, for the table. */
  label: string;
  /**
   * Make the fixture (once per bench run): the arguments every server gets
   * (`--root DIR`) and a maker of fresh plans, one per run.
   */
  build(): Promise<{ args: string[]; plan(): FloodPlan }>;
}

/** The flood sizes the command line sets. */
export interface FloodOptions {
  /** `read_file` requests of the slow-reader flood. */
  reads: number;
  /** Size of each file it reads, in bytes. */
  readBytes: number;
  /** How long the slow reader leaves stdout unread, in milliseconds. */
  pauseMs: number;
  /** Queued `search_text` calls. */
  searches: number;
  /** Requests for distinct missing paths. */
  missing: number;
  /** Segments of each missing path. */
  segments: number;
  /** Files of the directory listed with `resources/list`. */
  listFiles: number;
  /** Where the floods get their directories. */
  fixtures: Fixtures;
}

/** Distinct files the slow-reader flood cycles through. */
const BIG_FILES = 20;

/** What the search flood looks for: every line of its files holds it. */
export const NEEDLE = "needle_for_the_bench_search_flood";

/** The most matches a search returns (the server's default). */
const MAX_MATCHES = 200;

function toolCall(id: number, name: string, args: Record<string, unknown>) {
  return request(id, "tools/call", { name, arguments: args });
}

/**
 * What is wrong with a response that should be a successful result (of a
 * tool, or a resource read) of at least `minBytes` bytes, judged from its ends (answers can be
 * megabytes; the driver keeps only their first and last bytes).
 */
export function toolSuccessProblem(
  line: FloodLine,
  minBytes: number,
): string | undefined {
  if (/^\{"jsonrpc":"2\.0","id":[^,]*,"error"/.test(line.text)) {
    return `error response: ${line.text.slice(0, 300)}`;
  }
  if (!/^\{"jsonrpc":"2\.0","id":[^,]*,"result"/.test(line.text)) {
    return `not a result: ${line.text.slice(0, 300)}`;
  }
  if (/"isError":true/.test(line.text)) {
    return `tool error: ${line.text.slice(0, 300)}`;
  }
  if (line.bytes < minBytes) {
    return `a ${line.bytes}-byte answer, expected at least ${minBytes}: ${
      line.text.slice(0, 300)
    }`;
  }
  return undefined;
}

/**
 * What is wrong with a response that should refuse a missing path: a tool
 * error or a JSON-RPC error, but never an internal error (-32603).
 */
export function refusalProblem(line: FloodLine): string | undefined {
  const error = /^\{"jsonrpc":"2\.0","id":[^,]*,"error":\{"code":(-?\d+)/
    .exec(line.text);
  if (error) {
    return error[1] === "-32603"
      ? `internal error: ${line.text.slice(0, 300)}`
      : undefined;
  }
  return /"isError":true/.test(line.text)
    ? undefined
    : `a missing path was not refused: ${line.text.slice(0, 300)}`;
}

/** A root-relative path of `segments` segments, distinct for each `index`. */
export function missingPath(index: number, segments: number): string {
  const parts = [`gone${index}`];
  for (let i = 1; i < segments - 1; i++) parts.push(`d${i}`);
  parts.push("file.ts");
  return parts.join("/");
}

/**
 * The floods: a slow reader of big answers, queued searches, distinct
 * missing paths, and paging through a directory of many files.
 */
export function defaultFloods(options: FloodOptions): Flood[] {
  const { fixtures } = options;
  return [
    {
      key: "slow_reader",
      label: `slow reader: ${
        options.reads.toLocaleString("en-US")
      } resources/read of ${
        (options.readBytes / 1e6).toLocaleString("en-US")
      } MB files, stdout unread for ${options.pauseMs / 1000} s`,
      build: async () => {
        const big = await fixtures.bigFiles(BIG_FILES, options.readBytes);
        const lines: string[] = [];
        // A resource read answers the whole file (read_file pages at
        // 20,000 characters).
        for (let id = 1; id <= options.reads; id++) {
          const file = big.files[id % big.files.length].relative;
          lines.push(
            request(id, "resources/read", {
              uri: new URL(`file://${big.root}/${file}`).href,
            }),
          );
        }
        return {
          args: ["--root", big.root],
          plan: () => ({
            lines,
            pauseMs: options.pauseMs,
            onResponse: (line) => ({
              problem: toolSuccessProblem(line, options.readBytes),
            }),
          }),
        };
      },
    },
    {
      key: "searches",
      label: `${
        options.searches.toLocaleString("en-US")
      } queued search_text calls of ${MAX_MATCHES} matches each`,
      build: async () => {
        const tree = await fixtures.needles(8, 100, NEEDLE);
        const lines: string[] = [];
        for (let id = 1; id <= options.searches; id++) {
          lines.push(toolCall(id, "search_text", { query: NEEDLE }));
        }
        return {
          args: ["--root", tree.root],
          plan: () => ({
            lines,
            onResponse: (line) => ({
              problem: toolSuccessProblem(line, MAX_MATCHES * NEEDLE.length),
            }),
          }),
        };
      },
    },
    {
      key: "missing_paths",
      label: `${
        options.missing.toLocaleString("en-US")
      } read_file of distinct missing ${options.segments}-segment paths`,
      build: async () => {
        const tree = await fixtures.needles(8, 100, NEEDLE);
        const lines: string[] = [];
        for (let id = 1; id <= options.missing; id++) {
          lines.push(
            toolCall(id, "read_file", {
              path: missingPath(id, options.segments),
            }),
          );
        }
        return {
          args: ["--root", tree.root],
          plan: () => ({
            lines,
            onResponse: (line) => ({ problem: refusalProblem(line) }),
          }),
        };
      },
    },
    {
      key: "listing",
      label: `resources/list of a directory of ${
        options.listFiles.toLocaleString("en-US")
      } files, following nextCursor`,
      build: async () => {
        const flat = await fixtures.flat(options.listFiles);
        const names = new Set(flat.files.map((file) => file.relative));
        return {
          args: ["--root", flat.root],
          plan: () => listingPlan(names),
        };
      },
    },
  ];
}

/**
 * Page through `resources/list`: every page must parse, no file may come
 * twice, and every listed name must be a file of the directory (or its
 * `.gitignore`). A listing that stops short of all files on purpose (a
 * capped listing) passes; the count is reported.
 */
export function listingPlan(names: ReadonlySet<string>): FloodPlan & {
  listed(): number;
} {
  const seen = new Set<string>();
  let listed = 0;
  return {
    lines: [request(1, "resources/list")],
    keepBytes: 256 * 2 ** 20,
    onResponse: (line) => {
      if (!line.whole) return { problem: `a page of ${line.bytes} bytes` };
      let response;
      try {
        response = JSON.parse(line.text);
      } catch {
        return { problem: `not JSON: ${line.text.slice(0, 200)}` };
      }
      const resources = response?.result?.resources;
      if (!Array.isArray(resources)) {
        return { problem: `not a page: ${line.text.slice(0, 300)}` };
      }
      for (const item of resources) {
        const name = String(item?.name);
        if (seen.has(name)) return { problem: `${name} listed twice` };
        if (!names.has(name) && name !== ".gitignore") {
          return { problem: `${name} is not a file of the directory` };
        }
        seen.add(name);
        if (names.has(name)) listed++;
      }
      const cursor = response.result.nextCursor;
      return typeof cursor === "string"
        ? {
          next: request(Number(response.id) + 1, "resources/list", { cursor }),
        }
        : {};
    },
    progress: () =>
      `${listed.toLocaleString("en-US")} of ${
        names.size.toLocaleString("en-US")
      } files listed`,
    listed: () => listed,
  };
}
