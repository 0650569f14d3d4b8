/**
 * Every protocol version `--protocol-versions` can enable, end to end: a
 * client that asks for it gets it, and nothing the server sends holds a
 * field or content type that version's schema does not define. The tables
 * below are written from the specification's `schema/<version>/schema.ts`,
 * independently of the code under test.
 */

import { strict as assert } from "node:assert";
import { runServer } from "./process.ts";
import { PROJECT_ROOT, TARGETS, targetStatus } from "./server_command.ts";
import { PROTOCOL_VERSIONS } from "../mcp/protocol_versions.ts";
import { DEFAULTS } from "../cli/flags.ts";

type Table = Record<string, Record<string, string[]>>;

// Keys each object may carry, per version (each version adds to the last).
const ADDED: Table = {
  "2024-11-05": {
    tool: ["name", "description", "inputSchema"],
    resource: ["uri", "name", "description", "mimeType", "size", "annotations"],
    template: ["uriTemplate", "name", "description", "mimeType", "annotations"],
    result: ["content", "isError", "_meta"],
    serverInfo: ["name", "version"],
    content: ["text", "image", "resource"],
    block: ["type", "text", "data", "mimeType", "resource", "annotations"],
  },
  "2025-03-26": { tool: ["annotations"], content: ["audio"] },
  "2025-06-18": {
    tool: ["title", "outputSchema", "_meta"],
    resource: ["title", "_meta"],
    template: ["title", "_meta"],
    result: ["structuredContent"],
    serverInfo: ["title"],
    content: ["resource_link"],
    block: ["_meta", "uri", "name", "title", "description", "size"],
  },
  "2025-11-25": {
    tool: ["icons", "execution"],
    resource: ["icons"],
    template: ["icons"],
    serverInfo: ["icons", "websiteUrl", "description"],
  },
};

function allowed(version: string, kind: string): Set<string> {
  const keys = new Set<string>();
  for (const v of Object.keys(ADDED)) {
    if (v <= version) { for (const key of ADDED[v][kind] ?? []) keys.add(key); }
  }
  return keys;
}

function checkKeys(version: string, kind: string, object: unknown): void {
  const ok = allowed(version, kind);
  for (const key of Object.keys(object as object)) {
    assert.ok(ok.has(key), `${version}: ${kind} has "${key}"`);
  }
}

const ROOT = `${PROJECT_ROOT}tests/fixtures/resources`;
const ALL = [...PROTOCOL_VERSIONS].reverse().join(",");

const CALLS: [string, Record<string, unknown>][] = [
  ["list_directory", { path: "." }],
  ["find_files", { pattern: "**/*" }],
  ["read_file", { path: "README.md" }],
  ["read_file", { path: "pixel.png" }],
  ["search_text", { query: "e" }],
  ["file_info", { path: "README.md" }],
];

/** Run one session that asks for `version`; the responses by id. */
async function session(
  version: string,
  args: string[],
  target: (typeof TARGETS)[number] = "source",
): Promise<Map<number, Record<string, unknown>>> {
  const lines = [
    {
      method: "initialize",
      params: {
        protocolVersion: version,
        capabilities: {},
        clientInfo: { name: "versions", version: "1" },
      },
    },
    { method: "tools/list" },
    { method: "resources/list" },
    { method: "resources/templates/list" },
    ...CALLS.map(([name, args]) => ({
      method: "tools/call",
      params: { name, arguments: args },
    })),
  ].map((message, id) => JSON.stringify({ jsonrpc: "2.0", id, ...message }));
  lines.splice(1, 0, '{"jsonrpc":"2.0","method":"notifications/initialized"}');
  const run = await runServer(
    new TextEncoder().encode(lines.join("\n") + "\n"),
    args,
    target,
  );
  assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
  const responses = new Map<number, Record<string, unknown>>();
  for (const line of new TextDecoder().decode(run.stdout).split("\n")) {
    if (line === "") continue;
    const message = JSON.parse(line);
    responses.set(message.id, message);
  }
  return responses;
}

// deno-lint-ignore no-explicit-any
type Loose = any;

for (const version of PROTOCOL_VERSIONS) {
  Deno.test(`protocol ${version}: negotiated, and every answer has only the fields ${version} defines`, async () => {
    const responses = await session(version, [
      "--root",
      ROOT,
      "--protocol-versions",
      ALL,
    ]);
    assert.equal(responses.size, 4 + CALLS.length);
    for (const [id, response] of responses) {
      assert.equal(
        response.error,
        undefined,
        `id ${id}: ${JSON.stringify(response.error)}`,
      );
    }
    const init = responses.get(0)!.result as Loose;
    assert.equal(init.protocolVersion, version);
    checkKeys(version, "serverInfo", init.serverInfo);

    const tools = (responses.get(1)!.result as Loose).tools as Loose[];
    assert.ok(tools.length > 0);
    for (const tool of tools) checkKeys(version, "tool", tool);
    // The trimming is real: what a version defines is still sent.
    if (version >= "2025-03-26") assert.ok(tools.some((t) => t.annotations));
    if (version >= "2025-06-18") {
      assert.ok(tools.some((t) => t.title && t.outputSchema));
    }

    const resources = (responses.get(2)!.result as Loose).resources;
    assert.ok(resources.length > 0);
    for (const resource of resources) checkKeys(version, "resource", resource);
    const templates = (responses.get(3)!.result as Loose).resourceTemplates;
    assert.ok(templates.length > 0);
    for (const template of templates) checkKeys(version, "template", template);
    if (version >= "2025-06-18") assert.ok(templates[0].title);

    const contentTypes = allowed(version, "content");
    let structured = 0;
    for (let i = 0; i < CALLS.length; i++) {
      const result = responses.get(4 + i)!.result as Loose;
      checkKeys(version, "result", result);
      assert.ok(result.content.length > 0, `${CALLS[i][0]}: empty content`);
      for (const block of result.content) {
        assert.ok(
          contentTypes.has(block.type),
          `${version}: ${CALLS[i][0]} sent a "${block.type}" block`,
        );
        checkKeys(version, "block", block);
      }
      if (result.structuredContent !== undefined) structured++;
    }
    if (version >= "2025-06-18") assert.ok(structured > 0);
  });
}

for (const t of TARGETS) {
  const status = targetStatus(t);
  Deno.test({
    name:
      `protocol [${t}] default: only ${DEFAULTS.protocolVersions}, whatever the client asks`,
    ignore: !status.available,
    async fn() {
      for (const version of PROTOCOL_VERSIONS) {
        const responses = await session(version, ["--root", ROOT], t);
        const init = responses.get(0)!.result as Loose;
        assert.equal(init.protocolVersion, "2025-06-18");
      }
    },
  });
}

Deno.test("a client asking for a version not enabled is told, on stderr at info, how to enable it", async () => {
  const ask = (version: string, name: string) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: version,
        capabilities: {},
        clientInfo: { name, version: "4.3.19" },
      },
    }) + "\n";
  const run = await runServer(
    new TextEncoder().encode(ask("2024-11-05", "ai\nforged line")),
    ["--log-level", "info", "--root", PROJECT_ROOT],
    "source",
  );
  const stderr = new TextDecoder().decode(run.stderr);
  assert.match(
    stderr,
    /client "ai\\nforged line" "4\.3\.19" asked for protocol version "2024-11-05"; this server serves 2025-06-18 and offered 2025-06-18\. To serve it too, start the server with --protocol-versions 2024-11-05,2025-06-18\.\n/,
  );
  const quiet = await runServer(
    new TextEncoder().encode(ask("2024-11-05", "ai")),
    ["--root", PROJECT_ROOT],
    "source",
  );
  assert.equal(new TextDecoder().decode(quiet.stderr), "", "below info, quiet");
  const unknown = await runServer(
    new TextEncoder().encode(ask("2099-01-01", "ai")),
    ["--log-level", "info", "--root", PROJECT_ROOT],
    "source",
  );
  assert.match(
    new TextDecoder().decode(unknown.stderr),
    /asked for protocol version "2099-01-01"; .* This server does not know that version\./,
  );
});
