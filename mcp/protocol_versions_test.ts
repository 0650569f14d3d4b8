import { strict as assert } from "node:assert";
import {
  callResultForVersion,
  capabilitiesForVersion,
  isProtocolVersion,
  promptForVersion,
  PROTOCOL_VERSIONS,
  resourceForVersion,
  serverInfoForVersion,
  toolForVersion,
} from "./protocol_versions.ts";

const TOOL = {
  name: "t",
  title: "T",
  description: "d",
  inputSchema: { type: "object" },
  outputSchema: { type: "object" },
  annotations: { readOnlyHint: true },
};

Deno.test("toolForVersion: each version keeps what it defines, in order", () => {
  assert.deepEqual(Object.keys(toolForVersion(TOOL, "2024-11-05")), [
    "name",
    "description",
    "inputSchema",
  ]);
  assert.deepEqual(Object.keys(toolForVersion(TOOL, "2025-03-26")), [
    "name",
    "description",
    "inputSchema",
    "annotations",
  ]);
  // The newest output is passed through untouched (no copy).
  assert.equal(toolForVersion(TOOL, "2025-06-18"), TOOL);
  assert.equal(toolForVersion(TOOL, "2025-11-25"), TOOL);
  assert.equal(toolForVersion(TOOL, undefined), TOOL);
});

Deno.test("resourceForVersion and serverInfoForVersion drop title before 2025-06-18", () => {
  const resource = {
    uri: "file:///a",
    name: "a",
    title: "A",
    annotations: { priority: 1, lastModified: "2025-01-01T00:00:00Z" },
  };
  assert.deepEqual(resourceForVersion(resource, "2025-03-26"), {
    uri: "file:///a",
    name: "a",
    annotations: { priority: 1 },
  });
  assert.equal(resourceForVersion(resource, "2025-06-18"), resource);
  assert.deepEqual(
    serverInfoForVersion({ name: "s", version: "1", title: "S" }, "2024-11-05"),
    { name: "s", version: "1" },
  );
});

Deno.test("callResultForVersion: no structuredContent or resource_link before 2025-06-18", () => {
  const link = {
    type: "resource_link",
    uri: "file:///r/a.txt",
    name: "a.txt",
  };
  const text = { type: "text", text: "a.txt" };
  const result = {
    content: [link, text],
    structuredContent: { files: ["a.txt"] },
  };
  assert.deepEqual(callResultForVersion(result, "2025-03-26"), {
    content: [text],
  });
  assert.equal(callResultForVersion(result, "2025-06-18"), result);
  // Links alone still say something: one text block naming them.
  assert.deepEqual(
    callResultForVersion({ content: [link] }, "2024-11-05"),
    { content: [{ type: "text", text: "a.txt: file:///r/a.txt" }] },
  );
  const audio = { type: "audio", data: "AAAA", mimeType: "audio/wav" };
  assert.deepEqual(
    callResultForVersion({ content: [audio, text] }, "2024-11-05").content,
    [text],
  );
  assert.deepEqual(
    callResultForVersion({ content: [audio] }, "2025-03-26").content,
    [audio],
  );
});

Deno.test("PROTOCOL_VERSIONS: oldest first, all known", () => {
  assert.deepEqual([...PROTOCOL_VERSIONS].sort(), PROTOCOL_VERSIONS);
  assert.ok(PROTOCOL_VERSIONS.every(isProtocolVersion));
  assert.ok(!isProtocolVersion("2099-01-01"));
});

Deno.test("icons reach only 2025-11-25 sessions: tools, prompts, resources, templates", () => {
  const icons = [{ src: "https://example.com/a.png", mimeType: "image/png" }];
  const tool = { ...TOOL, icons };
  const resource = { uri: "file:///a", name: "a", title: "A", icons };
  const template = { uriTemplate: "file:///{+p}", name: "t", icons };
  const prompt = { name: "p", title: "P", icons };
  assert.deepEqual(toolForVersion(tool, "2025-11-25").icons, icons);
  assert.ok(!("icons" in toolForVersion(tool, "2025-06-18")));
  assert.deepEqual(resourceForVersion(resource, "2025-11-25").icons, icons);
  assert.deepEqual(
    Object.keys(resourceForVersion(resource, "2025-06-18")),
    ["uri", "name", "title"],
  );
  assert.ok(!("icons" in resourceForVersion(template, "2025-06-18")));
  assert.deepEqual(promptForVersion(prompt, "2025-11-25"), prompt);
  assert.deepEqual(promptForVersion(prompt, "2025-06-18"), {
    name: "p",
    title: "P",
  });
  assert.deepEqual(promptForVersion(prompt, "2024-11-05"), { name: "p" });
});

Deno.test("protocol versions: extensions are capabilities of 2026-07-28 only; without them the object is kept", () => {
  const caps = {
    tools: {},
    extensions: { "io.modelcontextprotocol/tasks": {} },
  };
  assert.deepEqual(capabilitiesForVersion(caps, "2025-11-25"), { tools: {} });
  assert.deepEqual(capabilitiesForVersion(caps, "2025-06-18"), { tools: {} });
  assert.equal(capabilitiesForVersion(caps, "2026-07-28"), caps);
  const plain = { tools: {}, resources: {} };
  assert.equal(capabilitiesForVersion(plain, "2025-06-18"), plain);
});
