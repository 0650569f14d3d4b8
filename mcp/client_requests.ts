/**
 * Requests a server sends to its client: sampling (`sampling/createMessage`),
 * elicitation (`elicitation/create`, form mode) and `roots/list`. Their
 * types, and the checks made on what is sent (before it is sent) and on
 * what the client answers. Loaded on the first such request.
 *
 * @module
 */

import {
  describeError,
  ErrorCode,
  isObject,
  type JsonObject,
  RpcError,
} from "./jsonrpc.ts";

/** One message of a sampling conversation. */
export interface SamplingMessage {
  /** Who speaks. */
  role: "user" | "assistant";
  /** A content block (`{type: "text", text}`, an image…), or several. */
  content: JsonObject | JsonObject[];
}

/** The params of `sampling/createMessage`. */
export interface CreateMessageParams {
  /** The conversation to continue. */
  messages: SamplingMessage[];
  /** Most tokens to sample. */
  maxTokens: number;
  /** A system prompt the client may use. */
  systemPrompt?: string;
  /** Which server contexts the client should include. */
  includeContext?: "none" | "thisServer" | "allServers";
  /** Sampling temperature. */
  temperature?: number;
  /** Sequences that stop sampling. */
  stopSequences?: string[];
  /** Hints and priorities for the client's choice of model. */
  modelPreferences?: JsonObject;
  /** Provider-specific metadata. */
  metadata?: JsonObject;
  /** Anything newer versions add (`tools`, `_meta`, …). */
  [key: string]: unknown;
}

/** The result of `sampling/createMessage`. */
export interface CreateMessageResult {
  /** Who speaks (the model: `assistant`). */
  role: "user" | "assistant";
  /** What was sampled. */
  content: JsonObject | JsonObject[];
  /** The model that answered. */
  model: string;
  /** Why sampling stopped (`endTurn`, `maxTokens`, …). */
  stopReason?: string;
  /** Anything else the client sent. */
  [key: string]: unknown;
}

/** The form a client shows in `elicitation/create` (form mode). */
export interface ElicitationSchema {
  /** Always `object`. */
  type: "object";
  /** The fields, flat: each a string, number, boolean or enum schema. */
  properties: Record<string, JsonObject>;
  /** The fields the user must fill in. */
  required?: string[];
}

/** The params of `elicitation/create` in form mode. */
export interface ElicitParams {
  /** Form mode (optional: a request without a mode is a form). */
  mode?: "form";
  /** What is asked of the user, and why. */
  message: string;
  /** The form. */
  requestedSchema: ElicitationSchema;
  /** `_meta` and anything newer versions add. */
  [key: string]: unknown;
}

/** The result of `elicitation/create`. */
export interface ElicitResult {
  /** What the user did. */
  action: "accept" | "decline" | "cancel";
  /** The values entered, when accepted. */
  content?: Record<string, string | number | boolean | string[]>;
  /** Anything else the client sent. */
  [key: string]: unknown;
}

/** One of the client's roots, from `roots/list`. */
export interface Root {
  /** Its URI (`file:///…`). */
  uri: string;
  /** A name for display. */
  name?: string;
  /** Anything else the client sent (`_meta`). */
  [key: string]: unknown;
}

/** The first protocol version with titled and multi-select enums and defaults. */
export const ENUM_SCHEMAS_SINCE = "2025-11-25";

function invalidParams(method: string, problems: string[]): RpcError {
  return new RpcError(
    ErrorCode.InvalidParams,
    describeError(
      ErrorCode.InvalidParams,
      `the server's ${method} request was not sent: ${
        problems.join("; ")
      }. Fix the request in the server's code.`,
    ),
    { method, problems },
  );
}

function invalidResult(method: string, problem: string): RpcError {
  return new RpcError(
    ErrorCode.InternalError,
    `The client answered ${method} with an invalid result: ${problem}.`,
    { method },
  );
}

/** Check the params of `sampling/createMessage`; throws -32602 naming each problem. */
export function checkSamplingParams(params: CreateMessageParams): void {
  const problems: string[] = [];
  if (!isObject(params)) problems.push("params must be an object");
  else {
    if (!Array.isArray(params.messages)) {
      problems.push('"messages" must be an array of messages');
    } else {
      params.messages.forEach((message, index) => {
        if (
          !isObject(message) ||
          (message.role !== "user" && message.role !== "assistant") ||
          !(isObject(message.content) || Array.isArray(message.content))
        ) {
          problems.push(
            `messages[${index}] needs "role" ("user" or "assistant") and "content" (a content block or an array of them)`,
          );
        }
      });
    }
    if (!Number.isInteger(params.maxTokens) || params.maxTokens < 1) {
      problems.push('"maxTokens" must be a whole number of at least 1');
    }
  }
  if (problems.length > 0) {
    throw invalidParams("sampling/createMessage", problems);
  }
}

/** The client's answer to `sampling/createMessage`, checked. */
export function checkSamplingResult(result: unknown): CreateMessageResult {
  const method = "sampling/createMessage";
  if (!isObject(result)) throw invalidResult(method, "not an object");
  if (result.role !== "user" && result.role !== "assistant") {
    throw invalidResult(method, '"role" is neither "user" nor "assistant"');
  }
  if (!isObject(result.content) && !Array.isArray(result.content)) {
    throw invalidResult(method, '"content" is missing');
  }
  if (typeof result.model !== "string") {
    throw invalidResult(method, '"model" is not a string');
  }
  return result as CreateMessageResult;
}

/**
 * Whether an `elicitation` capability allows form mode: an empty object
 * (as every version before 2025-11-25 sends) or one with `form`.
 */
export function supportsFormElicitation(capability: unknown): boolean {
  if (!isObject(capability)) return false;
  return isObject(capability.form) || !("url" in capability);
}

const isString = (value: unknown) => typeof value === "string";
const isNumber = (value: unknown) =>
  typeof value === "number" && Number.isFinite(value);
const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every(isString);
const isTitledOptions = (value: unknown): value is { const: string }[] =>
  Array.isArray(value) && value.length > 0 &&
  value.every((option) =>
    isObject(option) && isString(option.const) && isString(option.title) &&
    Object.keys(option).length === 2
  );

// The keywords each kind of field may carry, beyond type/title/description.
const FIELD_KEYWORDS: Record<string, readonly string[]> = {
  string: ["minLength", "maxLength", "format", "default"],
  enum: ["enum", "enumNames", "default"],
  oneOf: ["oneOf", "default"],
  number: ["minimum", "maximum", "default"],
  boolean: ["default"],
  array: ["items", "minItems", "maxItems", "default"],
};

/**
 * What is wrong with one field of a form (empty when nothing), for a
 * session speaking `version`.
 */
function fieldProblems(
  name: string,
  field: unknown,
  version: string | undefined,
): string[] {
  const at = `field "${name}"`;
  if (!isObject(field)) return [`${at} must be a schema object`];
  const problems: string[] = [];
  const newer = version !== undefined && version >= ENUM_SCHEMAS_SINCE;
  const needsNewer = (what: string) =>
    problems.push(
      `${at}: ${what} needs protocol ${ENUM_SCHEMAS_SINCE}, the session speaks ${
        version ?? "none yet"
      }`,
    );
  let kind: string;
  switch (field.type) {
    case "string":
      kind = "oneOf" in field ? "oneOf" : "enum" in field ? "enum" : "string";
      break;
    case "number":
    case "integer":
      kind = "number";
      break;
    case "boolean":
    case "array":
      kind = field.type;
      break;
    default:
      return [
        `${at}: "type" must be "string", "number", "integer", "boolean" or "array" (of enum values); nested objects are not allowed`,
      ];
  }
  for (const key of Object.keys(field)) {
    if (
      key !== "type" && key !== "title" && key !== "description" &&
      !FIELD_KEYWORDS[kind].includes(key)
    ) {
      problems.push(
        `${at}: "${key}" is not allowed on a ${kind} field (allowed: title, description, ${
          FIELD_KEYWORDS[kind].join(", ")
        })`,
      );
    }
  }
  for (const key of ["title", "description"]) {
    if (key in field && !isString(field[key])) {
      problems.push(`${at}: "${key}" must be a string`);
    }
  }
  const fallback = field.default;
  const hasDefault = "default" in field;
  switch (kind) {
    case "string": {
      for (const key of ["minLength", "maxLength"]) {
        const value = field[key];
        if (
          key in field &&
          !(Number.isInteger(value) && (value as number) >= 0)
        ) problems.push(`${at}: "${key}" must be a whole number`);
      }
      if (
        "format" in field &&
        !["email", "uri", "date", "date-time"].includes(field.format as string)
      ) {
        problems.push(
          `${at}: "format" must be "email", "uri", "date" or "date-time"`,
        );
      }
      if (hasDefault && !isString(fallback)) {
        problems.push(`${at}: "default" must be a string`);
      }
      if (hasDefault && !newer) needsNewer("a default");
      break;
    }
    case "enum": {
      const values = field.enum;
      if (!isStringArray(values) || values.length === 0) {
        problems.push(`${at}: "enum" must be a non-empty array of strings`);
        break;
      }
      if (
        "enumNames" in field &&
        !(isStringArray(field.enumNames) &&
          field.enumNames.length === values.length)
      ) {
        problems.push(
          `${at}: "enumNames" must be strings, one per value of "enum"`,
        );
      }
      if (hasDefault && !values.includes(fallback as string)) {
        problems.push(`${at}: "default" must be one of "enum"`);
      }
      if (hasDefault && !newer) needsNewer("a default");
      break;
    }
    case "oneOf": {
      if (!newer) needsNewer("a titled enum (oneOf)");
      if (!isTitledOptions(field.oneOf)) {
        problems.push(
          `${at}: "oneOf" must be a non-empty array of {"const": value, "title": label}`,
        );
      } else if (
        hasDefault && !field.oneOf.some((option) => option.const === fallback)
      ) problems.push(`${at}: "default" must be one of the "const" values`);
      break;
    }
    case "number": {
      for (const key of ["minimum", "maximum"]) {
        if (key in field && !isNumber(field[key])) {
          problems.push(`${at}: "${key}" must be a number`);
        }
      }
      if (
        hasDefault &&
        !(isNumber(fallback) &&
          (field.type === "number" || Number.isInteger(fallback)))
      ) {
        problems.push(
          `${at}: "default" must be ${
            field.type === "integer" ? "an integer" : "a number"
          }`,
        );
      }
      if (hasDefault && !newer) needsNewer("a default");
      break;
    }
    case "boolean":
      if (hasDefault && typeof fallback !== "boolean") {
        problems.push(`${at}: "default" must be a boolean`);
      }
      break;
    case "array": {
      if (!newer) needsNewer("a multi-select enum (array)");
      const items = field.items;
      let allowed: string[] | undefined;
      if (
        isObject(items) && items.type === "string" &&
        isStringArray(items.enum) && items.enum.length > 0 &&
        Object.keys(items).length === 2
      ) allowed = items.enum;
      else if (
        isObject(items) && isTitledOptions(items.anyOf) &&
        Object.keys(items).length === 1
      ) allowed = items.anyOf.map((option) => option.const);
      else {
        problems.push(
          `${at}: "items" must be {"type": "string", "enum": [...]} or {"anyOf": [{"const", "title"}, ...]}`,
        );
      }
      for (const key of ["minItems", "maxItems"]) {
        const value = field[key];
        if (
          key in field &&
          !(Number.isInteger(value) && (value as number) >= 0)
        ) problems.push(`${at}: "${key}" must be a whole number`);
      }
      if (
        hasDefault && allowed !== undefined &&
        !(isStringArray(fallback) &&
          fallback.every((value) => allowed.includes(value)))
      ) {
        problems.push(`${at}: "default" must be an array of allowed values`);
      }
      break;
    }
  }
  return problems;
}

/**
 * What is wrong with a form's `requestedSchema` (empty when nothing), for
 * a session speaking `version`: a flat object of string, number, integer,
 * boolean and enum fields, as the specification allows.
 *
 * @example
 * ```ts
 * import { requestedSchemaProblems } from "./client_requests.ts";
 * requestedSchemaProblems({
 *   type: "object",
 *   properties: { name: { type: "string" } },
 *   required: ["name"],
 * }, "2025-06-18"); // []
 * ```
 */
export function requestedSchemaProblems(
  schema: unknown,
  version: string | undefined,
): string[] {
  if (!isObject(schema) || schema.type !== "object") {
    return ['"requestedSchema" must be an object schema ("type": "object")'];
  }
  const problems: string[] = [];
  for (const key of Object.keys(schema)) {
    if (key !== "type" && key !== "properties" && key !== "required") {
      problems.push(
        `"requestedSchema" may hold only "type", "properties" and "required", not "${key}"`,
      );
    }
  }
  const properties = schema.properties;
  if (!isObject(properties)) {
    problems.push('"requestedSchema.properties" must be an object of fields');
    return problems;
  }
  for (const [name, field] of Object.entries(properties)) {
    problems.push(...fieldProblems(name, field, version));
  }
  if ("required" in schema) {
    const required = schema.required;
    if (!isStringArray(required)) {
      problems.push('"requestedSchema.required" must be an array of names');
    } else {
      for (const name of required) {
        if (!Object.hasOwn(properties, name)) {
          problems.push(`required field "${name}" is not in "properties"`);
        }
      }
    }
  }
  return problems;
}

/**
 * Check the params of `elicitation/create` (form mode) for a session
 * speaking `version`; throws -32602 naming each problem.
 */
export function checkElicitParams(
  params: ElicitParams,
  version: string | undefined,
): void {
  const method = "elicitation/create";
  if (!isObject(params)) {
    throw invalidParams(method, ["params must be an object"]);
  }
  const problems: string[] = [];
  if ("mode" in params && params.mode !== "form") {
    problems.push(
      'only form mode is supported: "mode" must be "form" or left out',
    );
  }
  if (typeof params.message !== "string" || params.message === "") {
    problems.push('"message" must be a non-empty string saying what is asked');
  }
  problems.push(...requestedSchemaProblems(params.requestedSchema, version));
  if (problems.length > 0) throw invalidParams(method, problems);
}

/** The client's answer to `elicitation/create`, checked. */
export function checkElicitResult(result: unknown): ElicitResult {
  const method = "elicitation/create";
  if (!isObject(result)) throw invalidResult(method, "not an object");
  if (
    result.action !== "accept" && result.action !== "decline" &&
    result.action !== "cancel"
  ) {
    throw invalidResult(
      method,
      '"action" is not "accept", "decline" or "cancel"',
    );
  }
  if (result.content !== undefined && !isObject(result.content)) {
    throw invalidResult(method, '"content" is not an object');
  }
  return result as ElicitResult;
}

/** The client's answer to `roots/list`, checked: its roots. */
export function checkRootsResult(result: unknown): Root[] {
  const method = "roots/list";
  if (!isObject(result) || !Array.isArray(result.roots)) {
    throw invalidResult(method, '"roots" is not an array');
  }
  for (const root of result.roots) {
    if (!isObject(root) || typeof root.uri !== "string") {
      throw invalidResult(method, 'a root has no "uri" string');
    }
  }
  return result.roots as Root[];
}
