import { strict as assert } from "node:assert";
import { languageOf } from "./languages.ts";
import { loadLanguage } from "./runtime.ts";
import {
  type Definition,
  definitionsOf,
  PARSE_TIMEOUT_MS,
} from "./definitions.ts";

/** "kind name start-end @line" per definition, indented by depth. */
async function outline(path: string, text: string): Promise<string[]> {
  const language = languageOf(path);
  assert.ok(language !== undefined, path);
  const result = definitionsOf(await loadLanguage(language), text);
  assert.ok(result.ok, JSON.stringify(result));
  return result.definitions.map((d: Definition) =>
    `${"  ".repeat(d.depth)}${d.kind} ${d.name} ${d.start}-${d.end} @${d.line}`
  );
}

Deno.test("definitions: TypeScript, nested, with exports and arrows", async () => {
  const text = [
    "export const LIMIT = 5;",
    "/** Doc. */",
    "export function top(a: number): number {",
    "  const local = 1;",
    "  function inner() {}",
    "  return a + local;",
    "}",
    "export class Box<T> {",
    "  #value: T;",
    "  constructor(v: T) { this.#value = v; }",
    "  get value(): T { return this.#value; }",
    "  handler = () => 1;",
    "}",
    "interface Shape { area(): number }",
    "type Id = string;",
    "enum Color { Red }",
    "const arrow = (x: number) => x * 2;",
    "namespace NS { export function f() {} }",
  ].join("\n");
  assert.deepEqual(await outline("a.ts", text), [
    "variable LIMIT 1-1 @1",
    "function top 3-7 @3",
    "  function inner 5-5 @5",
    "class Box 8-13 @8",
    "  method constructor 10-10 @10",
    "  method value 11-11 @11",
    "  method handler 12-12 @12",
    "interface Shape 14-14 @14",
    "  method area 14-14 @14",
    "type Id 15-15 @15",
    "enum Color 16-16 @16",
    "function arrow 17-17 @17",
    "namespace NS 18-18 @18",
    "  function f 18-18 @18",
  ]);
});

Deno.test("definitions: Python methods and decorators; Go; Rust; C by the C++ grammar", async () => {
  assert.deepEqual(
    await outline(
      "m.py",
      "X = 1\n\n@dataclass\nclass A:\n    def m(self):\n        y = 2\n        return y\n\ndef f():\n    pass\n",
    ),
    [
      "variable X 1-1 @1",
      "class A 3-7 @4",
      "  method m 5-7 @5",
      "function f 9-10 @9",
    ],
  );
  assert.deepEqual(
    await outline(
      "m.go",
      "package m\n\ntype S struct{ a int }\n\ntype I interface{ M() }\n\nfunc (s *S) M() {}\n\nfunc F() int { return 1 }\n",
    ),
    [
      "struct S 3-3 @3",
      "interface I 5-5 @5",
      "  method M 5-5 @5",
      "method M 7-7 @7",
      "function F 9-9 @9",
    ],
  );
  assert.deepEqual(
    await outline(
      "m.rs",
      "struct P { x: i32 }\nimpl P {\n    fn new() -> Self { P { x: 0 } }\n}\ntrait T { fn t(&self); }\nfn main() {}\n",
    ),
    [
      "struct P 1-1 @1",
      "impl P 2-4 @2",
      "  method new 3-3 @3",
      "trait T 5-5 @5",
      "  method t 5-5 @5",
      "function main 6-6 @6",
    ],
  );
  assert.deepEqual(
    await outline(
      "m.c",
      "struct pt { int x; };\nstatic int *make(int n)\n{\n    return 0;\n}\nint main(void) { return 0; }\n",
    ),
    [
      "struct pt 1-1 @1",
      "function make 2-5 @2",
      "function main 6-6 @6",
    ],
  );
});

Deno.test("definitions: what universal-ctags reports in Python, Go and C (kernel habits)", async () => {
  // Python: a lambda bound to a name is a function (a method in a class),
  // in a function too.
  assert.deepEqual(
    await outline(
      "m.py",
      "key = lambda a: a[0]\nclass K:\n    show = lambda self: 1\ndef f():\n    g = lambda: 2\n    h = 3\n",
    ),
    [
      "function key 1-1 @1",
      "class K 2-3 @2",
      "  method show 3-3 @3",
      "function f 4-6 @4",
      "  function g 5-5 @5",
    ],
  );
  // Go: an interface's methods.
  assert.deepEqual(
    await outline(
      "m.go",
      "package m\n\ntype R interface {\n\tRead(p []byte) (int, error)\n\tio.Closer\n}\n",
    ),
    ["interface R 3-6 @3", "  method Read 4-4 @4"],
  );
  // C through the C++ grammar: an attribute macro between type and name
  // (read as a qualified name missing its `::`), also before a pointer
  // declarator and with the name on the next line; an empty inline
  // function closed by `;` (read as a brace-initialised declaration); a
  // packed struct (read as a function definition).
  assert.deepEqual(
    await outline(
      "m.c",
      [
        "static int __init setup(void)",
        "{",
        "\treturn 0;",
        "}",
        "static void __iomem *window(int n)",
        "{",
        "}",
        "static int __maybe_unused",
        "resume(struct device *dev)",
        "{",
        "}",
        "static inline void touch(struct ring *r) { };",
        "struct __packed header {",
        "\tshort magic;",
        "};",
      ].join("\n"),
    ),
    [
      "function setup 1-4 @1",
      "function window 5-7 @5",
      "function resume 8-11 @9",
      "function touch 12-12 @12",
      "struct header 13-15 @13",
    ],
  );
});

Deno.test("definitions: Java, Ruby, C#, PHP, Bash", async () => {
  assert.deepEqual(
    await outline("A.java", "class A {\n  A() {}\n  void run() {}\n}\n"),
    ["class A 1-4 @1", "  method A 2-2 @2", "  method run 3-3 @3"],
  );
  assert.deepEqual(
    await outline("a.rb", "module M\n  class C\n    def go; end\n  end\nend\n"),
    ["module M 1-5 @1", "  class C 2-4 @2", "    method go 3-3 @3"],
  );
  assert.deepEqual(
    await outline(
      "a.cs",
      "namespace N {\n  class C {\n    void M() {}\n  }\n}\n",
    ),
    ["namespace N 1-5 @1", "  class C 2-4 @2", "    method M 3-3 @3"],
  );
  assert.deepEqual(
    await outline(
      "a.php",
      "<?php\nfunction f() {}\nclass C { function m() {} }\n",
    ),
    ["function f 2-2 @2", "class C 3-3 @3", "  method m 3-3 @3"],
  );
  assert.deepEqual(await outline("a.sh", "f() {\n  echo hi\n}\n"), [
    "function f 1-3 @1",
  ]);
});

Deno.test("definitions: syntax errors still outline; deep nesting and a long line are bounded", async () => {
  const loaded = await loadLanguage(languageOf("x.ts")!);
  const broken = definitionsOf(loaded, "function ok() {}\nclass {{{{\n");
  assert.ok(broken.ok);
  assert.equal(broken.syntaxErrors, true);
  assert.equal(broken.definitions[0].name, "ok");
  // Deep nesting: no stack is used per level; past the time budget, the
  // parse is stopped with a reason, never a crash or a hang.
  for (const depth of [2_000, 100_000]) {
    const started = performance.now();
    const deep = definitionsOf(
      loaded,
      `const a = ${"[".repeat(depth)}${"]".repeat(depth)};`,
    );
    assert.ok(performance.now() - started < PARSE_TIMEOUT_MS + 500);
    if (!deep.ok) assert.match(deep.reason, /took longer than/);
    else assert.equal(deep.definitions[0].name, "a");
  }
  // A parse over its time budget is stopped and says so.
  const slow = definitionsOf(loaded, "let x = 1 + 2;\n".repeat(200_000), {
    timeoutMs: 1,
  });
  assert.equal(slow.ok, false);
  assert.match(!slow.ok ? slow.reason : "", /took longer than 1 ms/);
  // The parser is usable afterwards.
  assert.ok(definitionsOf(loaded, "function f() {}").ok);
});

Deno.test("definitions: deeply nested definitions keep to the deadline", async () => {
  const loaded = await loadLanguage(languageOf("x.ts")!);
  // Each definition asks its node for a parent, which walks down from the
  // root: 20,000 nested functions took 43 s before the loop kept time.
  const text = "function a(){".repeat(20_000) + "}".repeat(20_000);
  const started = performance.now();
  const nested = definitionsOf(loaded, text, { timeoutMs: 300 });
  assert.ok(performance.now() - started < 300 + 500);
  assert.equal(nested.ok, false);
  assert.match(!nested.ok ? nested.reason : "", /took longer than 300 ms/);
});

Deno.test("definitions: a stop flag set before or during the work ends it", async () => {
  const loaded = await loadLanguage(languageOf("x.ts")!);
  const stop = new Int32Array(new SharedArrayBuffer(4));
  Atomics.store(stop, 0, 1);
  const started = performance.now();
  const stopped = definitionsOf(loaded, "let x = 1 + 2;\n".repeat(200_000), {
    stop,
  });
  assert.ok(performance.now() - started < 200);
  assert.equal(stopped.ok, false);
  assert.match(!stopped.ok ? stopped.reason : "", /was stopped/);
  Atomics.store(stop, 0, 0);
  assert.ok(definitionsOf(loaded, "function f() {}", { stop }).ok);
});

Deno.test("languages: by extension and name; unknown is undefined", () => {
  assert.equal(languageOf("a/b.tsx")?.name, "tsx");
  assert.equal(languageOf("x.H")?.name, "cpp");
  assert.equal(languageOf("lib/x.c")?.name, "cpp");
  assert.equal(languageOf("Rakefile")?.name, "ruby");
  assert.equal(languageOf("README.md"), undefined);
  assert.equal(languageOf(".ts"), undefined);
});
