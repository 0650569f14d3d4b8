import { strict as assert } from "node:assert";
import {
  cycles,
  type ImportGraph,
  importGraph,
  layerEntries,
  layerProblems,
} from "./layers.ts";

function graph(edges: Record<string, string[]>): ImportGraph {
  return new Map(Object.entries(edges).map(([k, v]) => [k, new Set(v)]));
}

Deno.test("layers: the library and the workspace may not reach up", () => {
  const problems = layerProblems(graph({
    "mcp/server.ts": ["mcp/tool.ts", "handlers/mod.ts"],
    "handlers/ping.ts": ["mcp/server.ts", "tools/mod.ts"],
    "workspace/file.ts": ["workspace/errors.ts", "mcp/jsonrpc.ts"],
    "tools/common.ts": ["cli/flags.ts", "workspace/file.ts", "mcp/tool.ts"],
    "main.ts": ["cli/flags.ts", "tools/mod.ts"],
    "cli/flags.ts": ["mcp/log.ts", "workspace/path.ts"],
    "prompts/mod.ts": ["app/roots.ts", "tools/served.ts"],
    "app/roots.ts": ["tools/mod.ts", "resources/provider.ts"],
    "exports/http.ts": ["mcp/transports/http.ts", "tools/mod.ts"],
    "symbols/runtime.ts": ["symbols/languages.ts", "workspace/module_file.ts"],
    "symbols/definitions.ts": ["tools/common.ts", "mcp/tool.ts"],
  }));
  assert.deepEqual(problems, [
    "mcp/server.ts imports handlers/mod.ts: mcp/ may not depend on handlers/",
    "handlers/ping.ts imports tools/mod.ts: handlers/ may not depend on tools/",
    "workspace/file.ts imports mcp/jsonrpc.ts: workspace/ may not depend on mcp/",
    "tools/common.ts imports cli/flags.ts: tools/ may not depend on cli/",
    "prompts/mod.ts imports app/roots.ts: prompts/ may not depend on app/",
    "exports/http.ts imports tools/mod.ts: exports/ may not depend on tools/",
    "symbols/definitions.ts imports tools/common.ts: symbols/ may not depend on tools/",
    "symbols/definitions.ts imports mcp/tool.ts: symbols/ may not depend on mcp/",
  ]);
});

Deno.test("layers: cycles are found, including a module importing itself", () => {
  const found = cycles(graph({
    "a.ts": ["b.ts"],
    "b.ts": ["c.ts"],
    "c.ts": ["a.ts", "d.ts"],
    "d.ts": [],
    "e.ts": ["e.ts"],
    "f.ts": ["d.ts"],
  }));
  assert.deepEqual(found.map((c) => [...c].sort()), [
    ["a.ts", "b.ts", "c.ts"],
    ["e.ts"],
  ]);
  assert.deepEqual(cycles(graph({ "a.ts": ["b.ts"], "b.ts": [] })), []);
});

Deno.test("layers: a unit test of the library or the workspace is held to its folder's rules", async () => {
  const root = await Deno.makeTempDir({ prefix: "shipcode-layers-" });
  try {
    const files: Record<string, string> = {
      "mod.ts": 'export * from "./mcp/a.ts";\n',
      "mcp/a.ts": "export const a = 1;\n",
      // Reaches up into handlers/: what the check is for.
      "mcp/a_test.ts": 'import { h } from "../handlers/h.ts";\nh;\n',
      // Nested, and within the rules: mcp/ and node: only.
      "mcp/deep/b_test.ts":
        'import "node:assert";\nimport { a } from "../a.ts";\na;\n',
      "handlers/h.ts":
        'import { a } from "../mcp/a.ts";\nexport const h = a;\n',
      // A fixture of tests/ is for the workspace server's tests only.
      "handlers/h_test.ts": 'import { f } from "../tests/f.ts";\nf;\n',
      "workspace/w_test.ts": 'import { a } from "../mcp/a.ts";\na;\n',
      // The adapters' tests may use the fixtures: not entries.
      "tools/t_test.ts": 'import { f } from "../tests/f.ts";\nf;\n',
      "tests/f.ts": "export const f = 1;\n",
    };
    for (const [path, text] of Object.entries(files)) {
      await Deno.mkdir(`${root}/${path.slice(0, path.lastIndexOf("/") + 1)}`, {
        recursive: true,
      });
      await Deno.writeTextFile(`${root}/${path}`, text);
    }
    const entries = await layerEntries(root);
    assert.deepEqual(entries, [
      "mod.ts",
      "handlers/h_test.ts",
      "mcp/a_test.ts",
      "mcp/deep/b_test.ts",
      "workspace/w_test.ts",
    ]);
    assert.deepEqual(layerProblems(await importGraph(root, entries)), [
      "handlers/h_test.ts imports tests/f.ts: handlers/ may not depend on tests/",
      "mcp/a_test.ts imports handlers/h.ts: mcp/ may not depend on handlers/",
      "workspace/w_test.ts imports mcp/a.ts: workspace/ may not depend on mcp/",
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("layers: this project keeps them, its standalone layers' tests included", async () => {
  const root = new URL("..", import.meta.url).pathname;
  const entries = await layerEntries(root);
  for (
    const test of [
      "mcp/connection_test.ts",
      "mcp/transports/stdio_test.ts",
      "handlers/tools_call_test.ts",
      "workspace/path_test.ts",
    ]
  ) {
    assert.ok(entries.includes(test), `${test} is not an entry`);
  }
  assert.ok(!entries.includes("tools/mod_test.ts"));
  assert.ok(entries.includes("exports/http.ts"), "subpath exports are entries");
  const project = await importGraph(root, entries);
  assert.ok(project.has("mcp/server.ts"), "the graph reaches the library");
  assert.ok(
    project.has("tools/mod.ts"),
    "the graph follows main.ts's lazy imports",
  );
  assert.ok(project.has("mcp/server_test.ts"), "the graph holds the tests");
  assert.deepEqual(layerProblems(project), []);
});
