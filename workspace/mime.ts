/**
 * MIME types by file name, from the `mime-types` package (the mime-db
 * database). Importing this module parses that database (a few hundred
 * kilobytes of JSON), so modules on the startup path load it lazily with
 * `await import()`.
 *
 * @module
 */

import mimeTypes from "mime-types";

const lookup = (mimeTypes as { lookup(path: string): string | false }).lookup;

// mime-db knows ".ts" as an MPEG transport stream; in a code workspace it is
// TypeScript, as are its module-flavoured siblings.
const SOURCE_TYPES: Readonly<Record<string, string>> = {
  ts: "text/x-typescript",
  mts: "text/x-typescript",
  cts: "text/x-typescript",
  tsx: "text/x-typescript",
};

/** The MIME type of `path` by its extension, or undefined when unknown. */
export function mimeTypeOf(path: string): string | undefined {
  const dot = path.lastIndexOf(".");
  const slash = path.lastIndexOf("/");
  if (dot > slash + 1) {
    const override = SOURCE_TYPES[path.slice(dot + 1).toLowerCase()];
    if (override !== undefined) return override;
  }
  const type = lookup(path);
  return type === false ? undefined : type;
}
