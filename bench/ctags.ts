/**
 * Debian's `universal-ctags` as the outside reference for the symbol
 * tools: which of its kinds count as a function, class or method in each
 * language the differential covers, and its tags for a list of files,
 * read as JSON lines as ctags writes them (a tree as large as the
 * kernel's `drivers/` gives hundreds of thousands of tags, so the output
 * is never held whole).
 *
 * @module
 */

/** A language the differential covers, as ctags and as we name it. */
export interface CtagsLanguage {
  /** Our name for it (`symbols/languages.ts`). */
  readonly name: string;
  /** ctags' name for its parser. */
  readonly parser: string;
  /** The file extensions it covers, without the dot. */
  readonly extensions: readonly string[];
  /**
   * ctags' kinds (their letters for `--kinds-LANG`) that are a function,
   * a class or a method in this language, and their long names.
   */
  readonly kinds: Readonly<Record<string, string>>;
  /**
   * Whether ctags' parser misread `tag`: reported a definition that the
   * source does not hold (checked only for the tags ours misses).
   */
  readonly misread?: (tag: Tag) => boolean;
}

/** The source line ctags quotes for `tag` (its pattern, unescaped). */
export function quotedLine(tag: Tag): string {
  return (tag.pattern ?? "").replace(/^\/\^/, "").replace(/\$?\/$/, "")
    .replace(/\\([\\/$^])/g, "$1");
}

/**
 * ctags' C parser takes a macro call for a function definition named
 * after the macro, which no code there defines: a top-level call with no
 * `;` after it (`ACPI_EXPORT_SYMBOL(f)`, `static DEF_SCSI_QCMD(f)`: a
 * name in capitals that starts its line, with no type before it), or a
 * macro that makes a function's name (`int UVERBS_HANDLER(M)(…)`, the
 * call followed by the parameter list).
 */
export function cMacroCall(tag: Tag): boolean {
  if (tag.kind !== "function" || !/^[A-Z][A-Z0-9_]*$/.test(tag.name)) {
    return false;
  }
  const line = quotedLine(tag);
  return new RegExp(`^\\s*(static\\s+)?${tag.name}\\s*\\(`).test(line) ||
    new RegExp(`\\b${tag.name}\\s*\\([^()]*\\)\\s*\\(`).test(line);
}

/**
 * The languages of the differential. Python's methods are ctags'
 * `member`s; Go's methods are `func`s, and its class-like types are
 * structs and interfaces, whose method declarations are `methodSpec`s;
 * C has no classes or methods: its functions, structs and unions count.
 */
export const CTAGS_LANGUAGES: Readonly<Record<string, CtagsLanguage>> = {
  python: {
    name: "python",
    parser: "Python",
    extensions: ["py"],
    kinds: { c: "class", f: "function", m: "member" },
  },
  go: {
    name: "go",
    parser: "Go",
    extensions: ["go"],
    kinds: { f: "func", s: "struct", i: "interface", n: "methodSpec" },
  },
  c: {
    name: "c",
    parser: "C",
    extensions: ["c", "h"],
    kinds: { f: "function", s: "struct", u: "union" },
    misread: cMacroCall,
  },
};

/** One tag ctags reported. */
export interface Tag {
  /** The name defined. */
  name: string;
  /** The file, as given to ctags. */
  path: string;
  /** The line of the name, 1-based. */
  line: number;
  /** ctags' long kind name. */
  kind: string;
  /** The source line, as ctags quotes it (`/^…$/`). */
  pattern?: string;
}

/** ctags' name for a tag of an anonymous struct or union: not a name. */
const ANONYMOUS = /^__anon[0-9a-f]+$/;

/** The command line that tags `language`'s kinds of the files on stdin. */
export function ctagsArgs(language: CtagsLanguage): string[] {
  return [
    "--output-format=json",
    "--fields=+nK",
    `--languages=${language.parser}`,
    // ctags gives .h to C++ too; the C++ parser is not the reference here.
    `--langmap=${language.parser}:${
      language.extensions.map((e) => `.${e}`).join("")
    }`,
    `--kinds-${language.parser}=${Object.keys(language.kinds).join("")}`,
    "-L",
    "-",
    "-f",
    "-",
  ];
}

/** The tag a line of ctags' JSON output holds, if it is one we count. */
export function parseTagLine(
  line: string,
  kinds: ReadonlySet<string>,
): Tag | undefined {
  if (line === "") return undefined;
  const value = JSON.parse(line) as Tag & { _type?: string };
  if (value._type !== "tag" || !kinds.has(value.kind)) return undefined;
  if (ANONYMOUS.test(value.name)) return undefined;
  const { name, path, line: at, kind, pattern } = value;
  return { name, path, line: at, kind, pattern };
}

/**
 * ctags' tags of `language`'s counted kinds in `paths` (relative to
 * `cwd`), grouped by path. Throws when ctags fails.
 */
export async function ctagsTags(
  language: CtagsLanguage,
  paths: readonly string[],
  cwd: string,
): Promise<Map<string, Tag[]>> {
  const child = new Deno.Command("ctags", {
    args: ctagsArgs(language),
    cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writing = (async () => {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(paths.join("\n") + "\n"));
    await writer.close();
  })();
  const errors = new Response(child.stderr).text();
  const kinds = new Set(Object.values(language.kinds));
  const byPath = new Map<string, Tag[]>();
  let rest = "";
  const add = (line: string) => {
    const tag = parseTagLine(line, kinds);
    if (tag === undefined) return;
    const list = byPath.get(tag.path);
    if (list === undefined) byPath.set(tag.path, [tag]);
    else list.push(tag);
  };
  for await (
    const chunk of child.stdout.pipeThrough(new TextDecoderStream())
  ) {
    const lines = (rest + chunk).split("\n");
    rest = lines.pop()!;
    for (const line of lines) add(line);
  }
  add(rest);
  await writing;
  const status = await child.status;
  if (!status.success) {
    throw new Error(`ctags failed (exit ${status.code}): ${await errors}`);
  }
  return byPath;
}
