/**
 * A stand-in for the Gemini API (`generativelanguage.googleapis.com`, the
 * `v1beta` REST surface Gemini CLI speaks through `@google/genai`): turns
 * `generateContent` and `streamGenerateContent` requests into
 * {@linkcode Script} turns and the script's steps back into
 * `GenerateContentResponse`s.
 *
 * What the model reads of a tool result, on this API, is the
 * `functionResponse.response` object of the part the CLI sends back (the
 * API carries it as a JSON object, not as text): its JSON is recorded as
 * the reading. The API has no error flag; a response object may hold its
 * answer under `output` or `error` (the API's documented convention), and
 * the reading records which as `isError` (true for `error`, false for
 * `output`, undefined for any other shape).
 *
 * Requests the agent makes for itself (those asking for JSON: a model
 * router, a next-speaker check, loop detection; those offering no tools:
 * a summary, a title) get an answer of their own (JSON shaped by the
 * requested schema, or a short text) and never advance the script.
 *
 * @module
 */

import type { Script, Step } from "./script.ts";
import { sse } from "./stand_in.ts";

/** A part of a Gemini `Content`, as far as the stand-in reads it. */
interface Part {
  text?: string;
  functionCall?: { id?: string; name?: string; args?: unknown };
  functionResponse?: { id?: string; name?: string; response?: unknown };
}

/** A `GenerateContentRequest`, as far as the stand-in reads it. */
interface GenerateContentRequest {
  contents?: { role?: string; parts?: Part[] }[];
  tools?: {
    functionDeclarations?: {
      name?: string;
      parameters?: unknown;
      parametersJsonSchema?: unknown;
    }[];
  }[];
  generationConfig?: {
    responseMimeType?: string;
    responseSchema?: unknown;
    responseJsonSchema?: unknown;
  };
}

/** The property Gemini CLI adds to every tool's schema. */
export const WAIT_FOR_PREVIOUS = "wait_for_previous";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A JSON value that satisfies `schema` (a JSON Schema, or the API's own
 * `Schema` with upper-case types): the first enum value, the first
 * alternative, every property filled in, empty strings, zeros, false.
 */
export function valueFor(schema: unknown, depth = 0): unknown {
  if (!isRecord(schema) || depth > 16) return null;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    return schema.enum[0];
  }
  if ("const" in schema) return schema.const;
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) {
      return valueFor(options[0], depth + 1);
    }
  }
  let type = schema.type;
  if (Array.isArray(type)) type = type.find((t) => t !== "null") ?? type[0];
  switch (typeof type === "string" ? type.toLowerCase() : "object") {
    case "string":
      return "";
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 0;
    case "integer":
      // Scores and counts start at 1 (Gemini CLI's router wants 1-100 and
      // says so only in words).
      return typeof schema.minimum === "number" ? schema.minimum : 1;
    case "boolean":
      return false;
    case "array": {
      const count = typeof schema.minItems === "number" ? schema.minItems : 0;
      return Array.from(
        { length: count },
        () => valueFor(schema.items, depth + 1),
      );
    }
    case "null":
      return null;
    default: {
      const object: Record<string, unknown> = {};
      if (isRecord(schema.properties)) {
        for (const [name, property] of Object.entries(schema.properties)) {
          object[name] = valueFor(property, depth + 1);
        }
      }
      return object;
    }
  }
}

/** The reading's error mark for a `functionResponse.response` object. */
function errorMark(response: unknown): boolean | undefined {
  if (!isRecord(response)) return undefined;
  if ("error" in response) return true;
  if ("output" in response) return false;
  return undefined;
}

/**
 * The handler of a Gemini API stand-in over `script`, for `serveStandIn`
 * (`stand_in.ts`). Tool calls carry `wait_for_previous: true`
 * where the offered declaration has that property, as Gemini CLI's system
 * prompt tells its model to set it on a call that depends on the one
 * before.
 */
export function geminiHandler(
  script: Script,
): (request: Request, body: string) => Response {
  // The script's call ids, in the order issued, with the name each was
  // called by. A result comes back under the id itself (Gemini CLI 0.61
  // does so), or under `<name>__<id>` (its id inside), or, with no id, is
  // matched by name and order in the conversation.
  const issued: { id: string; name: string }[] = [];
  let responses = 0;

  function idOf(
    part: NonNullable<Part["functionResponse"]>,
    seen: Map<string, number>,
  ): string | undefined {
    const name = part.name ?? "";
    const nth = seen.get(name) ?? 0;
    seen.set(name, nth + 1);
    const id = part.id;
    if (typeof id === "string" && id !== "") {
      return issued.find((call) =>
        id === call.id || id.endsWith(`__${call.id}`)
      )?.id;
    }
    return issued.filter((call) => call.name === name)[nth]?.id;
  }

  function answer(parts: Part[], model: string, stream: boolean): Response {
    const chunk = {
      candidates: [{
        content: { role: "model", parts },
        finishReason: "STOP",
        index: 0,
      }],
      usageMetadata: {
        promptTokenCount: 100,
        candidatesTokenCount: 10,
        totalTokenCount: 110,
      },
      modelVersion: model,
      responseId: `stand-in-${++responses}`,
    };
    return stream ? sse([[undefined, chunk]]) : Response.json(chunk);
  }

  return (request, body) => {
    const url = new URL(request.url);
    const match = /\/models\/([^/:]+):([A-Za-z]+)$/.exec(url.pathname);
    if (request.method !== "POST" || match === null) {
      script.log.push(`unanswered ${request.method} ${url.pathname}`);
      return Response.json(
        { error: { code: 404, message: "not found", status: "NOT_FOUND" } },
        { status: 404 },
      );
    }
    const [, model, method] = match;
    const parsed: unknown = body === "" ? {} : JSON.parse(body);
    const req: GenerateContentRequest = isRecord(parsed) ? parsed : {};
    if (method === "countTokens") {
      return Response.json({ totalTokens: Math.ceil(body.length / 4) });
    }
    if (method !== "generateContent" && method !== "streamGenerateContent") {
      script.log.push(`unanswered ${method}`);
      return Response.json(
        { error: { code: 404, message: "not found", status: "NOT_FOUND" } },
        { status: 404 },
      );
    }
    const stream = method === "streamGenerateContent";
    const config = req.generationConfig ?? {};
    const schema = config.responseJsonSchema ?? config.responseSchema;
    if (
      schema !== undefined || config.responseMimeType === "application/json"
    ) {
      // The agent asking itself something (a router, a next-speaker
      // check, loop detection): a value of the shape it asked for.
      const json = JSON.stringify(valueFor(schema ?? { type: "object" }));
      script.log.push(`json ${model} ${json}`);
      return answer([{ text: json }], model, stream);
    }
    const declarations = (req.tools ?? []).flatMap((tool) =>
      tool.functionDeclarations ?? []
    );
    if (declarations.length === 0) {
      script.log.push(`text ${model} (no tools)`);
      return answer([{ text: "OK." }], model, stream);
    }
    // Gemini CLI has built-in tools named like the server's (`read_file`,
    // `list_directory`) and shows the server's as `mcp_<server>_<tool>`:
    // the model is to call the server's, so those are matched first.
    const names = declarations.flatMap((d) =>
      typeof d.name === "string" ? [d.name] : []
    );
    const offered = [
      ...names.filter((name) => name.startsWith("mcp_")),
      ...names.filter((name) => !name.startsWith("mcp_")),
    ];
    const seen = new Map<string, number>();
    const results: { id: string; text: string; isError?: boolean }[] = [];
    for (const content of req.contents ?? []) {
      for (const part of content.parts ?? []) {
        const response = part.functionResponse;
        if (response === undefined) continue;
        const id = idOf(response, seen);
        if (id === undefined) continue;
        results.push({
          id,
          text: JSON.stringify(response.response),
          isError: errorMark(response.response),
        });
      }
    }
    const step: Step = script.step(offered, results);
    if (step.kind === "text") {
      return answer([{ text: step.text }], model, stream);
    }
    issued.push({ id: step.id, name: step.name });
    const declaration = declarations.find((d) => d.name === step.name);
    const parameters = declaration?.parametersJsonSchema ??
      declaration?.parameters;
    const args = isRecord(parameters) && isRecord(parameters.properties) &&
        WAIT_FOR_PREVIOUS in parameters.properties
      ? { ...step.args, [WAIT_FOR_PREVIOUS]: true }
      : step.args;
    return answer(
      [{ functionCall: { id: step.id, name: step.name, args } }],
      model,
      stream,
    );
  };
}
