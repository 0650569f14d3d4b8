/**
 * The symbol tools against an outside reference, Debian's
 * `universal-ctags`: on this repository's own TypeScript files, every
 * function, class and method (and generator) ctags reports, our
 * definitions report too, at the same line (the line of the name, or the
 * first line of the definition). The misses are listed. ctags 5.9's
 * TypeScript parser also reports some things that are no definition
 * (`if`, `return`, `void` in a type, a name in a `return` line as a
 * "method"): a miss whose line, as ctags quotes it, cannot define the name
 * (see {@linkcode couldDefine}) is listed as ctags' error, not counted.
 * CI runs a slice
 * of the tree (`tools/`, `symbols/`, `workspace/`), a few seconds; set
 * `SHIPCODE_CTAGS_ALL=1` for every file. Skipped, visibly, when ctags is
 * not installed.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { languageOf } from "../symbols/languages.ts";
import { loadLanguage } from "../symbols/runtime.ts";
import { definitionsOf } from "../symbols/definitions.ts";
import { programRuns } from "./have_program.ts";
import { PROJECT_ROOT } from "./server_command.ts";

const CTAGS_KINDS = new Set(["function", "class", "method", "generator"]);
const SLICE = ["tools/", "symbols/", "workspace/"];

/** The repository's tracked TypeScript files (of the slice, unless all). */
async function files(all: boolean): Promise<string[]> {
  const { stdout } = await new Deno.Command("git", {
    args: ["ls-files", "*.ts"],
    cwd: PROJECT_ROOT,
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(stdout).split("\n").filter((path) =>
    path !== "" && !path.startsWith("tests/fixtures/") &&
    (all || SLICE.some((dir) => path.startsWith(dir)))
  );
}

interface Tag {
  name: string;
  path: string;
  line: number;
  kind: string;
  pattern?: string;
}

async function ctags(paths: string[]): Promise<Tag[]> {
  const { code, stdout, stderr } = await new Deno.Command("ctags", {
    args: [
      "--output-format=json",
      "--fields=+nK",
      "--languages=TypeScript",
      "-f",
      "-",
      ...paths,
    ],
    cwd: PROJECT_ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  return new TextDecoder().decode(stdout).split("\n").filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Tag & { _type: string })
    .filter((tag) => tag._type === "tag" && CTAGS_KINDS.has(tag.kind));
}

const RESERVED = new Set([
  "if",
  "else",
  "for",
  "while",
  "do",
  "switch",
  "case",
  "return",
  "void",
  "new",
  "typeof",
  "catch",
  "throw",
  "await",
  "yield",
]);

/**
 * Whether `tag`'s source line, as ctags quotes it (its `pattern`), could
 * define the name: not a reserved word, and the name followed by a
 * parameter list (`name(`, `name<T>(`), an assignment (`name =`), or
 * after `class`/`function`.
 */
export function couldDefine(tag: { name: string; pattern?: string }): boolean {
  if (RESERVED.has(tag.name)) return false;
  const line = tag.pattern ?? "";
  const name = tag.name.replace(/[$.*+?^()[\]{}|\\]/g, "\\$&");
  return new RegExp(
    `(^|[^.\\w$#])${name}\\s*(<[^>]*>\\s*)?(\\(|=[^=])|(class|function\\*?)\\s+${name}\\b`,
  ).test(line);
}

const haveCtags = await programRuns("ctags", ["--version"]);

Deno.test({
  name:
    `symbols vs universal-ctags: every function, class and method ctags reports on this repository's TypeScript${
      haveCtags ? "" : " (skipped: ctags is not installed)"
    }`,
  ignore: !haveCtags,
  async fn() {
    const all = Deno.env.get("SHIPCODE_CTAGS_ALL") === "1";
    const paths = await files(all);
    const tags = await ctags(paths);
    const lines = new Map<string, Set<string>>();
    for (const path of paths) {
      const text = await Deno.readTextFile(`${PROJECT_ROOT}${path}`);
      const result = definitionsOf(
        await loadLanguage(languageOf(path)!),
        text,
      );
      assert.ok(result.ok, `${path}: ${!result.ok && result.reason}`);
      const seen = new Set<string>();
      for (const def of result.definitions) {
        seen.add(`${def.name}:${def.line}`);
        seen.add(`${def.name}:${def.start}`);
      }
      lines.set(path, seen);
    }
    const unmatched = tags.filter((tag) =>
      !lines.get(tag.path)?.has(`${tag.name}:${tag.line}`)
    );
    const misses = unmatched.filter(couldDefine);
    const ctagsErrors = unmatched.filter((tag) => !couldDefine(tag));
    const show = (tag: Tag) =>
      `  ${tag.path}:${tag.line} ${tag.kind} ${tag.name}`;
    console.log(
      `${paths.length} files, ${tags.length} ctags definitions, ${misses.length} missed, ${ctagsErrors.length} ctags errors left out`,
    );
    if (misses.length > 0) {
      console.log(["missed:", ...misses.map(show)].join("\n"));
    }
    if (ctagsErrors.length > 0) {
      console.log(["ctags errors:", ...ctagsErrors.map(show)].join("\n"));
    }
    assert.deepEqual(misses.map(show), []);
  },
});
