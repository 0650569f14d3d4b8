/**
 * The MCP protocol versions this library can speak, and the output each one
 * defines: results are written for the newest version and trimmed here to
 * what the session's negotiated version knows, so a client of an older
 * version never meets a field or content type its schema lacks.
 *
 * What each version adds (from the specification's `schema.ts` files):
 * - 2025-03-26: tool `annotations`, `audio` content, `completions`.
 * - 2025-06-18: `title` on tools, resources, templates and `serverInfo`;
 *   `outputSchema`, `structuredContent`, `resource_link` content, `_meta`
 *   on definitions and content, `lastModified` in annotations.
 * - 2025-11-25: `icons` (on `serverInfo`, tools, prompts, resources and
 *   templates), `websiteUrl` and `description` on `serverInfo`, tool
 *   `execution`.
 *
 * @module
 */

import { isObject, type JsonObject } from "./jsonrpc.ts";

/** Every protocol version this library can speak, oldest first. */
export const PROTOCOL_VERSIONS: readonly string[] = [
  "2024-11-05",
  "2025-03-26",
  "2025-06-18",
  "2025-11-25",
];

/**
 * The stateless protocol versions this library can speak, oldest first:
 * no `initialize` handshake, every request names its version in `_meta`
 * (see `era_2026.ts`). A server offers them only when configured to.
 */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = ["2026-07-28"];

/**
 * Whether `version` is one of {@linkcode PROTOCOL_VERSIONS} or
 * {@linkcode MODERN_PROTOCOL_VERSIONS}.
 */
export function isProtocolVersion(version: string): boolean {
  return PROTOCOL_VERSIONS.includes(version) || isModernVersion(version);
}

/**
 * Whether `version` is a stateless one (2026-07-28 and later), served
 * without the `initialize` handshake.
 */
export function isModernVersion(version: string): boolean {
  return MODERN_PROTOCOL_VERSIONS.includes(version);
}

/**
 * Whether a session of `version` may send JSON-RPC batches: 2025-03-26
 * added them and 2025-06-18 removed them again.
 */
export function allowsBatches(version: string | undefined): boolean {
  return version === "2025-03-26";
}

// Dates compare as strings. A version not known here (undefined before
// initialize) gets the newest output.
function before(version: string | undefined, since: string): boolean {
  return version !== undefined && version < since;
}

// A copy of `object` without `keys`; the same object when none is present,
// so output for the newest version costs no copy.
function without<T extends object>(object: T, keys: readonly string[]): T {
  if (!keys.some((key) => Object.hasOwn(object, key))) return object;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    if (!keys.includes(key)) copy[key] = value;
  }
  return copy as T;
}

// `annotations` of content and resources: `lastModified` is 2025-06-18's.
function trimAnnotations<T extends object>(
  object: T,
  version: string | undefined,
): T {
  const annotations = (object as Record<string, unknown>).annotations;
  if (!before(version, "2025-06-18") || !isObject(annotations)) return object;
  if (!Object.hasOwn(annotations, "lastModified")) return object;
  return { ...object, annotations: without(annotations, ["lastModified"]) };
}

// Keys of a listed definition (tool, resource, template) that `version`
// does not define.
function definitionKeysNotIn(
  version: string | undefined,
  kind: "tool" | "resource",
): string[] {
  const keys: string[] = [];
  if (before(version, "2025-11-25")) keys.push("icons");
  if (kind === "tool" && before(version, "2025-11-25")) keys.push("execution");
  if (before(version, "2025-06-18")) keys.push("title", "_meta");
  if (kind === "tool" && before(version, "2025-06-18")) {
    keys.push("outputSchema");
  }
  if (kind === "tool" && before(version, "2025-03-26")) {
    keys.push("annotations");
  }
  return keys;
}

/** A `tools/list` entry as `version` defines tools. */
export function toolForVersion<T extends object>(
  tool: T,
  version: string | undefined,
): T {
  return without(tool, definitionKeysNotIn(version, "tool"));
}

/**
 * A `resources/list` entry or a resource template as `version` defines
 * them.
 */
export function resourceForVersion<T extends object>(
  resource: T,
  version: string | undefined,
): T {
  return trimAnnotations(
    without(resource, definitionKeysNotIn(version, "resource")),
    version,
  );
}

/**
 * A `prompts/list` entry as `version` defines prompts: `title` (on the
 * prompt and its arguments) came with 2025-06-18, `icons` with 2025-11-25.
 */
export function promptForVersion<T extends object>(
  prompt: T,
  version: string | undefined,
): T {
  const out = without(prompt, definitionKeysNotIn(version, "resource"));
  const args = (out as Record<string, unknown>).arguments;
  if (!before(version, "2025-06-18") || !Array.isArray(args)) return out;
  return {
    ...out,
    arguments: args.map((argument) =>
      isObject(argument) ? without(argument, ["title"]) : argument
    ),
  };
}

/**
 * A `prompts/get` result as `version` defines it: each message's content
 * trimmed like a tool result's, and a block the version lacks (a
 * `resource_link` before 2025-06-18) turned into one line of text.
 */
export function promptResultForVersion<T extends JsonObject>(
  result: T,
  version: string | undefined,
): T {
  if (!before(version, "2025-06-18") || !Array.isArray(result.messages)) {
    return result;
  }
  const messages = result.messages.map((message) => {
    if (!isObject(message) || !isObject(message.content)) return message;
    const content = contentForVersion(message.content, version) ??
      { type: "text", text: describeDropped(message.content) };
    return content === message.content ? message : { ...message, content };
  });
  return { ...result, messages };
}

/**
 * The server capabilities `initialize` sends at `version`: `extensions`
 * (the extensions a server supports, such as tasks) came with 2026-07-28,
 * whose clients read them from `server/discover`.
 */
export function capabilitiesForVersion<T extends object>(
  capabilities: T,
  version: string | undefined,
): T {
  return before(version, "2026-07-28")
    ? without(capabilities, ["extensions"])
    : capabilities;
}

/** The `serverInfo` of `initialize` as `version` defines it. */
export function serverInfoForVersion<T extends object>(
  info: T,
  version: string | undefined,
): T {
  const keys: string[] = [];
  if (before(version, "2025-11-25")) {
    keys.push("icons", "websiteUrl", "description");
  }
  if (before(version, "2025-06-18")) keys.push("title");
  return without(info, keys);
}

/**
 * A content block of a tool result as `version` defines it, or undefined
 * when the version has no such block (`resource_link` before 2025-06-18,
 * `audio` before 2025-03-26).
 */
export function contentForVersion(
  block: JsonObject,
  version: string | undefined,
): JsonObject | undefined {
  if (block.type === "resource_link" && before(version, "2025-06-18")) {
    return undefined;
  }
  if (block.type === "audio" && before(version, "2025-03-26")) {
    return undefined;
  }
  let out = block;
  if (before(version, "2025-06-18")) {
    out = trimAnnotations(without(out, ["_meta"]), version);
    if (out.type === "resource" && isObject(out.resource)) {
      const inner = without(out.resource, ["_meta"]);
      if (inner !== out.resource) out = { ...out, resource: inner };
    }
  }
  return out;
}

// What a dropped block still tells the model, as one line of text.
function describeDropped(block: JsonObject): string {
  if (block.type === "resource_link") {
    return `${String(block.name ?? block.uri)}: ${String(block.uri)}`;
  }
  return `(${String(block.type)} content omitted: protocol version too old)`;
}

/**
 * A `tools/call` result as `version` defines it: no `structuredContent`
 * before 2025-06-18, and content blocks the version lacks are dropped.
 * When nothing else is left, the dropped blocks become one text block
 * (a list of links, say), so the answer is never empty.
 */
export function callResultForVersion<T extends JsonObject>(
  result: T,
  version: string | undefined,
): T {
  if (!before(version, "2025-06-18")) return result;
  const out = without(result, ["structuredContent"]) as T;
  if (!Array.isArray(result.content)) return out;
  const kept: JsonObject[] = [];
  const dropped: JsonObject[] = [];
  for (const block of result.content) {
    if (!isObject(block)) continue;
    const trimmed = contentForVersion(block, version);
    if (trimmed === undefined) dropped.push(block);
    else kept.push(trimmed);
  }
  if (kept.length === 0 && dropped.length > 0) {
    kept.push({ type: "text", text: dropped.map(describeDropped).join("\n") });
  }
  return { ...out, content: kept };
}
