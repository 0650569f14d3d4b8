import { prng } from "../tests/prng.ts";
import { programRuns } from "../tests/have_program.ts";
import { strict as assert } from "node:assert";
import { IgnoreRules, pathBytes, wildmatch } from "./gitignore.ts";
import { Workspace } from "./workspace.ts";

const bytes = pathBytes;

function ignores(rules: string, path: string, isDir = false) {
  return IgnoreRules.parse(rules).verdict(bytes(path), isDir);
}

Deno.test("wildmatch: git's cases", () => {
  const cases: [string, string, boolean, boolean][] = [
    // [pattern, text, pathname, expected]
    ["foo", "foo", true, true],
    ["foo", "bar", true, false],
    ["*", "foo", true, true],
    ["*", "a/b", true, false],
    ["*", "a/b", false, true],
    ["**", "a/b", true, true],
    ["a/**/b", "a/b", true, true],
    ["a/**/b", "a/x/y/b", true, true],
    ["a/**", "a/x/y", true, true],
    ["**/b", "x/y/b", true, true],
    ["**/b", "b", true, true],
    ["a**b", "a/b", true, false],
    ["q\\?.txt", "q?.txt", true, true],
    ["q\\?.txt", "qx.txt", true, false],
    ["q?.txt", "qx.txt", true, true],
    ["[a-c]x", "bx", true, true],
    ["[!a-c]x", "bx", true, false],
    ["[^a-c]x", "dx", true, true],
    ["[]]", "]", true, true],
    ["[[:upper:]]*", "Abc", true, true],
    ["[[:upper:]]*", "abc", true, false],
    ["[[:nope:]]", "a", true, false],
    ["[a", "[a", true, false],
    ["*.TXT", "case.txt", true, false],
    ["?", "é", true, false], // one byte, as git
    ["??", "é", true, true],
    ["foo\\", "foo", true, false],
    ["*a*a*a*a*a*a*a*a*a*a*b", "a".repeat(200), true, false],
  ];
  for (const [pattern, text, pathname, expected] of cases) {
    assert.equal(
      wildmatch(bytes(pattern), bytes(text), pathname),
      expected,
      `${pattern} ~ ${text}`,
    );
  }
});

Deno.test("IgnoreRules: syntax as git parses it", () => {
  assert.equal(ignores("*.log\n!keep.log\n", "keep.log"), false);
  assert.equal(ignores("*.log\n!keep.log\n", "x.log"), true);
  assert.equal(ignores("*.log\n", "x.txt"), undefined);
  assert.equal(ignores("\\!bang\n", "!bang"), true);
  assert.equal(ignores("\\#hash\n", "#hash"), true);
  assert.equal(ignores("#hash\n", "#hash"), undefined);
  assert.equal(ignores("sp   \n", "sp"), true);
  assert.equal(ignores("sp\\ \n", "sp "), true);
  assert.equal(ignores("build/\n", "build"), undefined);
  assert.equal(ignores("build/\n", "build", true), true);
  assert.equal(ignores("/top\n", "a/top"), undefined);
  assert.equal(ignores("top\n", "a/top"), true);
  assert.equal(ignores("a/b\n", "x/a/b"), undefined);
  assert.equal(ignores("a/b\n", "a/b"), true);
  assert.equal(ignores("x\r\n", "x"), true);
  assert.equal(ignores("\uFEFFx\n", "x"), true);
});

Deno.test("wildmatch: a hostile pattern stays fast", () => {
  const pattern = bytes("*/".repeat(30) + "**/".repeat(30) + "*a*b*c*d*e*f");
  const text = bytes("ab/".repeat(200) + "x".repeat(200));
  const start = performance.now();
  assert.equal(wildmatch(pattern, text, true), false);
  const nested = bytes("**/*a**/*a**/*a**/*a**/*a**/*a**/*a**/*a**/*b");
  assert.equal(wildmatch(nested, bytes("a/".repeat(500) + "c"), true), false);
  assert.ok(performance.now() - start < 2000, "too slow");
});

const NAMES = [
  "a",
  "b",
  "A",
  "dir",
  "sub",
  "q?.txt",
  "qx.txt",
  "case.txt",
  "CASE.TXT",
  "x.log",
  "keep.log",
  "star*.md",
  "br[a].c",
  "bra.c",
  "sp ace",
  "sp",
  "#hash",
  "!bang",
  "back\\slash",
  "é.txt",
  "deep",
  "c.txt",
  "z.md",
];

const RULES = [
  "*.txt",
  "*.TXT",
  "q\\?.txt",
  "q?.txt",
  "!keep.log",
  "*.log",
  "!*.log",
  "\\!bang",
  "\\#hash",
  "#hash",
  "/a",
  "a/",
  "a/**",
  "**/b",
  "a/**/c.txt",
  "**/sub/**",
  "dir/",
  "/dir/sub/",
  "dir/*",
  "!dir/sub",
  "!sub/",
  "*",
  "!*/",
  "!*.md",
  "b/*.md",
  "[a-c]*",
  "[!a]*",
  "[[:upper:]]*",
  "sp\\ ace",
  "sp   ",
  "star\\*.md",
  "br\\[a].c",
  "br[a].c",
  "back\\\\slash",
  "?.txt",
  "??.txt",
  "*/c.txt",
  "deep/**/z.md",
  "**",
  "sub",
  "!b",
  "A",
  "CASE.*",
  "\\a",
  "a\\",
];

interface Case {
  files: string[];
  rules: Map<string, string>; // directory ("" or "x/y") -> .gitignore text
}

function generate(random: () => number): Case {
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)];
  const dirs = [""];
  const files = new Set<string>();
  for (let i = 0; i < 14; i++) {
    const parent = pick(dirs);
    const name = pick(NAMES);
    const path = parent === "" ? name : `${parent}/${name}`;
    if (parent.split("/").length < 4 && int(3) === 0) {
      if (!files.has(path) && !dirs.includes(path)) dirs.push(path);
    } else if (!dirs.includes(path)) {
      files.add(path);
    }
  }
  // Every directory holds at least one file, so git lists something.
  for (const dir of dirs.slice(1)) {
    if (![...files].some((f) => f.startsWith(`${dir}/`))) {
      files.add(`${dir}/f`);
    }
  }
  const rules = new Map<string, string>();
  for (const dir of dirs) {
    if (dir !== "" && int(3) !== 0) continue;
    const lines: string[] = [];
    for (let n = 1 + int(4); n > 0; n--) lines.push(pick(RULES));
    rules.set(dir, lines.join(int(5) === 0 ? "\r\n" : "\n") + "\n");
  }
  return { files: [...files], rules };
}

// The files git would not ignore, by our rules, with git's walk: an
// ignored directory hides all below it, the deepest rule file speaks first.
function visibleByRules(c: Case): string[] {
  const dirsOf = new Set<string>([""]);
  for (const file of c.files) {
    const parts = file.split("/");
    for (let i = 1; i < parts.length; i++) {
      dirsOf.add(parts.slice(0, i).join("/"));
    }
  }
  const rulesOf = (dir: string) => {
    const text = c.rules.get(dir);
    return text === undefined ? undefined : IgnoreRules.parse(text);
  };
  const excluded = (path: string, isDir: boolean): boolean => {
    const parts = path.split("/");
    for (let level = parts.length - 1; level >= 0; level--) {
      const rules = rulesOf(parts.slice(0, level).join("/"));
      if (rules === undefined) continue;
      const verdict = rules.verdict(
        bytes(parts.slice(level).join("/")),
        isDir,
      );
      if (verdict !== undefined) return verdict;
    }
    return false;
  };
  const all = [
    ...c.files,
    ...[...c.rules.keys()].map((d) =>
      d === "" ? ".gitignore" : `${d}/.gitignore`
    ),
  ];
  return all.filter((file) => {
    const parts = file.split("/");
    for (let i = 1; i < parts.length; i++) {
      if (excluded(parts.slice(0, i).join("/"), true)) return false;
    }
    return !excluded(file, false) && dirsOf.size > 0;
  }).sort();
}

async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args,
    cwd,
    env: {
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      HOME: cwd,
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

const hasGit = await programRuns("git", ["--version"]);

Deno.test({
  name: `IgnoreRules agree with git ls-files on generated rule sets${
    hasGit ? "" : " (skipped: no git on PATH)"
  }`,
  ignore: !hasGit,
  async fn() {
    const random = prng(20260509);
    const cases = Array.from({ length: 300 }, () => generate(random));
    const repo = await Deno.makeTempDir({ prefix: "shipcode-gitignore-" });
    try {
      await git(repo, "init", "-q");
      for (let i = 0; i < cases.length; i++) {
        const base = `${repo}/case${i}`;
        for (const file of cases[i].files) {
          const at = `${base}/${file}`;
          await Deno.mkdir(at.slice(0, at.lastIndexOf("/")), {
            recursive: true,
          });
          await Deno.writeTextFile(at, "x\n");
        }
        for (const [dir, text] of cases[i].rules) {
          await Deno.writeTextFile(
            dir === "" ? `${base}/.gitignore` : `${base}/${dir}/.gitignore`,
            text,
          );
        }
      }
      const listed = (await git(
        repo,
        "-c",
        "core.quotePath=false",
        "ls-files",
        "--others",
        "--exclude-standard",
        "-z",
      )).split("\0").filter((p) => p !== "");
      const byCase = new Map<number, string[]>();
      for (const path of listed) {
        const slash = path.indexOf("/");
        const index = Number(path.slice(4, slash));
        const list = byCase.get(index) ?? [];
        list.push(path.slice(slash + 1));
        byCase.set(index, list);
      }
      const ws = await Workspace.open(repo);
      let compared = 0;
      for (let i = 0; i < cases.length; i++) {
        const expected = (byCase.get(i) ?? []).sort();
        const where = `case ${i}: rules ${
          JSON.stringify([...cases[i].rules])
        } files ${JSON.stringify(cases[i].files)}`;
        assert.deepEqual(visibleByRules(cases[i]), expected, where);
        const walked: string[] = [];
        for await (const entry of ws.walk({ path: `case${i}` })) {
          if (entry.isFile) {
            walked.push(entry.relative.slice(`case${i}/`.length));
          }
        }
        assert.deepEqual(walked.sort(), expected, `walk, ${where}`);
        compared += cases[i].files.length;
      }
      assert.ok(compared > 2000, `only ${compared} paths compared`);
    } finally {
      await Deno.remove(repo, { recursive: true });
    }
  },
});

Deno.test("verdictOf: the same answer as running every pattern, on random rules and paths", () => {
  // Seeded, so a failure is reproducible.
  let seed = 12345;
  const random = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x80000000;
  };
  const pick = <T>(items: readonly T[]): T =>
    items[Math.floor(random() * items.length)];
  const parts = [
    "a",
    "b",
    "ab",
    ".o",
    "o",
    ".",
    "é",
    "ñ",
    "*",
    "**",
    "?",
    "[ab]",
    "[!a]",
    "[]a]",
    "\\*",
    "\\",
    "/",
    "x",
    "-",
    "foo",
    ".c",
    "\uFFFD",
  ];
  const names = ["a", "b", "ab", "a.o", "x.c.o", ".o", "é", "ñ.o", "foo", "*"];
  for (let round = 0; round < 400; round++) {
    const lines: string[] = [];
    const count = 1 + Math.floor(random() * 8);
    for (let i = 0; i < count; i++) {
      let line = random() < 0.2 ? "!" : "";
      if (random() < 0.2) line += "/";
      const length = 1 + Math.floor(random() * 4);
      for (let j = 0; j < length; j++) line += pick(parts);
      if (random() < 0.2) line += "/";
      lines.push(line);
    }
    const rules = IgnoreRules.parse(lines.join("\n"));
    for (let k = 0; k < 30; k++) {
      const depth = 1 + Math.floor(random() * 3);
      const path = Array.from({ length: depth }, () => pick(names)).join("/");
      for (const isDir of [false, true]) {
        assert.equal(
          rules.verdictOf(path, isDir),
          rules.verdict(bytes(path), isDir),
          `${JSON.stringify(lines)} on ${path} (${isDir ? "dir" : "file"})`,
        );
      }
    }
  }
});

Deno.test("verdictOf: literal, extension, suffix, prefix and path rules keep git's order", () => {
  const rules = IgnoreRules.parse(
    [
      "*.o",
      "!keep.o",
      "Makefile",
      "/vmlinux",
      "!*.o",
      "*.o",
      "*~",
      ".*",
      "!.gitignore",
      "sphinx_*/",
      "a/**/b",
      "*.c.[012]*.*",
    ].join("\n"),
  );
  const cases: [string, boolean, boolean | undefined][] = [
    ["x.o", false, true],
    ["keep.o", false, true], // "*.o" comes again after "!keep.o".
    ["dir/Makefile", false, true],
    ["vmlinux", false, true],
    ["dir/vmlinux", false, undefined], // Anchored.
    ["notes~", false, true],
    [".config", false, true],
    [".gitignore", false, false],
    ["sphinx_x", true, true],
    ["sphinx_x", false, undefined], // Directories only.
    ["a/x/y/b", false, true],
    ["a/b", false, true],
    ["t.c.1x.y", false, true],
    ["t.c.3x.y", false, undefined],
  ];
  for (const [path, isDir, expected] of cases) {
    assert.equal(rules.verdictOf(path, isDir), expected, path);
    assert.equal(rules.verdict(bytes(path), isDir), expected, path);
  }
});

Deno.test("verdictIn: the answer of verdictOf for a path below a level, escapes as literals", () => {
  const rules = IgnoreRules.parse(
    ["\\#*#", "a\\*b", "/include/config", "x/*/y", "!x/keep/y"].join("\n"),
  );
  const cases: [string, boolean, boolean | undefined][] = [
    ["#notes#", false, true],
    ["dir/#notes#", false, true],
    ["notes#", false, undefined],
    ["a*b", false, true],
    ["axb", false, undefined],
    ["include/config", true, true],
    ["include/config2", true, undefined],
    ["include/configuration/deeper/than/any/literal/path", true, undefined],
    ["x/z/y", false, true],
    ["x/keep/y", false, false],
    ["x/z/w/y", false, undefined],
  ];
  for (const prefix of ["", "sub/", "deep/er/"]) {
    for (const [path, isDir, expected] of cases) {
      const full = prefix + path;
      const base = full.slice(full.lastIndexOf("/") + 1);
      assert.equal(rules.verdictOf(path, isDir), expected, path);
      assert.equal(
        rules.verdictIn(full, prefix.length, base, isDir),
        expected,
        full,
      );
      assert.equal(rules.verdict(bytes(path), isDir), expected, path);
    }
  }
});
