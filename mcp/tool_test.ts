import { strict as assert } from "node:assert";
import { isValidToolName, type Tool, ToolRegistry } from "./tool.ts";
import { schemaDialect } from "./schema_dialect.ts";
import { compileSchema } from "./json_schema.ts";

function tool(
  name: string,
  inputSchema: Tool["inputSchema"] = { type: "object" },
): Tool {
  return { name, description: "d", inputSchema, run: () => ({ content: [] }) };
}

Deno.test("tool names: 1 to 128 of A-Z a-z 0-9 _ - .", () => {
  for (const good of ["a", "read_file", "ns.tool-2", "A".repeat(128)]) {
    assert.ok(isValidToolName(good), good);
  }
  for (const bad of ["", "a b", "a/b", "é", "a:b", "A".repeat(129), "a\n"]) {
    assert.ok(!isValidToolName(bad), JSON.stringify(bad));
  }
});

Deno.test("ToolRegistry.register refuses a name that breaks the rules", () => {
  const registry = new ToolRegistry();
  assert.throws(
    () => registry.register(tool("read file")),
    /Tool name "read file" is not valid: use 1 to 128 characters/,
  );
  assert.throws(() => registry.register(tool("")), /not valid/);
  registry.register(tool("read.file-2_x"));
  assert.equal(registry.list().length, 1);
});

Deno.test("ToolRegistry.register refuses a JSON Schema dialect it cannot check", () => {
  const registry = new ToolRegistry();
  assert.throws(
    () =>
      registry.register(tool("old", {
        $schema: "http://json-schema.org/draft-04/schema#",
        type: "object",
      })),
    /Tool "old": unsupported JSON Schema dialect "http:\/\/json-schema.org\/draft-04\/schema#"/,
  );
  registry.register(tool("seven", {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
  }));
});

Deno.test("schemaDialect: 2020-12 without $schema", () => {
  assert.equal(schemaDialect({ type: "object" }), "2020-12");
  assert.equal(
    schemaDialect({ $schema: "https://json-schema.org/draft/2020-12/schema" }),
    "2020-12",
  );
  assert.equal(
    schemaDialect({ $schema: "http://json-schema.org/draft-07/schema#" }),
    "draft-07",
  );
  assert.equal(
    schemaDialect({ $schema: "https://json-schema.org/draft/2019-09/schema#" }),
    "2019-09",
  );
  assert.throws(() => schemaDialect({ $schema: 7 }), /unsupported/);
});

Deno.test("compileSchema: each schema by its dialect's rules", async () => {
  // 2020-12 (the default): prefixItems checks a tuple, items the rest.
  const tuple = await compileSchema({
    type: "array",
    prefixItems: [{ type: "string" }],
    items: { type: "integer" },
  });
  assert.deepEqual(tuple(["a", 1, 2]), []);
  assert.equal(tuple([1]).length, 1);
  assert.equal(tuple(["a", "b"]).length, 1);
  // draft-07: items as an array is the tuple form.
  const seven = await compileSchema({
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "array",
    items: [{ type: "string" }],
    additionalItems: false,
  });
  assert.deepEqual(seven(["a"]), []);
  assert.equal(seven(["a", "b"]).length, 1);
  assert.equal(seven([1]).length, 1);
  // 2020-12 has no array form of items: such a schema is invalid there.
  await assert.rejects(
    compileSchema({ type: "array", items: [{ type: "string" }] }),
  );
  await assert.rejects(
    compileSchema({ $schema: "https://example.com/my-dialect" }),
    /unsupported JSON Schema dialect/,
  );
});
