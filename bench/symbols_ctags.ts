/**
 * `deno task bench:ctags`: the symbol tools' definitions against Debian's
 * `universal-ctags` on real trees, per language: every function, class
 * and method ctags reports (see `CTAGS_LANGUAGES` in `ctags.ts`), ours
 * must report too, with the same name at the same line (the line of the
 * name, or the definition's first line). Prints per language the files,
 * ctags' definitions, how many ours matched, and the misses (the first
 * `--show` of them); exits 1 when any is missed.
 *
 * Files the symbol tools do not parse (over their size cap, or a parse
 * that ran out of time) are counted apart, with ctags' definitions in
 * them: the tools answer those with a note, so they are no miss of the
 * queries, but they are printed.
 *
 * Trees (defaults): Python, the standard library (`/usr/lib/python3.11`);
 * Go, Debian's Go source (`golang-1.19-src`: `/usr/share/go-1.19/src`);
 * C, the kernel's `drivers/` (the tree `deno task bench:trees` prepares).
 * A tree that is missing is skipped with the command that installs it.
 *
 * Flags: `--languages python,go,c`, `--python DIR`, `--go DIR`, `--c DIR`,
 * `--sample N` (every Nth file only), `--show N` (misses listed, 20).
 *
 * @module
 */

import { parseArgs } from "node:util";
import type { Node } from "web-tree-sitter";
import { languageOf } from "../symbols/languages.ts";
import { loadLanguage } from "../symbols/runtime.ts";
import { definitionsOf } from "../symbols/definitions.ts";
import { MAX_SYMBOL_FILE_BYTES } from "../tools/symbol_source.ts";
import {
  CTAGS_LANGUAGES,
  type CtagsLanguage,
  ctagsTags,
  quotedLine,
  type Tag,
} from "./ctags.ts";
import { treesDir } from "./trees.ts";
import { withUsage } from "./usage.ts";

/** Where each language's tree is by default, and how to get it. */
export const DEFAULT_TREES: Readonly<
  Record<string, { dir: () => string; install: string }>
> = {
  python: {
    dir: () => "/usr/lib/python3.11",
    install: "apt-get install python3.11",
  },
  go: {
    dir: () => "/usr/share/go-1.19/src",
    install: "apt-get install golang-1.19-src",
  },
  c: {
    dir: () => `${treesDir()}/linux/drivers`,
    install: "deno task bench:trees (needs linux-source-6.1)",
  },
};

/** A file the differential did not parse, and why. */
export interface Skipped {
  /** The file, relative to the tree. */
  path: string;
  /** Why ours did not read it. */
  reason: string;
  /** ctags' definitions in it. */
  tags: number;
}

/** One language's differential. */
export interface Differential {
  /** Our name of the language. */
  language: string;
  /** Files compared. */
  files: number;
  /** ctags' definitions in the files compared. */
  tags: number;
  /** Of those, how many ours reports at the same line. */
  matched: number;
  /** The ones ours does not report, in file and line order. */
  missed: Tag[];
  /**
   * Those ctags reports on a line the grammar could not parse (inside a
   * syntax error of its tree), which no query can reach; not in `missed`.
   */
  unparsed: Tag[];
  /** Those ctags misread (no definition there; see `misread`). */
  misread: Tag[];
  /** Files not parsed (over the cap, or out of time). */
  skipped: Skipped[];
}

/**
 * The files under `root` whose extension is one of `extensions`, relative
 * to it and sorted; symbolic links are not followed.
 */
export async function sourceFiles(
  root: string,
  extensions: readonly string[],
): Promise<string[]> {
  const found: string[] = [];
  const wanted = new Set(extensions);
  const pending = [""];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    for await (const entry of Deno.readDir(`${root}/${dir}`)) {
      const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory) pending.push(path);
      else if (entry.isFile) {
        const dot = entry.name.lastIndexOf(".");
        if (dot > 0 && wanted.has(entry.name.slice(dot + 1))) found.push(path);
      }
    }
  }
  return found.sort();
}

/**
 * The places ours defines names in `text` (the file at `path`): each
 * definition as `name:line` at its name's line and at its first line; or
 * why it was not parsed.
 */
export async function ourPlaces(
  path: string,
  text: string,
): Promise<{ ok: true; places: Set<string> } | { ok: false; reason: string }> {
  const language = languageOf(path);
  if (language === undefined) {
    return { ok: false, reason: "not a language the symbol tools read" };
  }
  const result = definitionsOf(await loadLanguage(language), text);
  if (!result.ok) return result;
  const places = new Set<string>();
  for (const def of result.definitions) {
    places.add(`${def.name}:${def.line}`);
    places.add(`${def.name}:${def.start}`);
  }
  return { ok: true, places };
}

/**
 * Which of `rows` (0-based) the grammar could not parse in `text` (the
 * file at `path`): a row inside an ERROR node, or a node the grammar
 * invented (MISSING) or one that holds such a node as a child (a
 * declaration it had to close with a `;` that is not there), or inside a
 * construct holding an error that began on an earlier row (a function
 * body that error recovery stretched over the definitions after it). Only subtrees holding an error and
 * spanning the row are walked, without recursion.
 */
export async function unparsedRows(
  path: string,
  text: string,
  rows: readonly number[],
): Promise<Set<number>> {
  const found = new Set<number>();
  const language = languageOf(path);
  if (language === undefined) return found;
  const { parser } = await loadLanguage(language);
  // The text as definitionsOf parses it.
  const tree = parser.parse(language.prepare?.(text) ?? text);
  if (tree === null) return found;
  try {
    for (const row of rows) {
      const root = tree.rootNode;
      const pending: Node[] = [root];
      while (pending.length > 0) {
        const node = pending.pop()!;
        const { row: start } = node.startPosition;
        if (!node.hasError || row < start || row > node.endPosition.row) {
          continue;
        }
        const broken = node.type === "ERROR" || node.isMissing ||
          (node !== root && start < row) ||
          node.children.some((child) => child?.isMissing === true);
        if (broken) {
          found.add(row);
          break;
        }
        for (const child of node.children) {
          if (child !== null) pending.push(child);
        }
      }
    }
    return found;
  } finally {
    tree.delete();
  }
}

/** Compare ours with ctags on `paths` under `root` in `language`. */
export async function differential(
  language: CtagsLanguage,
  root: string,
  paths: readonly string[],
): Promise<Differential> {
  const tagsByPath = await ctagsTags(language, paths, root);
  const result: Differential = {
    language: language.name,
    files: 0,
    tags: 0,
    matched: 0,
    missed: [],
    unparsed: [],
    misread: [],
    skipped: [],
  };
  const decoder = new TextDecoder();
  for (const path of paths) {
    const tags = tagsByPath.get(path) ?? [];
    const bytes = await Deno.readFile(`${root}/${path}`);
    // The tools refuse such a file with a note (tools/symbol_source.ts).
    const ours = bytes.length > MAX_SYMBOL_FILE_BYTES
      ? {
        ok: false as const,
        reason:
          `${bytes.length} bytes, over the ${MAX_SYMBOL_FILE_BYTES}-byte cap`,
      }
      : await ourPlaces(path, decoder.decode(bytes));
    if (!ours.ok) {
      result.skipped.push({ path, reason: ours.reason, tags: tags.length });
      continue;
    }
    result.files++;
    result.tags += tags.length;
    const missed = tags.filter((tag) => {
      if (!ours.places.has(`${tag.name}:${tag.line}`)) return true;
      result.matched++;
      return false;
    });
    if (missed.length === 0) continue;
    // Parsed once more, for the few files with a miss: which lines the
    // grammar gave up on.
    const unparsed = await unparsedRows(
      path,
      decoder.decode(bytes),
      missed.map((tag) => tag.line - 1),
    );
    for (const tag of missed) {
      if (language.misread?.(tag) === true) result.misread.push(tag);
      else if (unparsed.has(tag.line - 1)) result.unparsed.push(tag);
      else result.missed.push(tag);
    }
  }
  const byPlace = (a: Tag, b: Tag) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line;
  result.missed.sort(byPlace);
  result.unparsed.sort(byPlace);
  result.misread.sort(byPlace);
  return result;
}

/** `tag` as one line of a report: where, what, and ctags' quote. */
export function showTag(tag: Tag): string {
  const quote = quotedLine(tag).trim();
  return `${tag.path}:${tag.line} ${tag.kind} ${tag.name}  | ${
    quote.length > 80 ? `${quote.slice(0, 80)}…` : quote
  }`;
}

/** The report of `d`: a summary line, then misses and skipped files. */
export function renderDifferential(d: Differential, show: number): string {
  const out = [
    `${d.language}: ${d.files} files, ${d.tags} ctags definitions, ${d.matched} matched, ${d.missed.length} missed, ${d.unparsed.length} on lines the grammar could not parse, ${d.misread.length} misread by ctags` +
    (d.skipped.length === 0
      ? ""
      : `; ${d.skipped.length} files not parsed (${
        d.skipped.reduce((n, s) => n + s.tags, 0)
      } ctags definitions in them)`),
  ];
  for (const tag of d.missed.slice(0, show)) {
    out.push(`  missed ${showTag(tag)}`);
  }
  if (d.missed.length > show) {
    out.push(`  … and ${d.missed.length - show} more missed`);
  }
  for (
    const [label, tags] of [["unparsed", d.unparsed], [
      "misread",
      d.misread,
    ]] as const
  ) {
    for (const tag of tags.slice(0, show)) {
      out.push(`  ${label} ${showTag(tag)}`);
    }
    if (tags.length > show) {
      out.push(`  … and ${tags.length - show} more ${label}`);
    }
  }
  for (const s of d.skipped.slice(0, show)) {
    out.push(
      `  not parsed ${s.path} (${s.reason}; ${s.tags} ctags definitions)`,
    );
  }
  if (d.skipped.length > show) {
    out.push(`  … and ${d.skipped.length - show} more not parsed`);
  }
  return out.join("\n");
}

const USAGE =
  `deno task bench:ctags [--languages python,go,c] [--python DIR] [--go DIR] [--c DIR]
                      [--sample N] [--show N]

Compares the symbol tools' definitions with universal-ctags' functions,
classes and methods; exits 1 when ours misses any.`;

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      languages: { type: "string", default: "python,go,c" },
      python: { type: "string" },
      go: { type: "string" },
      c: { type: "string" },
      sample: { type: "string", default: "1" },
      show: { type: "string", default: "20" },
    },
    strict: true,
  });
  const sample = Number(values.sample);
  const show = Number(values.show);
  let failed = false;
  for (const name of values.languages.split(",")) {
    const language = CTAGS_LANGUAGES[name];
    if (language === undefined) {
      console.error(
        `--languages: unknown ${name}; choose from ${
          Object.keys(CTAGS_LANGUAGES).join(", ")
        }`,
      );
      return 2;
    }
    const given = values[name as "python" | "go" | "c"];
    const root = given ?? DEFAULT_TREES[name].dir();
    try {
      await Deno.stat(root);
    } catch {
      console.log(
        `${name}: skipped, ${root} is missing (${DEFAULT_TREES[name].install})`,
      );
      continue;
    }
    const started = performance.now();
    const paths = (await sourceFiles(root, language.extensions)).filter((
      _,
      i,
    ) => i % sample === 0);
    const d = await differential(language, root, paths);
    console.log(
      `${renderDifferential(d, show)}\n  (${root}, ${
        ((performance.now() - started) / 1000).toFixed(1)
      } s)`,
    );
    if (d.missed.length > 0) failed = true;
  }
  return failed ? 1 : 0;
}

if (import.meta.main) {
  Deno.exit(
    await withUsage("bench:ctags", Deno.args, USAGE, () => main(Deno.args)),
  );
}
