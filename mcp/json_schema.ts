/**
 * JSON Schema validation with Ajv, loaded on first use so that starting the
 * server never pays for it, and each schema compiled once. A schema without
 * `$schema` is checked as 2020-12 (MCP 2025-11-25's default dialect); one
 * naming 2019-09 or draft-07 by those rules; any other dialect is refused
 * (see `schema_dialect.ts`).
 *
 * @module
 */

import type { JsonObject } from "./jsonrpc.ts";
import { type SchemaDialect, schemaDialect } from "./schema_dialect.ts";

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

const validators = new Map<SchemaDialect, Promise<AjvInstance>>();

// The full npm: specifiers, not a deno.json mapping: the library is
// imported from other projects, which do not have this one's deno.json.
function importAjv(dialect: SchemaDialect): Promise<{ default: unknown }> {
  switch (dialect) {
    case "2020-12":
      // deno-lint-ignore no-import-prefix
      return import("npm:ajv@8.20.0/dist/2020.js");
    case "2019-09":
      // deno-lint-ignore no-import-prefix
      return import("npm:ajv@8.20.0/dist/2019.js");
    case "draft-07":
      // deno-lint-ignore no-import-prefix
      return import("npm:ajv@8.20.0/dist/ajv.js");
  }
}

function loadAjv(dialect: SchemaDialect): Promise<AjvInstance> {
  let validator = validators.get(dialect);
  if (validator === undefined) {
    validator = importAjv(dialect).then((module) => {
      const Ajv = module.default as new (
        options: Record<string, unknown>,
      ) => AjvInstance;
      // allErrors: a client fixing its arguments wants every problem at
      // once. strict off: tool authors may use annotations Ajv does not know.
      return new Ajv({ allErrors: true, strict: false });
    });
    validators.set(dialect, validator);
  }
  return validator;
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
 * Compile `schema` by the rules of its dialect (loading Ajv the first
 * time). Throws when the schema itself is invalid or names a dialect this
 * library does not support.
 */
export async function compileSchema(schema: JsonObject): Promise<SchemaCheck> {
  const validate = (await loadAjv(schemaDialect(schema))).compile(schema);
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
