import { strict as assert } from "node:assert";
import { programRuns } from "../tests/have_program.ts";
import { PROJECT_ROOT } from "../tests/server_command.ts";
import { CTAGS_LANGUAGES } from "./ctags.ts";
import {
  differential,
  renderDifferential,
  showTag,
  sourceFiles,
} from "./symbols_ctags.ts";

const FIXTURES = `${PROJECT_ROOT}tests/fixtures/symbols`;

/** The standard library the Python sample comes from, where installed. */
const PYTHON_LIB = "/usr/lib/python3.11";

/**
 * Standard-library modules with the shapes that were missed once
 * (lambdas bound to names, nested functions, decorated methods).
 */
const PYTHON_SAMPLE = [
  "hmac.py",
  "symtable.py",
  "configparser.py",
  "textwrap.py",
  "json/decoder.py",
];

// Universal-ctags: Exuberant ctags, also named ctags, writes no JSON.
const haveCtags = await programRuns("ctags", [
  "--output-format=json",
  "--version",
]);
// CI installs universal-ctags (.ci/run): there the test runs, or fails.
const skipCtags = !haveCtags && Deno.env.get("CI") === undefined;
const havePython = await Deno.stat(`${PYTHON_LIB}/hmac.py`).then(
  () => true,
  () => false,
);

Deno.test({
  name: `symbols vs universal-ctags: Python, Go and C fixtures, nothing missed${
    skipCtags ? " (skipped: ctags is not installed)" : ""
  }`,
  ignore: skipCtags,
  async fn() {
    for (
      const [language, file] of [
        ["python", "shapes.py"],
        ["go", "queue.go"],
        ["c", "ring.c"],
      ]
    ) {
      const d = await differential(CTAGS_LANGUAGES[language], FIXTURES, [
        file,
      ]);
      console.log(renderDifferential(d, 20));
      assert.ok(d.tags >= 10, `${file}: ctags found ${d.tags}`);
      assert.deepEqual(
        [...d.missed, ...d.unparsed, ...d.misread].map(showTag),
        [],
      );
      assert.equal(d.matched, d.tags);
    }
  },
});

Deno.test({
  name:
    `symbols vs universal-ctags: what the grammar cannot parse is told apart${
      skipCtags ? " (skipped: ctags is not installed)" : ""
    }`,
  ignore: skipCtags,
  async fn() {
    const d = await differential(CTAGS_LANGUAGES.c, FIXTURES, ["unparsed.c"]);
    assert.deepEqual(d.missed, []);
    assert.deepEqual(d.unparsed.map((tag) => `${tag.name}:${tag.line}`), [
      "flags_of:5",
    ]);
    assert.equal(d.matched, 1);
  },
});

Deno.test({
  name: `symbols vs universal-ctags: a sample of Python's standard library${
    skipCtags
      ? " (skipped: ctags is not installed)"
      : !havePython
      ? ` (skipped: ${PYTHON_LIB} is not here)`
      : ""
  }`,
  ignore: skipCtags || !havePython,
  async fn() {
    const d = await differential(
      CTAGS_LANGUAGES.python,
      PYTHON_LIB,
      PYTHON_SAMPLE,
    );
    console.log(renderDifferential(d, 20));
    assert.equal(d.files, PYTHON_SAMPLE.length);
    assert.ok(d.tags > 100, `ctags found ${d.tags}`);
    assert.deepEqual([...d.missed, ...d.unparsed].map(showTag), []);
  },
});

Deno.test("symbols_ctags: sourceFiles lists a tree's files of the extensions, sorted", async () => {
  const files = await sourceFiles(FIXTURES, ["c", "go"]);
  assert.deepEqual(files, ["queue.go", "ring.c", "unparsed.c"]);
});
