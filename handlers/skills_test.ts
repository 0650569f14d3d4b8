import { strict as assert } from "node:assert";
import type { JsonObject } from "../mcp/jsonrpc.ts";
import { serveSkills, SkillSet } from "../mcp/ext_skills.ts";
import { McpServer } from "../mcp/server.ts";
import { Session } from "../mcp/session.ts";
import { handlers, skillHandlers } from "./mod.ts";

const V = "2026-07-28";

function fixture() {
  const server = new McpServer({
    handlers: { ...handlers, ...skillHandlers },
    info: { name: "t", version: "1" },
    protocolVersions: [V, "2025-11-25"],
    pageSize: 1,
  });
  serveSkills(
    server,
    new SkillSet(["one", "two", "three"].map((name) => ({
      path: `acme/${name}`,
      frontmatter: { name, description: `Skill ${name}.` },
      body: "Body\n",
      files: [{ path: "docs/a.md", content: name }],
    }))),
  );
  const session = new Session(() => {});
  let id = 0;
  const call = async (method: string, params: JsonObject) =>
    await server.handle({
      jsonrpc: "2.0",
      id: ++id,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": V,
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }, session) as JsonObject;
  return call;
}

Deno.test("skills handlers: skills/list pages through every skill once, with caching hints", async () => {
  const call = fixture();
  const uris: string[] = [];
  let cursor: unknown;
  for (let page = 0; page < 10; page++) {
    const result = (await call(
      "skills/list",
      cursor === undefined ? {} : { cursor },
    )).result as JsonObject;
    assert.equal(result.ttlMs, 300_000);
    assert.equal(result.cacheScope, "public");
    uris.push(...(result.skills as JsonObject[]).map((s) => String(s.uri)));
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  assert.deepEqual(uris, [
    "skill://acme/one/SKILL.md",
    "skill://acme/two/SKILL.md",
    "skill://acme/three/SKILL.md",
  ]);
});

Deno.test("skills handlers: skills/get returns one entry without a cursor; an unknown URI is -32602", async () => {
  const call = fixture();
  const got = (await call("skills/get", { uri: "skill://acme/two/SKILL.md" }))
    .result as JsonObject;
  const skill = got.skill as JsonObject;
  assert.equal(skill.uri, "skill://acme/two/SKILL.md");
  assert.equal((skill.frontmatter as JsonObject).name, "two");
  assert.equal((skill.resources as unknown[]).length, 2);
  assert.equal(got.nextCursor, undefined);
  for (const uri of ["skill://acme/four/SKILL.md", "skill://acme/two", 7]) {
    const answer = await call("skills/get", { uri });
    assert.equal((answer.error as JsonObject).code, -32602, String(uri));
  }
});

Deno.test("skills handlers: resources/directory/read pages a directory's children; a file is -32602", async () => {
  const call = fixture();
  const first = (await call("resources/directory/read", {
    uri: "skill://acme/one",
  })).result as JsonObject;
  assert.deepEqual(
    (first.resources as JsonObject[]).map((r) => r.uri),
    ["skill://acme/one/SKILL.md"],
  );
  const second = (await call("resources/directory/read", {
    uri: "skill://acme/one",
    cursor: first.nextCursor,
  })).result as JsonObject;
  assert.deepEqual(second.resources, [{
    uri: "skill://acme/one/docs",
    name: "docs",
    mimeType: "inode/directory",
  }]);
  assert.equal(second.nextCursor, undefined);
  const file = await call("resources/directory/read", {
    uri: "skill://acme/one/SKILL.md",
  });
  assert.equal((file.error as JsonObject).code, -32602);
});
