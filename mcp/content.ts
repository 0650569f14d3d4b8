/**
 * Builders for tool-result content blocks and results, in the shapes and
 * key orders the MCP specification gives them.
 *
 * @module
 */

import type { JsonObject } from "./jsonrpc.ts";
import type { ContentBlock, ToolResult } from "./tool.ts";

/** A text block. */
export function textContent(text: string): ContentBlock {
  return { type: "text", text };
}

/** An image block: base64 data and its MIME type. */
export function imageContent(data: string, mimeType: string): ContentBlock {
  return { type: "image", data, mimeType };
}

/** An audio block: base64 data and its MIME type. */
export function audioContent(data: string, mimeType: string): ContentBlock {
  return { type: "audio", data, mimeType };
}

/** A link to a resource the client may read with `resources/read`. */
export function resourceLink(
  link: {
    uri: string;
    name: string;
    title?: string;
    description?: string;
    mimeType?: string;
    size?: number;
  },
): ContentBlock {
  const block: ContentBlock = { type: "resource_link", uri: link.uri };
  block.name = link.name;
  if (link.title !== undefined) block.title = link.title;
  if (link.description !== undefined) block.description = link.description;
  if (link.mimeType !== undefined) block.mimeType = link.mimeType;
  if (link.size !== undefined) block.size = link.size;
  return block;
}

/** A successful result with structured data, also given as JSON text. */
export function structuredResult(
  data: JsonObject,
  extra: ContentBlock[] = [],
): ToolResult {
  return {
    content: [...extra, textContent(JSON.stringify(data))],
    structuredContent: data,
  };
}

/**
 * A tool execution error: the message tells the model what to do. The
 * text starts with "Error: ", since several clients hand their model the
 * text without the `isError` flag (Codex CLI, the AI SDK, mcp-use).
 */
export function toolError(message: string): ToolResult {
  return { content: [textContent(`Error: ${message}`)], isError: true };
}
