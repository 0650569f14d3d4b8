/**
 * Every published tool schema stays within the JSON Schema subset that
 * model providers' dialects (OpenAI structured outputs, Gemini, the
 * Inspector's checks) all accept. The tools come from the server's own
 * registry, so a new tool is covered without editing this file.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { createServer } from "../main.ts";
import { parseFlags } from "../cli/flags.ts";
import type { JsonObject } from "../mcp/jsonrpc.ts";

type JsonValue = unknown;

// Keywords some dialects reject or ignore in ways that change meaning.
const REFUSED = [
  "$ref",
  "$defs",
  "definitions",
  "$id",
  "$anchor",
  "$dynamicRef",
  "allOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "patternProperties",
  "dependentSchemas",
  "dependentRequired",
  "unevaluatedProperties",
  "prefixItems",
  "contains",
  "const",
];

const TYPES = ["object", "array", "string", "integer", "number", "boolean"];

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Why `schema` (at `where`) is not portable; empty when it is. */
export function portabilityProblems(
  schema: JsonValue,
  where = "",
  top = true,
): string[] {
  if (!isObject(schema)) return [`${where || "/"}: not a schema object`];
  const problems: string[] = [];
  const at = where || "/";
  const type = schema.type;
  if (Array.isArray(type)) {
    problems.push(`${at}: "type" is an array (${JSON.stringify(type)})`);
  } else if (typeof type !== "string") {
    problems.push(`${at}: no single "type"`);
  } else if (!TYPES.includes(type)) {
    problems.push(`${at}: type "${type}" is not portable`);
  }
  if (top && type !== "object") problems.push(`${at}: top level not object`);
  if (top && "anyOf" in schema) problems.push(`${at}: anyOf at top level`);
  for (const keyword of REFUSED) {
    if (keyword in schema) problems.push(`${at}: uses "${keyword}"`);
  }
  if ("anyOf" in schema && !top) {
    const branches = schema.anyOf;
    if (!Array.isArray(branches)) problems.push(`${at}: anyOf not a list`);
    else {
      branches.forEach((b, i) =>
        problems.push(...portabilityProblems(b, `${where}/anyOf/${i}`, false))
      );
    }
  }
  if ("enum" in schema) {
    const values = schema.enum;
    if (!Array.isArray(values) || values.length === 0) {
      problems.push(`${at}: enum is not a non-empty list`);
    } else if (values.some((v) => v === null || typeof v !== type)) {
      problems.push(`${at}: enum values are not all of type ${type}`);
    }
  }
  if (type === "object") {
    const properties = schema.properties ?? {};
    if (!isObject(properties)) problems.push(`${at}: properties not object`);
    else {
      for (const [name, sub] of Object.entries(properties)) {
        problems.push(
          ...portabilityProblems(sub, `${where}/properties/${name}`, false),
        );
      }
    }
    const extra = schema.additionalProperties;
    if (extra !== undefined && typeof extra !== "boolean") {
      problems.push(`${at}: additionalProperties is not a boolean`);
    }
    const required = schema.required;
    if (
      required !== undefined &&
      (!Array.isArray(required) ||
        required.some((r) =>
          typeof r !== "string" || !isObject(properties) || !(r in properties)
        ))
    ) {
      problems.push(`${at}: required names a property it does not define`);
    }
  }
  if (type === "array") {
    if (!isObject(schema.items)) problems.push(`${at}: items not one schema`);
    else {problems.push(
        ...portabilityProblems(schema.items, `${at}/items`, false),
      );}
  }
  return problems;
}

Deno.test("portabilityProblems: catches the constructs it is there for", () => {
  const bad: JsonObject = {
    type: "object",
    properties: {
      modified: { type: ["string", "null"] },
      kind: { enum: ["a", "b"] },
      nothing: { type: "null" },
      link: { $ref: "#/$defs/x", type: "string" },
      list: { type: "array", items: [{ type: "string" }] },
      choice: { type: "string", enum: ["a", null] },
    },
    oneOf: [{ required: ["modified"] }],
    required: ["missing"],
  };
  const problems = portabilityProblems(bad).join("\n");
  for (
    const expected of [
      /modified: "type" is an array/,
      /kind: no single "type"/,
      /nothing: type "null"/,
      /link: uses "\$ref"/,
      /list: items not one schema/,
      /choice: enum values/,
      /^\/: uses "oneOf"/m,
      /required names a property/,
    ]
  ) {
    assert.match(problems, expected);
  }
  assert.deepEqual(
    portabilityProblems({ type: "object", anyOf: [] }),
    ["/: anyOf at top level"],
  );
  assert.deepEqual(
    portabilityProblems({
      type: "object",
      properties: { a: { type: "string", enum: ["x"] } },
      required: ["a"],
      additionalProperties: false,
    }),
    [],
  );
});

Deno.test("every registered tool's inputSchema and outputSchema is portable", async () => {
  const root = await Deno.makeTempDir();
  try {
    const command = parseFlags(["--root", root], root);
    assert.equal(command.kind, "serve");
    if (command.kind !== "serve") return;
    const server = createServer(command.config);
    await server.ready();
    const tools = server.tools.list();
    assert.ok(tools.length > 0, "the registry holds no tools");
    const problems: string[] = [];
    for (const tool of tools) {
      for (
        const [label, schema] of [
          ["inputSchema", tool.inputSchema],
          ["outputSchema", tool.outputSchema],
        ] as const
      ) {
        if (schema === undefined) continue;
        for (const problem of portabilityProblems(schema)) {
          problems.push(`${tool.name} ${label}${problem}`);
        }
      }
    }
    assert.deepEqual(problems, []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
