import { strict as assert } from "node:assert";
import { makeTempWorkspace } from "../tests/tools_fixture.ts";
import { call, textOf, toolServer } from "../tests/tools_harness.ts";

Deno.test("list_directory: sizes, depth, caps", async () => {
  await using tmp = await makeTempWorkspace();
  const { server, session } = await toolServer(tmp.root, {
    caps: { maxEntries: 3, maxDepth: 2 },
  });
  const top = await call(server, session, "list_directory", {
    path: "src",
    depth: 5,
  });
  assert.equal(top.structuredContent, undefined);
  const lines = textOf(top).split("\n");
  assert.deepEqual(lines.slice(0, 3), [
    "src/.gitignore (13 bytes)",
    "src/lib/",
    "src/lib/deep/",
  ]);
  assert.equal(lines.length, 4);
  assert.match(lines[3], /^\[Only the first 3 entries .* capped at 2; .*\]$/);
});
