/**
 * A stand-in for the Anthropic Messages API (`POST /v1/messages`), played
 * by a {@linkcode Script}: it reads the tools a request offers and the
 * `tool_result` blocks it carries, and answers with the script's next step,
 * streamed as server-sent events when the request asks for a stream.
 *
 * Other requests a client makes on the way (`/v1/messages/count_tokens`,
 * a model lookup) get a plausible answer, so the client goes on.
 *
 * @module
 */

import type { Script, Step } from "./script.ts";
import { sse } from "./stand_in.ts";

/** A tool result as the request carries it, reduced to what the model reads. */
export interface ToolResult {
  /** The `tool_use_id` it answers. */
  id: string;
  /** Its text: the string content, or its text blocks joined by "\n". */
  text: string;
  /** Its `is_error` flag, when the block has one. */
  isError?: boolean;
}

/** The model name the stand-in answers as, when the request names none. */
export const STAND_IN_MODEL = "claude-stand-in";

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The names of the tools a Messages request offers its model. */
export function offeredTools(request: Json): string[] {
  const tools = Array.isArray(request.tools) ? request.tools : [];
  return tools.flatMap((tool) =>
    isObject(tool) && typeof tool.name === "string" ? [tool.name] : []
  );
}

/** The text a `tool_result` block's content gives the model. */
export function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.flatMap((block) =>
    isObject(block) && block.type === "text" && typeof block.text === "string"
      ? [block.text]
      : []
  ).join("\n");
}

/** Every `tool_result` block in a Messages request's messages, in order. */
export function toolResults(request: Json): ToolResult[] {
  const messages = Array.isArray(request.messages) ? request.messages : [];
  const results: ToolResult[] = [];
  for (const message of messages) {
    if (!isObject(message) || !Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (!isObject(block) || block.type !== "tool_result") continue;
      results.push({
        id: String(block.tool_use_id),
        text: resultText(block.content),
        isError: typeof block.is_error === "boolean"
          ? block.is_error
          : undefined,
      });
    }
  }
  return results;
}

/** The content block of the assistant's answer for `step`. */
function contentBlock(step: Step): Json {
  return step.kind === "call"
    ? { type: "tool_use", id: step.id, name: step.name, input: step.args }
    : { type: "text", text: step.text };
}

/** A Messages API answer for `step`, as one JSON message. */
export function messageOf(step: Step, model: string, id: string): Json {
  return {
    id,
    type: "message",
    role: "assistant",
    model,
    content: [contentBlock(step)],
    stop_reason: step.kind === "call" ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
}

/** The same answer as the stream of events `stream: true` asks for. */
export function streamOf(
  step: Step,
  model: string,
  id: string,
): [string, Json][] {
  const start = step.kind === "call"
    ? { type: "tool_use", id: step.id, name: step.name, input: {} }
    : { type: "text", text: "" };
  const delta = step.kind === "call"
    ? { type: "input_json_delta", partial_json: JSON.stringify(step.args) }
    : { type: "text_delta", text: step.text };
  return [
    ["message_start", {
      type: "message_start",
      message: {
        ...messageOf(step, model, id),
        content: [],
        stop_reason: null,
        usage: { input_tokens: 1, output_tokens: 0 },
      },
    }],
    ["content_block_start", {
      type: "content_block_start",
      index: 0,
      content_block: start,
    }],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta }],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    ["message_delta", {
      type: "message_delta",
      delta: {
        stop_reason: step.kind === "call" ? "tool_use" : "end_turn",
        stop_sequence: null,
      },
      usage: { output_tokens: 1 },
    }],
    ["message_stop", { type: "message_stop" }],
  ];
}

function json(value: unknown, status = 200): Response {
  return Response.json(value, { status });
}

/**
 * A stand-in handler (for `serveStandIn`) that answers Messages requests
 * from `script`: each `POST …/v1/messages` is one step of the script.
 */
export function anthropicHandler(
  script: Script,
): (request: Request, body: string) => Response {
  let messages = 0;
  return (request, body) => {
    const path = new URL(request.url).pathname;
    if (request.method !== "POST") {
      // Model lookups and connectivity probes: an empty, valid answer.
      return path.endsWith("/models")
        ? json({ data: [], has_more: false, first_id: null, last_id: null })
        : json({});
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return json({
        type: "error",
        error: { type: "invalid_request_error", message: "body is not JSON" },
      }, 400);
    }
    const payload = isObject(parsed) ? parsed : {};
    if (path.endsWith("/count_tokens")) {
      return json({ input_tokens: Math.ceil(body.length / 4) });
    }
    if (!path.endsWith("/v1/messages")) {
      return json({
        type: "error",
        error: { type: "not_found_error", message: `no ${path} here` },
      }, 404);
    }
    const step = script.step(offeredTools(payload), toolResults(payload));
    const model = typeof payload.model === "string"
      ? payload.model
      : STAND_IN_MODEL;
    const id = `msg_stand_in_${++messages}`;
    return payload.stream === true
      ? sse(streamOf(step, model, id))
      : json(messageOf(step, model, id));
  };
}
