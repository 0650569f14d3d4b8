/**
 * Workloads: what is sent to every server and what must come back. Adding a
 * workload is one entry in {@linkcode defaultWorkloads}.
 *
 * @module
 */

import { pathToFileURL } from "node:url";
import { DEFAULT_LINE_LIMIT, READ_PAGE_BYTES } from "../tools/read_file.ts";
import {
  type Fixture,
  type FixtureFile,
  type Fixtures,
  treePath,
  treeText,
} from "./fixtures.ts";

/** A request id as the bench writes it. */
export type Id = number | string;

/** The lines of one workload run, and the ids whose responses must come back. */
export interface Batch {
  /** Message lines, without line ends. */
  lines: string[];
  /** The id of every request among `lines`; each must get one response. */
  ids: Id[];
  /**
   * Arguments added to every server's command for this workload, such as
   * `--root DIR` (only on the batch `build` returns).
   */
  args?: string[];
  /**
   * Sent after the handshake and answered before the clock starts, so that
   * the clock measures the steady state, not loading code and caches on
   * first use (only on the batch `build` returns; `send` clock only).
   */
  warmUp?: Batch;
  /**
   * Bytes of content the measured responses carry (say, the file read):
   * when set, the bench reports response bytes per content byte (only on
   * the batch `build` returns).
   */
  payloadBytes?: number;
}

/** One thing the bench measures on every server that supports it. */
export interface Workload {
  /** Short name used in targets and `--workloads`. */
  key: string;
  /** What it measures, for the table (`build` may make it more precise). */
  label: string;
  /**
   * The part of the report it belongs to (default `timing`): `--sections`
   * picks which run.
   */
  section?: "timing" | "wire";
  /**
   * Where the clock starts: at `spawn` (startup: the time to the last
   * response includes starting the process), or at the first write of the
   * batch after the handshake has been answered (`send`).
   */
  clock: "spawn" | "send";
  /** How many times each server runs it; the table shows medians. */
  runs: number;
  /** Sent and answered before the clock starts (`send` clock only). */
  handshake?: Batch;
  /** The measured lines; built once per bench run (may make fixtures). */
  build(): Batch | Promise<Batch>;
  /** Check one response (parsed); return what is wrong, or undefined. */
  check?(response: Record<string, unknown>): string | undefined;
  /**
   * Check the measured responses together, in arrival order (say, that the
   * pages of a listing hold every file once); return what is wrong.
   */
  checkAll?(responses: Record<string, unknown>[]): string | undefined;
  /**
   * A client that answers responses with requests (following `nextCursor`):
   * called with each measured response, parsed, while the clock runs; a
   * returned line is sent at once and its response awaited too. The clock
   * stops when a response leaves nothing more to send or wait for.
   */
  next?(response: Record<string, unknown>): string | undefined;
  /** Only these servers run it (default: all). */
  servers?: readonly string[];
  /** These servers do not run it (the floor, which answers `{}` to all). */
  exclude?: readonly string[];
  /** Stdin is written in slices of this many bytes (default 64 KiB). */
  chunkBytes?: number;
}

/** The workload sizes the command line sets. */
export interface WorkloadOptions {
  /** Runs of the startup workload. */
  startupRuns: number;
  /** Pings in the ping workload. */
  pings: number;
  /** Runs of the ping workload. */
  pingRuns: number;
  /** Runs of the first-tools/list workload (each spawns a server). */
  firstRuns: number;
  /** Runs of each tools and resources workload. */
  ioRuns: number;
  /** `read_file` calls. */
  readFileCalls: number;
  /** `search_text` calls. */
  searchCalls: number;
  /** Files listed through `resources/list`. */
  listFiles: number;
  /** `resources/read` requests. */
  resourceReads: number;
  /** Where the tools and resources workloads get their directories. */
  fixtures: Fixtures;
}

/** The initialize request every bench client sends (id 0). */
export const INITIALIZE_LINE: string = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "shipcode-bench", version: "1.0.0" },
  },
});

/** initialize, then notifications/initialized: what a real client sends first. */
export const HANDSHAKE: Batch = {
  lines: [
    INITIALIZE_LINE,
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  ],
  ids: [0],
};

function emptyResult(response: Record<string, unknown>): string | undefined {
  const result = response.result;
  return typeof result === "object" && result !== null &&
      Object.keys(result).length === 0
    ? undefined
    : `expected result {}, got ${JSON.stringify(response)}`;
}

/** One request line; `params` is left out when undefined. */
export function request(id: Id, method: string, params?: unknown): string {
  return JSON.stringify(
    params === undefined
      ? { jsonrpc: "2.0", id, method }
      : { jsonrpc: "2.0", id, method, params },
  );
}

function toolCall(id: Id, name: string, args: Record<string, unknown>) {
  return request(id, "tools/call", { name, arguments: args });
}

/** `count` requests with ids 1..count, the line of each made by `line`. */
function numbered(count: number, line: (id: number) => string): Batch {
  const lines: string[] = [];
  const ids: Id[] = [];
  for (let id = 1; id <= count; id++) {
    lines.push(line(id));
    ids.push(id);
  }
  return { lines, ids };
}

/** One warm-up request, id "warm-up". */
function warmUp(line: (id: Id) => string): Batch {
  return { lines: [line("warm-up")], ids: ["warm-up"] };
}

/** A parsed JSON object. */
export type Json = Record<string, unknown>;

/** The result of a response, or what is wrong with it. */
function resultOf(response: Json): Json | string {
  const result = response.result;
  if (typeof result === "object" && result !== null) return result as Json;
  return `expected a result, got ${JSON.stringify(response).slice(0, 300)}`;
}

/**
 * The texts a tool result may carry a file in: shipcode-mcp's numbered
 * lines in `structuredContent`, and the first text block as it is.
 */
function toolTexts(result: Json): string[] {
  if (result.isError === true) return [];
  const texts: string[] = [];
  const lines = (result.structuredContent as Json | undefined)?.lines;
  if (Array.isArray(lines)) {
    texts.push(lines.map((line) => `${(line as Json).text}\n`).join(""));
  }
  const first = (result.content as Json[] | undefined)?.[0];
  if (first?.type === "text" && typeof first.text === "string") {
    texts.push(first.text);
  }
  return texts;
}

/**
 * Whether `text` is `expected` with a line number before each line
 * (`12: `, `12\t`, `12 | `, `   12→` and the like), as a tool may number
 * the lines of the file it returns.
 */
export function isNumberedText(text: string, expected: string): boolean {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  let line = 0;
  const stripped = lines.map((each) => {
    line++;
    const match = /^ *(\d+)(?:\t| ?[:|→] ?)/.exec(each);
    return match && Number(match[1]) === line
      ? each.slice(match[0].length)
      : undefined;
  });
  if (stripped.some((each) => each === undefined)) return false;
  const joined = stripped.join("\n");
  return joined === expected || `${joined}\n` === expected;
}

/**
 * Whether a tool result carries exactly the file `expected`: as its text,
 * as numbered lines, or as shipcode-mcp's structured lines.
 */
export function returnsFile(result: Json, expected: string): boolean {
  return toolTexts(result).some((text) =>
    text === expected || isNumberedText(text, expected)
  );
}

/** The `file://` URI servers give the file `relative` under `root`. */
function fileUri(root: string, relative: string): string {
  return pathToFileURL(`${root}/${relative}`).href;
}

/** The small file `read_file` reads, in the repository copy. */
export const SMALL_FILE = "bench/floor.ts";

/**
 * The largest the wire workload's file may be once numbered: `read_file`
 * answers it whole, in one page (each line costs its bytes, its newline,
 * and a number as wide as the default range's last with a tab).
 */
export const WIRE_FILE_MAX_BYTES = READ_PAGE_BYTES;

/** What `read_file`'s default page counts for `bytes`, numbers included. */
export function numberedBytes(bytes: Uint8Array): number {
  let lines = 1;
  for (const byte of bytes) if (byte === 0x0a) lines++;
  return bytes.length + lines * (String(DEFAULT_LINE_LIMIT).length + 2);
}

/**
 * The source file the wire workload reads: the largest `.ts` file whose
 * numbered form (see {@linkcode numberedBytes}) is at most `maxBytes` and
 * whose bytes are all ASCII (ties broken by name), or undefined.
 */
export function pickAsciiSource(
  files: readonly FixtureFile[],
  maxBytes = WIRE_FILE_MAX_BYTES,
): FixtureFile | undefined {
  let best: FixtureFile | undefined;
  for (const file of files) {
    if (
      !file.relative.endsWith(".ts") || numberedBytes(file.bytes) > maxBytes
    ) {
      continue;
    }
    if (file.bytes.length === 0 || file.bytes.some((byte) => byte >= 0x80)) {
      continue;
    }
    if (
      best === undefined || file.bytes.length > best.bytes.length ||
      (file.bytes.length === best.bytes.length &&
        file.relative < best.relative)
    ) {
      best = file;
    }
  }
  return best;
}

/** The literal `search_text` looks for in the repository copy. */
export const SEARCH_QUERY = "structuredContent";

const MAX_SEARCHED_BYTES = 1024 * 1024;
const MAX_MATCHES = 200;

/**
 * `path:line` of every line containing `query` in the text files of
 * `fixture`, sorted: what both servers must find (binary files, invalid
 * UTF-8 and files over 1 MiB skipped, as both do).
 */
function expectedMatches(fixture: Fixture, query: string): string[] {
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  const found: string[] = [];
  for (const { relative, bytes } of fixture.files) {
    if (bytes.length > MAX_SEARCHED_BYTES) continue;
    if (bytes.subarray(0, 8192).includes(0)) continue;
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      continue;
    }
    text.split("\n").forEach((line, i) => {
      if (line.includes(query)) found.push(`${relative}:${i + 1}`);
    });
  }
  return found.sort();
}

/** `path:line` of every `path:line:text` line of a search result, sorted. */
function reportedMatches(text: string): string[] {
  const found: string[] = [];
  for (const line of text.split("\n")) {
    const match = /^(.+?):(\d+):/.exec(line);
    if (match) found.push(`${match[1]}:${match[2]}`);
  }
  return found.sort();
}

/**
 * The workloads: startup and a ping flood, then tools and resources over
 * fixture directories, then the bytes a file read puts on the wire.
 */
export function defaultWorkloads(options: WorkloadOptions): Workload[] {
  const { fixtures } = options;
  const noFloor = ["floor"];
  // Steady-state workloads of many seconds: the bundle runs the same code
  // as the source once loaded, so it sits these out to keep the bench
  // short; it runs those where loading code is part of the measure.
  const noFloorNoBundle = ["floor", "bundle"];
  return [
    {
      key: "startup",
      label: "startup to first response (initialize)",
      clock: "spawn",
      runs: options.startupRuns,
      build: () => ({ lines: [INITIALIZE_LINE], ids: [0] }),
      check: (response) =>
        "result" in response
          ? undefined
          : `expected a result, got ${JSON.stringify(response)}`,
    },
    {
      key: "pings",
      label: `${options.pings.toLocaleString("en-US")} pings`,
      clock: "send",
      runs: options.pingRuns,
      handshake: HANDSHAKE,
      build: () => {
        const lines: string[] = [];
        const ids: Id[] = [];
        for (let id = 1; id <= options.pings; id++) {
          lines.push(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
          ids.push(id);
        }
        return { lines, ids };
      },
      check: emptyResult,
    },
    {
      key: "tools_first",
      label: "first tools/list after the handshake (loads the tools)",
      clock: "send",
      runs: options.firstRuns,
      handshake: HANDSHAKE,
      exclude: noFloor,
      build: async () => ({
        lines: [request(1, "tools/list")],
        ids: [1],
        args: ["--root", (await fixtures.repository()).root],
      }),
      check: (response) => {
        const result = resultOf(response);
        if (typeof result === "string") return result;
        const names = (result.tools as Json[] | undefined)?.map((t) => t.name);
        return names?.includes("read_file") && names.includes("search_text")
          ? undefined
          : `tools/list lacks read_file or search_text: ${names}`;
      },
    },
    ((): Workload => {
      let expected = "";
      return {
        key: "read_file",
        label: `${
          options.readFileCalls.toLocaleString("en-US")
        } tools/call read_file (${SMALL_FILE})`,
        clock: "send",
        runs: options.ioRuns,
        handshake: HANDSHAKE,
        exclude: noFloorNoBundle,
        build: async () => {
          const repo = await fixtures.repository();
          const file = repo.files.find((f) => f.relative === SMALL_FILE);
          if (file === undefined) throw new Error(`${SMALL_FILE} not found`);
          expected = new TextDecoder().decode(file.bytes);
          const call = (id: Id) =>
            toolCall(id, "read_file", { path: SMALL_FILE });
          return {
            ...numbered(options.readFileCalls, call),
            args: ["--root", repo.root],
            warmUp: warmUp(call),
          };
        },
        check: (response) => {
          const result = resultOf(response);
          if (typeof result === "string") return result;
          return returnsFile(result, expected)
            ? undefined
            : `read_file did not return ${SMALL_FILE}: ${
              JSON.stringify(result).slice(0, 300)
            }`;
        },
      };
    })(),
    ((): Workload => {
      let expected = "";
      return {
        key: "search_text",
        label: `${
          options.searchCalls.toLocaleString("en-US")
        } tools/call search_text "${SEARCH_QUERY}" (repository copy)`,
        clock: "send",
        runs: options.ioRuns,
        handshake: HANDSHAKE,
        exclude: noFloorNoBundle,
        build: async () => {
          const repo = await fixtures.repository();
          const matches = expectedMatches(repo, SEARCH_QUERY);
          if (matches.length === 0 || matches.length >= MAX_MATCHES) {
            throw new Error(
              `"${SEARCH_QUERY}" is on ${matches.length} lines of the repository; the search workload needs 1 to ${
                MAX_MATCHES - 1
              } (both servers stop at ${MAX_MATCHES})`,
            );
          }
          expected = matches.join("\n");
          const call = (id: Id) =>
            toolCall(id, "search_text", { query: SEARCH_QUERY });
          return {
            ...numbered(options.searchCalls, call),
            args: ["--root", repo.root],
            warmUp: warmUp(call),
          };
        },
        check: (response) => {
          const result = resultOf(response);
          if (typeof result === "string") return result;
          const first = (result.content as Json[] | undefined)?.[0];
          if (result.isError === true || typeof first?.text !== "string") {
            return `search_text failed: ${
              JSON.stringify(result).slice(0, 300)
            }`;
          }
          const found = reportedMatches(first.text).join("\n");
          return found === expected
            ? undefined
            : `search_text found ${found.split("\n").length} lines, expected ${
              expected.split("\n").length
            }: ${first.text.slice(0, 300)}`;
        },
      };
    })(),
    ((): Workload => {
      let tree: Fixture | undefined;
      return {
        key: "resources_list",
        label: `resources/list of ${
          options.listFiles.toLocaleString("en-US")
        } files, following nextCursor`,
        clock: "send",
        runs: options.ioRuns,
        handshake: HANDSHAKE,
        exclude: noFloorNoBundle,
        build: async () => {
          tree = await fixtures.tree(options.listFiles);
          const root = tree.root;
          return {
            lines: [request(1, "resources/list")],
            ids: [1],
            // Every file, not the default selection of the most useful
            // 1000: the workload pages through the whole tree.
            args: [
              "--root",
              root,
              "--max-resources",
              String(options.listFiles),
            ],
            warmUp: warmUp((id) =>
              request(id, "resources/read", { uri: fileUri(root, treePath(0)) })
            ),
          };
        },
        next: (response) => {
          const cursor = (response.result as Json | undefined)?.nextCursor;
          return typeof cursor === "string"
            ? request(Number(response.id) + 1, "resources/list", { cursor })
            : undefined;
        },
        check: (response) => {
          const result = resultOf(response);
          if (typeof result === "string") return result;
          return Array.isArray(result.resources)
            ? undefined
            : `expected resources, got ${JSON.stringify(result).slice(0, 300)}`;
        },
        checkAll: (responses) => {
          const root = tree!.root;
          const seen = new Set<string>();
          for (const response of responses) {
            for (const item of (response.result as Json).resources as Json[]) {
              const name = item.name as string;
              if (seen.has(name)) return `${name} listed twice`;
              seen.add(name);
              if (item.uri !== fileUri(root, name)) {
                return `${name} has the URI ${item.uri}`;
              }
              if (
                item.size !== undefined &&
                item.size !== treeText(name).length
              ) {
                return `${name} has the size ${item.size}`;
              }
            }
          }
          const missing = tree!.files.find((file) => !seen.has(file.relative));
          if (missing !== undefined) return `${missing.relative} not listed`;
          return seen.size === tree!.files.length
            ? undefined
            : `listed ${seen.size} files, expected ${tree!.files.length}`;
        },
      };
    })(),
    ((): Workload => {
      let root = "";
      // Request `id` reads the file at this index: spread over the tree.
      const fileIndex = (id: number) =>
        Math.floor((id - 1) * options.listFiles / options.resourceReads);
      return {
        key: "resources_read",
        label: `${
          options.resourceReads.toLocaleString("en-US")
        } resources/read of small files`,
        clock: "send",
        runs: options.ioRuns,
        handshake: HANDSHAKE,
        exclude: noFloor,
        build: async () => {
          root = (await fixtures.tree(options.listFiles)).root;
          const read = (id: number) =>
            request(id, "resources/read", {
              uri: fileUri(root, treePath(fileIndex(id))),
            });
          return {
            ...numbered(options.resourceReads, read),
            args: ["--root", root],
            warmUp: warmUp((id) =>
              request(id, "resources/read", { uri: fileUri(root, treePath(0)) })
            ),
          };
        },
        check: (response) => {
          const result = resultOf(response);
          if (typeof result === "string") return result;
          const path = treePath(fileIndex(response.id as number));
          const [content] = result.contents as Json[];
          return content?.uri === fileUri(root, path) &&
              content.text === treeText(path)
            ? undefined
            : `resources/read of ${path} returned ${
              JSON.stringify(result).slice(0, 300)
            }`;
        },
      };
    })(),
    ((): Workload => {
      let expected = "";
      const workload: Workload = {
        key: "read_wire",
        label: "bytes on the wire per byte of an ASCII source file (read_file)",
        section: "wire",
        clock: "send",
        runs: 1,
        handshake: HANDSHAKE,
        exclude: noFloor,
        build: async () => {
          const repo = await fixtures.repository();
          const file = pickAsciiSource(repo.files);
          if (file === undefined) {
            throw new Error(
              `no ASCII .ts file of at most ${WIRE_FILE_MAX_BYTES} bytes in the repository`,
            );
          }
          expected = new TextDecoder().decode(file.bytes);
          workload.label =
            `bytes on the wire per byte of an ASCII source file (read_file ${file.relative}, ${file.bytes.length} bytes)`;
          return {
            lines: [toolCall(1, "read_file", { path: file.relative })],
            ids: [1],
            args: ["--root", repo.root],
            payloadBytes: file.bytes.length,
          };
        },
        check: (response) => {
          const result = resultOf(response);
          if (typeof result === "string") return result;
          return returnsFile(result, expected)
            ? undefined
            : `read_file did not return the file: ${
              JSON.stringify(result).slice(0, 300)
            }`;
        },
      };
      return workload;
    })(),
  ];
}
