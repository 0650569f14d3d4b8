import { strict as assert } from "node:assert";
import { makeTempWorkspace } from "../tests/tools_fixture.ts";
import { call, toolServer } from "../tests/tools_harness.ts";

Deno.test("file_info: file, text line count, directory, binary", async () => {
  await using tmp = await makeTempWorkspace();
  const { server, session } = await toolServer(tmp.root);
  const main = await call(server, session, "file_info", {
    path: "src/main.ts",
  });
  const stat = await Deno.stat(`${tmp.root}/src/main.ts`);
  assert.deepEqual(main.structuredContent, {
    path: "src/main.ts",
    type: "file",
    size: stat.size,
    modified: stat.mtime!.toISOString(),
    mimeType: "text/x-typescript",
    isText: true,
    lines: 5,
  });
  const utf16 = await call(server, session, "file_info", {
    path: "docs/utf16.txt",
  });
  assert.equal(utf16.structuredContent!.lines, 1);
  const large = await call(server, session, "file_info", { path: "large.txt" });
  assert.equal(
    large.structuredContent!.lines,
    (await Deno.readTextFile(`${tmp.root}/large.txt`)).split("\n").length - 1,
  );
  const dir = await call(server, session, "file_info", { path: "src" });
  assert.equal(dir.structuredContent!.type, "directory");
  const bin = await call(server, session, "file_info", {
    path: "data/blob.bin",
  });
  assert.equal(bin.structuredContent!.isText, false);
  assert.equal(bin.structuredContent!.lines, undefined);
});
