import { strict as assert } from "node:assert";
import { makeTempWorkspace } from "../tests/tools_fixture.ts";
import { call, textOf, toolServer } from "../tests/tools_harness.ts";

Deno.test("find_files: name globs, path globs, limit", async () => {
  await using tmp = await makeTempWorkspace();
  const { server, session } = await toolServer(tmp.root);
  const ts = await call(server, session, "find_files", {
    pattern: "*.ts",
    path: "src",
  });
  assert.equal(textOf(ts), "src/lib/util.ts\nsrc/main.ts");
  assert.equal(ts.structuredContent, undefined);
  const deep = await call(server, session, "find_files", {
    pattern: "**/deeper/*",
  });
  // docs/link_src links to src/: walked once, under its real path.
  assert.equal(textOf(deep), "src/lib/deep/deeper/leaf.txt");
  const limited = await call(server, session, "find_files", {
    pattern: "*",
    limit: 2,
  });
  assert.equal(textOf(limited).split("\n").length, 3);
  assert.match(textOf(limited), /\n\[More than 2 files match; .*\]$/);
});
