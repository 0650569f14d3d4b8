/**
 * `deno task bench:symbols`: what the symbol tools cost, through a real
 * server (`main.ts` from source, piped stdio), in two sections:
 *
 * - `cheap`: on this repository's ten largest source files (in a language
 *   the symbol tools read; fixtures and unit tests left out: a test file
 *   is anonymous `Deno.test` callbacks, no method to name), the characters
 *   of text a model reads to get one named method with `read_symbol`,
 *   against `read_file` of the whole file (every page, following the
 *   offset each page gives). The method is the file's median method or
 *   function by length (of those with a body: three lines or more), named
 *   as a model would (`Class.method` where the name alone is not unique);
 *   the largest is shown beside it, without a target. Target: a ratio
 *   ≤ 1/5 per file.
 * - `memory`: the server's peak RSS (`VmHWM`, sampled every 200 ms and
 *   read once more at the end) while it answers `find_symbol` over a
 *   large tree (default: the kernel's `drivers/`, prepared by
 *   `deno task bench:trees`) for a name no definition has but nearly
 *   every file holds (`static`), so that every file is read and parsed,
 *   then `outline` of the tree's largest source files under the symbol
 *   tools' size cap. Target: < 300 MiB (`--rss-limit`).
 *
 * Exits 1 when a target fails or a call fails.
 *
 * Flags: `--sections cheap,memory`, `--tree DIR` (memory), `--name NAME`
 * (memory's find_symbol), `--outlines N` (50), `--rss-limit MiB` (300).
 *
 * @module
 */

import { parseArgs } from "node:util";
import { DENO_RUN_FLAGS } from "../cli/run_command.ts";
import { PROJECT_ROOT } from "../tests/server_command.ts";
import type { Definition } from "../symbols/definitions.ts";
import { definitionsOf } from "../symbols/definitions.ts";
import { languageOf } from "../symbols/languages.ts";
import { loadLanguage } from "../symbols/runtime.ts";
import { MAX_SYMBOL_FILE_BYTES } from "../tools/symbol_source.ts";
import { formatBytes, memoryStatus } from "./measure.ts";
import { ServerProcess } from "./process.ts";
import { sourceFiles } from "./symbols_ctags.ts";
import { treesDir } from "./trees.ts";
import { withUsage } from "./usage.ts";
import { INITIALIZE_LINE, type Json, request } from "./workloads.ts";

/** The most a `read_symbol` answer may cost, as a share of `read_file`. */
export const CHEAP_TARGET = 1 / 5;

/** A definition picked to read, and the name a model would give it. */
export interface Pick {
  /** `read_symbol`'s `name`: "name", or "Outer.name" where that is needed. */
  query: string;
  /** The definition. */
  def: Definition;
}

/** `def`'s length in lines. */
function span(def: Definition): number {
  return def.end - def.start + 1;
}

/** Fewest lines a method the bench reads has: a body, not a signature. */
export const MIN_METHOD_LINES = 3;

/**
 * The methods and functions of `definitions` with a body (at least
 * {@linkcode MIN_METHOD_LINES} lines: an interface's method signature is
 * not what a model reads a method for) that one name picks out, each
 * with that name ("name" when unique in the file, else "Outer.name" when
 * that is), shortest first.
 */
export function nameable(definitions: readonly Definition[]): Pick[] {
  const pool = definitions.filter((d) =>
    (d.kind === "method" || d.kind === "function") &&
    span(d) >= MIN_METHOD_LINES
  );
  const count = (key: (d: Definition) => string, value: string) =>
    definitions.filter((d) => key(d) === value).length;
  const picks: Pick[] = [];
  for (const def of pool) {
    if (count((d) => d.name, def.name) === 1) {
      picks.push({ query: def.name, def });
      continue;
    }
    if (def.parent === undefined) continue;
    const qualified = `${def.parent}.${def.name}`;
    const same = definitions.filter((d) =>
      d.name === def.name && d.parent === def.parent
    ).length;
    if (same === 1) picks.push({ query: qualified, def });
  }
  return picks.sort((a, b) => span(a.def) - span(b.def));
}

/** The median pick (the lower middle of an even count), and the largest. */
export function medianAndLargest(
  picks: readonly Pick[],
): { median: Pick; largest: Pick } | undefined {
  if (picks.length === 0) return undefined;
  return {
    median: picks[Math.floor((picks.length - 1) / 2)],
    largest: picks[picks.length - 1],
  };
}

/** A server of ours on `root`, with the handshake done. */
class SymbolServer {
  readonly process: ServerProcess;
  #id = 0;

  private constructor(process: ServerProcess) {
    this.process = process;
  }

  static async start(root: string): Promise<SymbolServer> {
    const process = new ServerProcess({
      command: Deno.execPath(),
      args: [
        "run",
        ...DENO_RUN_FLAGS,
        `${PROJECT_ROOT}main.ts`,
        "--root",
        root,
      ],
    });
    await process.write(new TextEncoder().encode(
      `${INITIALIZE_LINE}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n`,
    ));
    await process.nextLine();
    return new SymbolServer(process);
  }

  /** Call `tool`; its text content, or throws on any error. */
  async call(tool: string, args: Json): Promise<string> {
    const id = ++this.#id;
    await this.process.write(new TextEncoder().encode(
      request(id, "tools/call", { name: tool, arguments: args }) + "\n",
    ));
    const { text } = await this.process.nextLine();
    const response = JSON.parse(text);
    if (response.error !== undefined) {
      throw new Error(`${tool}: error ${JSON.stringify(response.error)}`);
    }
    const content = response.result.content as { text?: string }[];
    const answer = content.map((c) => c.text ?? "").join("");
    if (response.result.isError === true) {
      throw new Error(`${tool} ${JSON.stringify(args)}: ${answer}`);
    }
    return answer;
  }

  async stop(): Promise<void> {
    const code = await this.process.close(10_000);
    if (code !== 0) {
      throw new Error(
        `the server exited ${code}: ${this.process.stderrText().slice(0, 500)}`,
      );
    }
  }
}

/** The characters of every page `read_file` gives of `path`. */
async function readWhole(server: SymbolServer, path: string): Promise<number> {
  let chars = 0;
  let offset = 1;
  for (let calls = 0; calls < 1000; calls++) {
    const text = await server.call("read_file", { path, offset });
    chars += text.length;
    const next = /call again with offset (\d+)/.exec(text);
    if (next === null) return chars;
    offset = Number(next[1]);
  }
  throw new Error(`read_file of ${path} did not end within 1000 pages`);
}

/**
 * The `count` largest tracked files under `root` the symbol tools read,
 * unit tests and fixtures left out.
 */
async function largestSources(root: string, count: number) {
  const { stdout } = await new Deno.Command("git", {
    args: ["ls-files"],
    cwd: root,
    stdout: "piped",
  }).output();
  const paths = new TextDecoder().decode(stdout).split("\n").filter((p) =>
    p !== "" && !p.startsWith("tests/fixtures/") &&
    !p.startsWith("tests/golden/") && !p.endsWith("_test.ts") &&
    languageOf(p) !== undefined
  );
  const sized = await Promise.all(
    paths.map(async (path) => ({
      path,
      size: (await Deno.stat(`${root}${path}`)).size,
    })),
  );
  return sized.sort((a, b) => b.size - a.size).slice(0, count);
}

/** One row of the `cheap` section. */
export interface CheapRow {
  /** The file, relative to the repository. */
  path: string;
  /** Its lines. */
  lines: number;
  /** Characters of every `read_file` page of it. */
  fileChars: number;
  /** The median method: its name, lines and `read_symbol` characters. */
  median: { query: string; lines: number; chars: number };
  /** The largest method, likewise. */
  largest: { query: string; lines: number; chars: number };
}

/** `row` as a line of the table, with its verdict. */
export function renderCheapRow(row: CheapRow): string {
  const ratio = row.median.chars / row.fileChars;
  const largest = row.largest.chars / row.fileChars;
  return [
    row.path.padEnd(34),
    `${row.lines}`.padStart(6),
    `${row.fileChars}`.padStart(9),
    `${row.median.query} (${row.median.lines} lines)`.padEnd(44),
    `${row.median.chars}`.padStart(6),
    `1/${(1 / ratio).toFixed(1)}`.padStart(8),
    `1/${(1 / largest).toFixed(1)}`.padStart(8),
    ratio <= CHEAP_TARGET ? "PASS" : "FAIL",
  ].join("  ");
}

async function cheapSection(): Promise<boolean> {
  const files = await largestSources(PROJECT_ROOT, 10);
  const server = await SymbolServer.start(PROJECT_ROOT);
  const rows: CheapRow[] = [];
  try {
    for (const { path } of files) {
      const text = await Deno.readTextFile(`${PROJECT_ROOT}${path}`);
      const result = definitionsOf(await loadLanguage(languageOf(path)!), text);
      if (!result.ok) throw new Error(`${path}: ${result.reason}`);
      const picked = medianAndLargest(nameable(result.definitions));
      if (picked === undefined) throw new Error(`${path}: no method to read`);
      const read = async (pick: Pick) => ({
        query: pick.query,
        lines: span(pick.def),
        chars:
          (await server.call("read_symbol", { path, name: pick.query })).length,
      });
      rows.push({
        path,
        lines: text.split("\n").length,
        fileChars: await readWhole(server, path),
        median: await read(picked.median),
        largest: await read(picked.largest),
      });
    }
  } finally {
    await server.stop();
  }
  console.log(
    `cheap: characters a model reads for one method, read_symbol / read_file (target ≤ 1/${
      1 / CHEAP_TARGET
    }, the median method; the largest shown without a target)`,
  );
  console.log(
    [
      "file".padEnd(34),
      "lines".padStart(6),
      "read_file".padStart(9),
      "method (median by length)".padEnd(44),
      "chars".padStart(6),
      "ratio".padStart(8),
      "largest".padStart(8),
      "",
    ].join("  "),
  );
  for (const row of rows) console.log(renderCheapRow(row));
  return rows.every((row) => row.median.chars / row.fileChars <= CHEAP_TARGET);
}

async function memorySection(
  tree: string,
  name: string,
  outlines: number,
  limitMiB: number,
): Promise<boolean> {
  try {
    await Deno.stat(tree);
  } catch {
    console.log(
      `memory: skipped, ${tree} is missing (deno task bench:trees prepares it)`,
    );
    return true;
  }
  const server = await SymbolServer.start(tree);
  let peak = 0;
  const sample = async () => {
    const status = await memoryStatus(server.process.pid);
    if (status !== undefined) peak = Math.max(peak, status.peak);
  };
  const timer = setInterval(sample, 200);
  let ok = true;
  try {
    const started = performance.now();
    const found = await server.call("find_symbol", { name });
    const findMs = performance.now() - started;
    await sample();
    const afterFind = peak;
    const sizes = await Promise.all(
      (await sourceFiles(tree, ["c", "h"])).map(async (path) => ({
        path,
        size: (await Deno.stat(`${tree}/${path}`)).size,
      })),
    );
    const largest = sizes.filter((f) => f.size <= MAX_SYMBOL_FILE_BYTES)
      .sort((a, b) => b.size - a.size).slice(0, outlines);
    const outlineStart = performance.now();
    for (const { path } of largest) {
      await server.call("outline", { path });
    }
    const outlineMs = performance.now() - outlineStart;
    await sample();
    const lastLine = found.split("\n").at(-1) ?? "";
    console.log(
      `memory: ${tree}\n  find_symbol "${name}": ${
        (findMs / 1000).toFixed(1)
      } s, peak RSS ${formatBytes(afterFind)} (${
        lastLine.slice(0, 160)
      })\n  outline of the ${largest.length} largest files up to ${MAX_SYMBOL_FILE_BYTES} bytes: ${
        (outlineMs / 1000).toFixed(1)
      } s, peak RSS ${formatBytes(peak)}`,
    );
    ok = peak < limitMiB * 1024 * 1024;
    console.log(
      `  peak RSS ${formatBytes(peak)} against the ${limitMiB} MiB budget: ${
        ok ? "PASS" : "FAIL"
      }`,
    );
  } finally {
    clearInterval(timer);
    await server.stop();
  }
  return ok;
}

const USAGE =
  `deno task bench:symbols [--sections cheap,memory] [--tree DIR] [--name NAME]
                        [--outlines N] [--rss-limit MiB]

cheap:  read_symbol of one method against read_file of the file, on this
        repository's ten largest source files (target ≤ 1/5 each);
memory: peak RSS of find_symbol and outline over a large tree (default the
        kernel's drivers/; target < 300 MiB).`;

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      sections: { type: "string", default: "cheap,memory" },
      tree: { type: "string", default: `${treesDir()}/linux/drivers` },
      name: { type: "string", default: "static" },
      outlines: { type: "string", default: "50" },
      "rss-limit": { type: "string", default: "300" },
    },
    strict: true,
  });
  const sections = values.sections.split(",");
  let ok = true;
  if (sections.includes("cheap")) ok = await cheapSection() && ok;
  if (sections.includes("memory")) {
    ok = await memorySection(
      values.tree,
      values.name,
      Number(values.outlines),
      Number(values["rss-limit"]),
    ) && ok;
  }
  return ok ? 0 : 1;
}

if (import.meta.main) {
  Deno.exit(
    await withUsage("bench:symbols", Deno.args, USAGE, () => main(Deno.args)),
  );
}
