/**
 * Arguments a tool does not declare, where one is a near miss of a name it
 * does declare.
 *
 * Tool schemas leave `additionalProperties` open: clients add arguments of
 * their own (Gemini CLI adds `wait_for_previous` to every tool and its
 * model sets it), and a call must not fail on them. An undeclared name that
 * is a slip of a declared one ("ofset" for "offset", "Path" for "path") is
 * another matter: ignoring it would quietly answer a different question, so
 * it is refused with the name meant.
 *
 * @module
 */

import { isObject, type JsonObject } from "./jsonrpc.ts";
import type { SchemaFailure } from "./json_schema.ts";

/** Edit distance between `a` and `b`, or `limit + 1` once past `limit`. */
function distance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(
        previous[j] + 1,
        row[j - 1] + 1,
        previous[j - 1] + cost,
      );
      row.push(value);
      if (value < best) best = value;
    }
    if (best > limit) return limit + 1;
    previous = row;
  }
  return previous[b.length];
}

/**
 * The declared name `name` is most likely a slip of, if any: the same
 * ignoring case, `_` and `-`, or within one edit (two for names of six or
 * more characters).
 */
export function meantName(
  name: string,
  declared: readonly string[],
): string | undefined {
  const fold = (s: string) => s.toLowerCase().replace(/[_-]/g, "");
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const known of declared) {
    if (fold(known) === fold(name)) return known;
    const limit = Math.max(known.length, name.length) >= 6 ? 2 : 1;
    const d = distance(name.toLowerCase(), known.toLowerCase(), limit);
    if (d <= limit && d < bestDistance) {
      best = known;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * Failures for the top-level arguments in `args` that `schema` does not
 * declare and that are near misses of names it does; none when the schema
 * declares no properties or already closes them (`additionalProperties`).
 */
export function misspelledArguments(
  schema: JsonObject,
  args: unknown,
): SchemaFailure[] {
  const properties = schema.properties;
  if (
    !isObject(properties) || !isObject(args) ||
    schema.additionalProperties !== undefined
  ) return [];
  const declared = Object.keys(properties);
  const failures: SchemaFailure[] = [];
  for (const name of Object.keys(args)) {
    if (Object.hasOwn(properties, name)) continue;
    const meant = meantName(name, declared);
    if (meant !== undefined) {
      failures.push({
        path: `/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`,
        message: `is not an argument of this tool (did you mean "${meant}"?)`,
      });
    }
  }
  return failures;
}
