/**
 * What the official SDK client 2.x, in MCP 2026-07-28 mode, checks of the
 * workspace server (serving `tests/fixtures/ws` with `--features all`),
 * whatever the wire: every tool, resources, templates, prompts and
 * completion, with the revision's caching hints and deterministic order.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import type { Client } from "./sdk2.ts";
import { workspaceToolNames } from "./tool_names.ts";

/** The text blocks of a tool result, joined by line breaks. */
export function texts(result: { content?: unknown }): string {
  return (result.content as { type: string; text?: string }[])
    .map((block) => block.text ?? `(${block.type})`).join("\n");
}

/** Run the checks on `client`, connected in 2026-07-28 mode. */
export async function checkWorkspace(client: Client): Promise<void> {
  assert.equal(client.getProtocolEra(), "modern");
  assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
  assert.deepEqual(client.getServerVersion(), {
    name: "shipcode-mcp",
    version: "1.0.0",
  });
  const discover = client.getDiscoverResult();
  assert.deepEqual(discover?.supportedVersions, ["2026-07-28", "2025-06-18"]);
  assert.ok(discover?.capabilities.tools, "tools capability discovered");

  const listed = await client.listTools();
  const names = listed.tools.map((tool) => tool.name);
  assert.deepEqual(names, await workspaceToolNames());
  assert.deepEqual(names, [...names].sort(), "deterministic order");
  assert.equal(listed.ttlMs, 300_000);
  assert.equal(listed.cacheScope, "public");

  const found = await client.callTool({
    name: "find_files",
    arguments: { pattern: "*.ts" },
  });
  assert.equal(texts(found), "src/lib/util.ts\nsrc/main.ts");
  const read = await client.callTool({
    name: "read_file",
    arguments: { path: "src/lib/util.ts", offset: 5, limit: 1 },
  });
  assert.match(texts(read), /^5\texport const TODO = "needle in util";$/);
  const searched = await client.callTool({
    name: "search_text",
    arguments: { query: "needle", path: "src" },
  });
  assert.match(texts(searched), /^src\/lib\/util\.ts:5:/m);
  const info = await client.callTool({
    name: "file_info",
    arguments: { path: "README.md" },
  });
  assert.equal((info.structuredContent as { lines: number }).lines, 3);
  const listing = await client.callTool({
    name: "list_directory",
    arguments: {},
  });
  assert.match(texts(listing), /^src\/$/m);
  const missing = await client.callTool({
    name: "read_file",
    arguments: { path: "nope.txt" },
  });
  assert.equal(missing.isError, true);

  const resources = await client.listResources();
  const readme = resources.resources.find((r) => r.name === "README.md");
  assert.ok(readme, "README.md is listed");
  assert.equal(resources.cacheScope, "private");
  const contents = await client.readResource({ uri: readme.uri });
  assert.match(
    (contents.contents[0] as { text: string }).text,
    /./,
  );
  const templates = await client.listResourceTemplates();
  assert.ok(templates.resourceTemplates.length > 0);
  await assert.rejects(
    client.readResource({ uri: `${readme.uri}.nope` }),
    (error: { code?: number }) => error.code === -32602,
  );

  const prompts = await client.listPrompts();
  assert.ok(prompts.prompts.length > 0);
  const prompt = prompts.prompts[0];
  const args = Object.fromEntries(
    (prompt.arguments ?? []).filter((a) => a.required).map((a) => [
      a.name,
      "needle",
    ]),
  );
  const got = await client.getPrompt({ name: prompt.name, arguments: args });
  assert.ok(got.messages.length > 0);

  const completed = await client.complete({
    ref: {
      type: "ref/resource",
      uri: templates.resourceTemplates[0].uriTemplate,
    },
    argument: { name: "path", value: "src/" },
  });
  assert.ok(
    completed.completion.values.some((v) => v.startsWith("src/")),
    JSON.stringify(completed),
  );
}

/**
 * The client capabilities that let `tests/client_requests_server.ts`'s
 * tools ask the client for sampling, a form and its roots.
 */
export const CLIENT_REQUEST_CAPABILITIES = {
  sampling: {},
  elicitation: { form: {} },
  roots: {},
};

/**
 * Check, on `client` (connected in 2026-07-28 mode to
 * `tests/client_requests_server.ts` with
 * {@linkcode CLIENT_REQUEST_CAPABILITIES}), that the server's sampling,
 * elicitation and roots requests reach the client as input_required
 * rounds, one each, in order, and their answers come back in the results.
 */
export async function checkClientRequests(client: Client): Promise<void> {
  const asked: string[] = [];
  client.setRequestHandler("sampling/createMessage", (request) => {
    asked.push(request.method);
    return {
      model: "test-model",
      role: "assistant",
      content: { type: "text", text: "Paris" },
    };
  });
  client.setRequestHandler("elicitation/create", (request) => {
    asked.push(request.method);
    return { action: "accept", content: { name: "Grace", size: "l" } };
  });
  client.setRequestHandler("roots/list", (request) => {
    asked.push(request.method);
    return { roots: [{ uri: "file:///work/a" }, { uri: "file:///work/b" }] };
  });
  assert.equal(client.getProtocolEra(), "modern");
  const sampled = await client.callTool({
    name: "ask_model",
    arguments: { question: "Capital of France?" },
  });
  assert.equal(texts(sampled), "test-model: Paris");
  const elicited = await client.callTool({ name: "ask_user", arguments: {} });
  assert.deepEqual(JSON.parse(texts(elicited)), {
    action: "accept",
    content: { name: "Grace", size: "l" },
  });
  const roots = await client.callTool({ name: "list_roots", arguments: {} });
  assert.equal(texts(roots), "file:///work/a\nfile:///work/b");
  assert.deepEqual(asked, [
    "sampling/createMessage",
    "elicitation/create",
    "roots/list",
  ]);
}
