import assert from "node:assert/strict";
import { makeTempWorkspace } from "../tests/tools_fixture.ts";
import { call, callRaw, textOf, toolServer } from "../tests/tools_harness.ts";
import { workspaceToolNames } from "../tests/tool_names.ts";

Deno.test("tools/list: sorted by name, keys in order, paginated with a keyset cursor", async () => {
  await using tmp = await makeTempWorkspace();
  const { server, session } = await toolServer(tmp.root);
  const list = await server.handle({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/list",
  }, session);
  const tools = (list!.result as { tools: Record<string, unknown>[] }).tools;
  assert.deepEqual(tools.map((t) => t.name), await workspaceToolNames());
  const order = [
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
  ];
  for (const tool of tools) {
    // Keys in the wire order; name, description and inputSchema always.
    const keys = Object.keys(tool);
    assert.deepEqual(keys, order.filter((key) => keys.includes(key)));
    for (const key of ["name", "description", "inputSchema"]) {
      assert.ok(keys.includes(key), `${tool.name} lacks ${key}`);
    }
    // A read-only workspace: whatever a tool says of itself, it reads only.
    if (tool.annotations !== undefined) {
      assert.equal(
        (tool.annotations as { readOnlyHint?: boolean }).readOnlyHint,
        true,
      );
    }
  }
  // The tools shipped today say all of it.
  const fileInfo = tools.find((t) => t.name === "file_info")!;
  assert.deepEqual(Object.keys(fileInfo), order);
  assert.deepEqual(fileInfo.annotations, {
    readOnlyHint: true,
    idempotentHint: true,
    openWorldHint: false,
  });
});

Deno.test("tools/call: protocol errors and version-dependent invalid arguments", async () => {
  await using tmp = await makeTempWorkspace();
  const old = await toolServer(tmp.root, { version: "2025-06-18" });
  const unknown = await callRaw(old.server, old.session, "nope", {});
  assert.deepEqual(unknown.error, {
    code: -32602,
    message:
      `Unknown tool: "nope"; call tools/list for the names of this server's tools.`,
    data: { tool: "nope" },
  });
  const invalid = await callRaw(old.server, old.session, "read_file", {
    path: 3,
  });
  const error = invalid.error as {
    code: number;
    message: string;
    data: { errors: { path: string }[] };
  };
  assert.equal(error.code, -32602);
  // The message alone tells a client's user what to fix.
  assert.match(
    error.message,
    /^Invalid arguments for tool read_file: arguments\/path: must be string\./,
  );
  assert.deepEqual(error.data.errors.map((e) => e.path), ["/path"]);
  const notObject = await callRaw(
    old.server,
    old.session,
    "read_file",
    "src/main.ts",
  );
  assert.equal((notObject.error as { code: number }).code, -32602);
  const fresh = await toolServer(tmp.root, { version: "2025-11-25" });
  const soft = await call(fresh.server, fresh.session, "read_file", {
    path: 3,
  });
  assert.equal(soft.isError, true);
  assert.match(textOf(soft), /arguments\/path: must be string/);
});

Deno.test("list_directory: sizes, depth, caps", async () => {
  await using tmp = await makeTempWorkspace();
  const { server, session } = await toolServer(tmp.root, {
    caps: { maxEntries: 3, maxDepth: 2 },
  });
  const top = await call(server, session, "list_directory", {
    path: "src",
    depth: 5,
  });
  assert.deepEqual(top.structuredContent, {
    path: "src",
    count: 3,
    truncated: true,
  });
  const lines = textOf(top).split("\n");
  assert.deepEqual(lines.slice(0, 3), [
    "src/.gitignore (13 bytes)",
    "src/lib/",
    "src/lib/deep/",
  ]);
  assert.equal(lines.length, 4);
  assert.match(lines[3], /^\[Only the first 3 entries .* capped at 2; .*\]$/);
});

Deno.test("find_files: name globs, path globs, limit", async () => {
  await using tmp = await makeTempWorkspace();
  const { server, session } = await toolServer(tmp.root);
  const ts = await call(server, session, "find_files", {
    pattern: "*.ts",
    path: "src",
  });
  assert.equal(textOf(ts), "src/lib/util.ts\nsrc/main.ts");
  assert.deepEqual(ts.structuredContent, {
    pattern: "*.ts",
    count: 2,
    truncated: false,
  });
  const deep = await call(server, session, "find_files", {
    pattern: "**/deeper/*",
  });
  // docs/link_src links to src/: walked once, under its real path.
  assert.equal(textOf(deep), "src/lib/deep/deeper/leaf.txt");
  const limited = await call(server, session, "find_files", {
    pattern: "*",
    limit: 2,
  });
  assert.equal(limited.structuredContent!.count, 2);
  assert.equal(limited.structuredContent!.truncated, true);
  assert.equal(textOf(limited).split("\n").length, 3);
  assert.match(textOf(limited), /\n\[More than 2 files match; .*\]$/);
});

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
