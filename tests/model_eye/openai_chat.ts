/**
 * A stand-in for the OpenAI Chat Completions API (`POST …/chat/completions`,
 * streaming or not, and `GET …/models`), as OpenAI-compatible agent CLIs
 * (Qwen Code, opencode, Copilot CLI's custom provider) call it. The tools
 * offered are `tools[].function.name`; a tool result is a `role: "tool"`
 * message, whose content (a string, or text parts joined by "\n") is what
 * the model reads. The API has no error flag.
 *
 * @module
 */

import type { SessionOptions, SessionOutcome } from "./agents.ts";
import type { Script, Step } from "./script.ts";
import { cliOutcome, serveStandIn, sse } from "./stand_in.ts";

/** The model id the stand-in answers as, and lists under `/models`. */
export const CHAT_MODEL = "stand-in-model";

interface ChatRequest {
  model?: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: { type?: string; function?: { name?: string } }[];
  messages?: {
    role?: string;
    tool_call_id?: string;
    content?: unknown;
  }[];
}

/** The text of a message's `content`: a string, or its text parts. */
export function chatContentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) =>
    typeof part === "string"
      ? part
      : typeof part?.text === "string"
      ? part.text
      : ""
  ).join("\n");
}

const USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

/**
 * A handler for {@linkcode serveStandIn} that answers Chat Completions
 * requests from `script`. Any path ending in `/chat/completions` is the
 * API; any ending in `/models` lists {@linkcode CHAT_MODEL}.
 */
export function openAiChatHandler(
  script: Script,
): (request: Request, body: string) => Response {
  let completions = 0;
  return (request, body) => {
    const path = new URL(request.url).pathname.replace(/\/+$/, "");
    if (request.method === "GET" && path.endsWith("/models")) {
      return Response.json({
        object: "list",
        data: [{
          id: CHAT_MODEL,
          object: "model",
          created: 0,
          owned_by: "stand-in",
        }],
      });
    }
    if (request.method !== "POST" || !path.endsWith("/chat/completions")) {
      return Response.json({
        error: { message: `no ${request.method} ${path} here`, type: "none" },
      }, { status: 404 });
    }
    const chat = JSON.parse(body) as ChatRequest;
    const offered = (chat.tools ?? []).flatMap((tool) =>
      typeof tool.function?.name === "string" ? [tool.function.name] : []
    );
    const results = (chat.messages ?? []).flatMap((message) =>
      message.role === "tool" && typeof message.tool_call_id === "string"
        ? [{ id: message.tool_call_id, text: chatContentText(message.content) }]
        : []
    );
    const step = script.step(offered, results);
    const id = `chatcmpl-${++completions}`;
    const model = chat.model ?? CHAT_MODEL;
    return chat.stream === true
      ? streamed(step, id, model, chat.stream_options?.include_usage === true)
      : Response.json(whole(step, id, model));
  };
}

function toolCall(step: Extract<Step, { kind: "call" }>) {
  return {
    id: step.id,
    type: "function",
    function: { name: step.name, arguments: JSON.stringify(step.args) },
  };
}

function whole(step: Step, id: string, model: string) {
  const message = step.kind === "call"
    ? { role: "assistant", content: null, tool_calls: [toolCall(step)] }
    : { role: "assistant", content: step.text };
  return {
    id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{
      index: 0,
      message,
      finish_reason: step.kind === "call" ? "tool_calls" : "stop",
    }],
    usage: USAGE,
  };
}

function streamed(
  step: Step,
  id: string,
  model: string,
  usage: boolean,
): Response {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (
    delta: Record<string, unknown>,
    finish: string | null,
  ): [undefined, unknown] => [undefined, {
    id,
    object: "chat.completion.chunk",
    created,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  }];
  const events: [undefined, unknown][] = [
    chunk({ role: "assistant", content: "" }, null),
  ];
  if (step.kind === "call") {
    events.push(
      chunk({
        tool_calls: [{
          index: 0,
          id: step.id,
          type: "function",
          function: { name: step.name, arguments: "" },
        }],
      }, null),
      chunk({
        tool_calls: [{
          index: 0,
          function: { arguments: JSON.stringify(step.args) },
        }],
      }, null),
      chunk({}, "tool_calls"),
    );
  } else {
    events.push(chunk({ content: step.text }, null), chunk({}, "stop"));
  }
  if (usage) {
    events.push([undefined, {
      id,
      object: "chat.completion.chunk",
      created,
      model,
      choices: [],
      usage: USAGE,
    }]);
  }
  events.push([undefined, "[DONE]"]);
  return sse(events);
}

/** The process a Chat Completions agent CLI runs as, for one session. */
export interface ChatCommand {
  /** The program. */
  command: string;
  /** Its arguments. */
  args: string[];
  /** Its whole environment (nothing else is inherited). */
  env: Record<string, string>;
  /** Its working directory. */
  cwd: string;
}

/**
 * Run one session of a Chat Completions agent CLI: serve the stand-in over
 * `options.script`, start the CLI that `command` builds for the stand-in's
 * base URL (e.g. `http://127.0.0.1:PORT/v1`), and wait for it to exit, or
 * kill it after `options.timeoutMs`. stdin is closed.
 */
export async function chatSession(
  options: SessionOptions,
  command: (baseUrl: string) => ChatCommand | Promise<ChatCommand>,
): Promise<SessionOutcome> {
  const standIn = serveStandIn(openAiChatHandler(options.script));
  try {
    const run = await command(`${standIn.url}/v1`);
    const child = new Deno.Command(run.command, {
      args: run.args,
      env: run.env,
      clearEnv: true,
      cwd: run.cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    return await cliOutcome(
      child,
      standIn,
      options.script.readings,
      options.timeoutMs,
    );
  } finally {
    await standIn.close();
  }
}
