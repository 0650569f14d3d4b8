/**
 * JSON Schema validation (draft 2020-12) with Ajv, loaded on first use so
 * that starting the server never pays for it, and each schema compiled once.
 *
 * @module
 */

import type { JsonObject } from "./jsonrpc.ts";

/** One way a value fails its schema. */
export interface SchemaFailure {
  /** JSON Pointer into the value ("" for the value itself). */
  path: string;
  /** What is wrong there, e.g. "must be string". */
  message: string;
}

/** Checks a value; returns its failures, empty when it is valid. */
export type SchemaCheck = (value: unknown) => SchemaFailure[];

interface AjvError {
  instancePath: string;
  message?: string;
  keyword: string;
  params: Record<string, unknown>;
}

interface AjvValidate {
  (value: unknown): boolean;
  errors?: AjvError[] | null;
}

interface AjvInstance {
  compile(schema: JsonObject): AjvValidate;
}

let ajv: Promise<AjvInstance> | undefined;

function loadAjv(): Promise<AjvInstance> {
  // The full npm: specifier, not a deno.json mapping: the library is
  // imported from other projects, which do not have this one's deno.json.
  // deno-lint-ignore no-import-prefix
  return ajv ??= import("npm:ajv@8.20.0/dist/2020.js").then((module) => {
    const Ajv2020 = module.default as unknown as new (
      options: Record<string, unknown>,
    ) => AjvInstance;
    // allErrors: a client fixing its arguments wants every problem at once.
    // strict off: tool authors may use annotations Ajv does not know.
    return new Ajv2020({ allErrors: true, strict: false });
  });
}

function describe(error: AjvError): SchemaFailure {
  let message = error.message ?? `fails "${error.keyword}"`;
  if (
    error.keyword === "additionalProperties" &&
    typeof error.params.additionalProperty === "string"
  ) {
    message = `must not have property "${error.params.additionalProperty}"`;
  }
  return { path: error.instancePath, message };
}

/**
 * Compile `schema` (loading Ajv the first time). Throws when the schema
 * itself is invalid.
 */
export async function compileSchema(schema: JsonObject): Promise<SchemaCheck> {
  const validate = (await loadAjv()).compile(schema);
  return (value) =>
    validate(value) ? [] : (validate.errors ?? []).map(describe);
}

/** Failures as one readable line each, e.g. `/limit: must be >= 1`. */
export function formatFailures(
  failures: readonly SchemaFailure[],
  root = "arguments",
): string[] {
  return failures.map((f) => `${root}${f.path}: ${f.message}`);
}
