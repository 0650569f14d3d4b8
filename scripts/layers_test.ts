import { strict as assert } from "node:assert";
import {
  cycles,
  type ImportGraph,
  importGraph,
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
  }));
  assert.deepEqual(problems, [
    "mcp/server.ts imports handlers/mod.ts: mcp/ may not depend on handlers/",
    "handlers/ping.ts imports tools/mod.ts: handlers/ may not depend on tools/",
    "workspace/file.ts imports mcp/jsonrpc.ts: workspace/ may not depend on mcp/",
    "tools/common.ts imports cli/flags.ts: tools/ may not depend on cli/",
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

Deno.test("layers: this project keeps them", async () => {
  const root = new URL("..", import.meta.url).pathname;
  const project = await importGraph(root, ["main.ts", "mod.ts"]);
  assert.ok(project.has("mcp/server.ts"), "the graph reaches the library");
  assert.ok(
    project.has("tools/mod.ts"),
    "the graph follows main.ts's lazy imports",
  );
  assert.deepEqual(layerProblems(project), []);
});
