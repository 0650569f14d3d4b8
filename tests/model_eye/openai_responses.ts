/**
 * A stand-in for the OpenAI Responses API (`POST /responses`, streamed), as
 * Codex CLI speaks it: the request's `tools` give the offered tool names,
 * its `function_call_output` items the tool results, and the answer is
 * the event stream of one response holding a `function_call` or a
 * `message`.
 *
 * Codex 0.171.0 offers a server's MCP tools as the function tools of a
 * `namespace` tool (`{"type":"namespace","name":"mcp__shipcode","tools":
 * [{"type":"function","name":"read_file",…}]}`), which the model calls
 * with `"namespace":"mcp__shipcode","name":"read_file"`; the script knows
 * such a tool as `mcp__shipcode.read_file`. A tool result comes back as
 * `output`, a string or a list of `input_text` parts; the API has no
 * error flag, so readings have `isError` undefined.
 *
 * @module
 */

import type { Script, Step } from "./script.ts";
import { sse } from "./stand_in.ts";

/** A tool result as a Responses request carries it. */
export interface FunctionCallOutput {
  /** The `call_id` of the call it answers. */
  callId: string;
  /** The text the model reads: a string, or text parts joined by "\n". */
  text: string;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The names of the tools a request offers the model: each function tool's
 * `name`, and for a `namespace` tool each member's name after the
 * namespace's and a ".".
 */
export function offeredTools(tools: unknown): string[] {
  if (!Array.isArray(tools)) return [];
  const names: string[] = [];
  for (const tool of tools) {
    if (!isObject(tool)) continue;
    if (tool.type === "namespace" && Array.isArray(tool.tools)) {
      for (const member of offeredTools(tool.tools)) {
        names.push(`${tool.name}.${member}`);
      }
    } else if (typeof tool.name === "string") {
      names.push(tool.name);
    }
  }
  return names;
}

/**
 * The text of a `function_call_output`'s `output`: the string itself, or
 * the `text` of each text part (`input_text`, `output_text`) joined by
 * "\n"; any other part as its JSON, so nothing handed over goes unseen.
 */
export function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  if (!Array.isArray(output)) return JSON.stringify(output);
  return output.map((part) =>
    isObject(part) && typeof part.text === "string"
      ? part.text
      : JSON.stringify(part)
  ).join("\n");
}

/**
 * The tool results among a request's `input` items: each
 * `function_call_output` (and any other `…_call_output`) by its `call_id`.
 */
export function functionCallOutputs(input: unknown): FunctionCallOutput[] {
  if (!Array.isArray(input)) return [];
  return input.filter((item): item is Json =>
    isObject(item) && typeof item.call_id === "string" &&
    typeof item.type === "string" && item.type.endsWith("_call_output")
  ).map((item) => ({
    callId: item.call_id as string,
    text: outputText(item.output),
  }));
}

let responses = 0;

/**
 * The event stream of one response carrying `step`: a `function_call`
 * item (a name `NAMESPACE.NAME`, see {@linkcode offeredTools}, is called
 * with its `namespace`), or an assistant `message` with the text.
 */
export function responseEvents(
  step: Step,
  model: string,
): [string, unknown][] {
  const id = `resp_${++responses}`;
  const created_at = Math.floor(Date.now() / 1000);
  const base = { id, object: "response", created_at, model };
  let item: Json;
  if (step.kind === "call") {
    const dot = step.name.lastIndexOf(".");
    item = {
      type: "function_call",
      id: `fc_${responses}`,
      status: "completed",
      call_id: step.id,
      ...(dot < 0 ? { name: step.name } : {
        namespace: step.name.slice(0, dot),
        name: step.name.slice(dot + 1),
      }),
      arguments: JSON.stringify(step.args),
    };
  } else {
    item = {
      type: "message",
      id: `msg_${responses}`,
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: step.text, annotations: [] }],
    };
  }
  const usage = {
    input_tokens: 100,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 10,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 110,
  };
  const events: [string, unknown][] = [
    ["response.created", {
      type: "response.created",
      response: { ...base, status: "in_progress", output: [] },
    }],
    ["response.output_item.added", {
      type: "response.output_item.added",
      output_index: 0,
      item: { ...item, status: "in_progress" },
    }],
  ];
  if (step.kind === "text") {
    events.push(["response.output_text.delta", {
      type: "response.output_text.delta",
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      delta: step.text,
    }]);
  }
  events.push(
    ["response.output_item.done", {
      type: "response.output_item.done",
      output_index: 0,
      item,
    }],
    ["response.completed", {
      type: "response.completed",
      response: { ...base, status: "completed", output: [item], usage },
    }],
  );
  return events;
}

/**
 * The stand-in's handler over `script`: `POST …/responses` steps the
 * script; `GET …/models` lists no models (the CLI keeps its own); anything
 * else is answered `{}`, so a CLI's side requests do not stop it.
 */
export function responsesHandler(
  script: Script,
): (request: Request, body: string) => Response {
  return (request, body) => {
    const path = new URL(request.url).pathname;
    if (request.method === "POST" && path.endsWith("/responses")) {
      const parsed: unknown = JSON.parse(body);
      const json = isObject(parsed) ? parsed : {};
      const step = script.step(
        offeredTools(json.tools),
        functionCallOutputs(json.input).map(({ callId, text }) => ({
          id: callId,
          text,
        })),
      );
      const model = typeof json.model === "string" ? json.model : "stand-in";
      return sse(responseEvents(step, model));
    }
    if (request.method === "GET" && path.endsWith("/models")) {
      return Response.json({ object: "list", data: [], models: [] });
    }
    return Response.json({});
  };
}
