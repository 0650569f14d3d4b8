/**
 * Content blocks in the shapes and key orders of the MCP 2025-06-18
 * schema (TextContent, ImageContent, AudioContent, ResourceLink), compared
 * as JSON text.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import {
  audioContent,
  imageContent,
  resourceLink,
  structuredResult,
  textContent,
  toolError,
} from "./content.ts";

const json = (value: unknown) => JSON.stringify(value);

Deno.test("content: text, image and audio blocks", () => {
  assert.equal(json(textContent("hi")), '{"type":"text","text":"hi"}');
  assert.equal(
    json(imageContent("iVBO", "image/png")),
    '{"type":"image","data":"iVBO","mimeType":"image/png"}',
  );
  assert.equal(
    json(audioContent("UklG", "audio/wav")),
    '{"type":"audio","data":"UklG","mimeType":"audio/wav"}',
  );
});

Deno.test("content: resource_link with and without its optional fields", () => {
  assert.equal(
    json(resourceLink({ uri: "file:///r/a.ts", name: "a.ts" })),
    '{"type":"resource_link","uri":"file:///r/a.ts","name":"a.ts"}',
  );
  assert.equal(
    json(resourceLink({
      size: 3,
      mimeType: "text/x-typescript",
      description: "line 2",
      title: "A",
      name: "a.ts",
      uri: "file:///r/a.ts",
    })),
    '{"type":"resource_link","uri":"file:///r/a.ts","name":"a.ts","title":"A","description":"line 2","mimeType":"text/x-typescript","size":3}',
  );
});

Deno.test("content: structured results carry the same data as text; errors are isError", () => {
  assert.equal(
    json(structuredResult({ n: 1 })),
    '{"content":[{"type":"text","text":"{\\"n\\":1}"}],"structuredContent":{"n":1}}',
  );
  assert.equal(
    json(toolError("no such file")),
    '{"content":[{"type":"text","text":"Error: no such file"}],"isError":true}',
  );
});
