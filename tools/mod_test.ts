/**
 * The workspace tool set (`tools/mod.ts`) served in-process: what
 * tools/list shows, hostile paths refused by every tool, and schemas that
 * every model provider's dialect accepts.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { createServer } from "../main.ts";
import { parseFlags } from "../cli/flags.ts";
import { isObject, type JsonObject } from "../mcp/jsonrpc.ts";
import type { Tool } from "../mcp/tool.ts";
import { makeTempWorkspace, SECRET } from "../tests/tools_fixture.ts";
import { callRaw, toolServer } from "../tests/tools_harness.ts";
import { workspaceToolNames } from "../tests/tool_names.ts";
import { stopRegexWorker } from "./regex_worker.ts";

// The tool set as tools/list shows it.

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

// Hostile paths: every one is refused with `isError: true` by every
// path-taking tool, and no byte of the secret outside the root ever
// appears in any response.

function hostilePaths(base: string, root: string): string[] {
  return [
    "..",
    "../",
    "../secret.txt",
    "../../etc/passwd",
    "./../secret.txt",
    "src/../../secret.txt",
    "src/lib/../../../secret.txt",
    "src/..",
    `${base}/secret.txt`,
    `${root}/../secret.txt`,
    `${root}/src/../../secret.txt`,
    "/etc/passwd",
    "/",
    `${root}x/secret.txt`,
    "link_out",
    "link_out_abs",
    "link_dir_out",
    "link_dir_out/inner.txt",
    "link_parent",
    "link_parent/secret.txt",
    "link_sneaky",
    "link_out_missing",
    "link_self/../secret.txt",
    "docs/link_src/../../secret.txt",
    "secret.txt\0.md",
    "README.md\0",
    "..\\secret.txt",
    "src\\..\\..\\secret.txt",
    "C:\\Windows\\win.ini",
    "C:/Windows/win.ini",
    "c:secret.txt",
    "\\\\server\\share\\secret.txt",
    "//server/share/secret.txt",
    "README.md::$DATA",
    "README.md:secret",
    "file:///etc/passwd",
    "%2e%2e/secret.txt",
    ".git/config",
    ".git",
    "secret.env",
    "link_to_ignored",
    "build/out.js",
  ];
}

/**
 * What a tool needs beside its path to get as far as reading it, by tool
 * name; each entry is called with every hostile path. A tool not named
 * here is called with its path alone.
 */
const EXTRA_ARGUMENTS: Readonly<Record<string, readonly JsonObject[]>> = {
  find_files: [{ pattern: "*" }],
  search_text: [{ query: "SECRET" }, { query: "S.CRET", regex: true }],
  find_symbol: [{ name: "*", match: "glob" }],
  read_symbol: [{ name: "SECRET" }],
};

/**
 * A call (tool name, and the arguments for a path) for every registered
 * tool whose inputSchema has a `path`: a new tool is covered without an
 * edit here, unless it requires more than a path.
 */
function pathCalls(
  tools: readonly Tool[],
): [string, (path: string) => JsonObject][] {
  const calls: [string, (path: string) => JsonObject][] = [];
  const withPath = tools.filter((tool) =>
    isObject(tool.inputSchema.properties) &&
    "path" in tool.inputSchema.properties
  );
  for (const name of Object.keys(EXTRA_ARGUMENTS)) {
    assert.ok(
      withPath.some((tool) => tool.name === name),
      `EXTRA_ARGUMENTS names ${name}, which is no tool that takes a path`,
    );
  }
  for (const tool of withPath) {
    const required = tool.inputSchema.required;
    for (const extra of EXTRA_ARGUMENTS[tool.name] ?? [{}]) {
      const missing = (Array.isArray(required) ? required : []).filter(
        (name) => name !== "path" && !(name in extra),
      );
      assert.deepEqual(
        missing,
        [],
        `${tool.name} requires ${missing.join(", ")} beside its path: ` +
          `add them to EXTRA_ARGUMENTS`,
      );
      calls.push([tool.name, (path) => ({ ...extra, path })]);
    }
  }
  return calls;
}

Deno.test("path escape: every hostile path is refused by every tool, the secret never leaks", async () => {
  await using tmp = await makeTempWorkspace();
  await Deno.mkdir(`${tmp.root}/.git`);
  await Deno.writeTextFile(`${tmp.root}/.git/config`, `${SECRET}\n`);
  await Deno.writeTextFile(`${tmp.root}/secret.env`, `${SECRET}\n`);
  const { server, session } = await toolServer(tmp.root);
  const paths = hostilePaths(tmp.base, tmp.root);
  assert.ok(paths.length >= 30, `only ${paths.length} hostile paths`);
  const calls = pathCalls(server.tools.list());
  assert.ok(calls.length > 0, "no registered tool takes a path");
  try {
    for (const path of paths) {
      for (const [tool, args] of calls) {
        const response = await callRaw(server, session, tool, args(path));
        const text = JSON.stringify(response);
        const where = `${tool} ${JSON.stringify(path)}: ${text.slice(0, 300)}`;
        assert.equal(response.error, undefined, where);
        const result = response.result as { isError?: boolean };
        // "%2e%2e" is a literal directory name here: simply missing.
        assert.equal(result.isError, true, where);
        assert.ok(!text.includes(SECRET), `secret leaked: ${where}`);
        assert.ok(!text.includes("SECRET-OUTSIDE"), `secret leaked: ${where}`);
      }
    }
    // Walking tools over the whole root never descend into links out.
    for (const [tool, args] of calls) {
      const response = await callRaw(server, session, tool, args(""));
      const text = JSON.stringify(response);
      assert.ok(!text.includes(SECRET), `secret leaked: ${tool} over root`);
      assert.ok(!text.includes("inner.txt"), `${tool} listed outside_dir`);
    }
  } finally {
    stopRegexWorker();
  }
});

Deno.test("path escape: a missing file outside looks exactly like an existing one", async () => {
  await using tmp = await makeTempWorkspace();
  const { server, session } = await toolServer(tmp.root);
  const existing = await callRaw(server, session, "file_info", {
    path: "../secret.txt",
  });
  const missing = await callRaw(server, session, "file_info", {
    path: "../no-such-file.txt",
  });
  const textOf = (r: Record<string, unknown>) =>
    JSON.stringify(r.result).replace(/secret\.txt|no-such-file\.txt/g, "X");
  assert.equal(textOf(existing), textOf(missing));
  const linkExisting = await callRaw(server, session, "read_file", {
    path: "link_out",
  });
  const linkMissing = await callRaw(server, session, "read_file", {
    path: "link_out_missing",
  });
  assert.equal(
    JSON.stringify(linkExisting.result).replace("link_out", "L"),
    JSON.stringify(linkMissing.result).replace("link_out_missing", "L"),
  );
});

// Every published tool schema stays within the JSON Schema subset that
// model providers' dialects (OpenAI structured outputs, Gemini, the
// Inspector's checks) all accept. The tools come from the server's own
// registry, so a new tool is covered without editing this file.

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
