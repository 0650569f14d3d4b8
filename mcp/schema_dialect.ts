/**
 * JSON Schema dialects: which one a schema is written in, from its
 * `$schema`. MCP 2025-11-25 makes 2020-12 the default dialect (a schema
 * without `$schema` is 2020-12) and lets a schema name another; a dialect
 * the validator cannot check must be refused with a clear error, never
 * checked by the wrong rules. Kept apart from the validator so that a
 * server can refuse a schema when a tool is registered, without loading it.
 *
 * @module
 */

/** The dialects this library validates. */
export type SchemaDialect = "2020-12" | "2019-09" | "draft-07";

// The `$schema` URIs of each dialect, without a trailing "#" (or its
// empty fragment), which names the same document.
const DIALECTS: ReadonlyMap<string, SchemaDialect> = new Map([
  ["https://json-schema.org/draft/2020-12/schema", "2020-12"],
  ["https://json-schema.org/draft/2019-09/schema", "2019-09"],
  ["http://json-schema.org/draft-07/schema", "draft-07"],
  ["https://json-schema.org/draft-07/schema", "draft-07"],
]);

/**
 * The dialect `schema` is written in: 2020-12 without `$schema`. Throws a
 * TypeError naming the supported dialects when `$schema` names another.
 *
 * @example
 * ```ts
 * import { schemaDialect } from "./schema_dialect.ts";
 * console.log(schemaDialect({ type: "object" })); // "2020-12"
 * ```
 */
export function schemaDialect(
  schema: { readonly [keyword: string]: unknown },
): SchemaDialect {
  const uri = schema.$schema;
  if (uri === undefined) return "2020-12";
  const dialect = typeof uri === "string"
    ? DIALECTS.get(uri.replace(/#$/, ""))
    : undefined;
  if (dialect === undefined) {
    throw new TypeError(
      `unsupported JSON Schema dialect ${
        JSON.stringify(uri)
      }: use 2020-12 (omit "$schema", or https://json-schema.org/draft/2020-12/schema), 2019-09 or draft-07.`,
    );
  }
  return dialect;
}
