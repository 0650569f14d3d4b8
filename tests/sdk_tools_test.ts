/**
 * The official SDK client against every build target, over the fixture
 * workspace: lists the tools and calls each one. A tool with an
 * outputSchema (file_info) must answer structuredContent that fits it,
 * which the SDK validates and the test checks again with our validator;
 * the text tools answer plain text alone.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { compileSchema } from "../mcp/json_schema.ts";
import type { JsonObject } from "../mcp/jsonrpc.ts";
import { workspaceToolNames } from "./tool_names.ts";
import { PROJECT_ROOT } from "./server_command.ts";
import { sdkTest } from "./sdk_connect.ts";

const ROOT = `${PROJECT_ROOT}tests/fixtures/ws`;

function text(result: JsonObject): string {
  return (result.content as { text: string }[])[0].text;
}

const CALLS: [string, JsonObject, (result: JsonObject) => void][] = [
  ["list_directory", { depth: 2 }, (r) => {
    const entries = text(r).split("\n");
    assert.ok(entries.some((e) => e.startsWith("src/main.ts (")));
    assert.ok(!entries.some((e) => e.startsWith("app.log")), "ignored file");
  }],
  ["find_files", { pattern: "*.ts" }, (r) => {
    assert.equal(text(r), "src/lib/util.ts\nsrc/main.ts");
  }],
  ["read_file", { path: "src/lib/util.ts", offset: 5, limit: 1 }, (r) => {
    assert.match(
      text(r),
      /^5\texport const TODO = "needle in util";$/,
    );
  }],
  ["read_file", { path: "images/pixel.png" }, (r) => {
    const block = (r.content as JsonObject[])[0];
    assert.equal(block.type, "image");
    assert.equal(block.mimeType, "image/png");
  }],
  ["search_text", { query: "needle", path: "src" }, (r) => {
    assert.match(
      (r.content as { text: string }[])[0].text,
      /^src\/lib\/util\.ts:5:/m,
    );
  }],
  ["file_info", { path: "README.md" }, (r) => {
    const data = r.structuredContent as JsonObject;
    assert.equal(data.type, "file");
    assert.equal(data.lines, 3);
    assert.equal(data.mimeType, "text/markdown");
  }],
];

sdkTest(
  "sdk tools [launch] lists and calls every tool",
  ["--root", ROOT],
  async ({ client }) => {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((tool: { name: string }) => tool.name),
      await workspaceToolNames(),
    );
    const called = new Set<string>();
    for (const [name, args, check] of CALLS) {
      const result = await client.callTool({ name, arguments: args });
      assert.notEqual(result.isError, true, JSON.stringify(result));
      const tool = (tools as { name: string; outputSchema?: unknown }[]).find(
        (tool) => tool.name === name,
      );
      if (tool?.outputSchema === undefined) {
        assert.equal(result.structuredContent, undefined, name);
      } else {
        const validate = await compileSchema(
          tool.outputSchema as JsonObject,
        );
        assert.deepEqual(validate(result.structuredContent), []);
        // The text is the same data, serialized (the spec's SHOULD).
        assert.deepEqual(JSON.parse(text(result)), result.structuredContent);
      }
      check(result as JsonObject);
      called.add(name);
    }
    // The SDK has checked every listed definition; a tool added without
    // a case above is listed, not run.
    assert.ok(called.size > 0);
    const failed = await client.callTool({
      name: "read_file",
      arguments: { path: "../outside.txt" },
    });
    assert.equal(failed.isError, true);
  },
);
