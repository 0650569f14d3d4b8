/**
 * MIME types by file name, from the `mime` package (the mime-db database
 * as ES modules, with no Node built-ins: importing `node:` modules starts
 * Deno's Node compatibility layer). Importing this module builds a table
 * of about 1,200 extensions, so modules on the startup path load it
 * lazily with `await import()`.
 *
 * @module
 */

import mime from "mime";

// mime-db knows ".ts" as an MPEG transport stream; in a code workspace it is
// TypeScript, as are its module-flavoured siblings.
const SOURCE_TYPES: Readonly<Record<string, string>> = {
  ts: "text/x-typescript",
  mts: "text/x-typescript",
  cts: "text/x-typescript",
  tsx: "text/x-typescript",
};

// mime-db lists these extensions under both a specific type and the generic
// application/octet-stream, and `mime` picks the generic one. Both read as
// binary; the specific type tells a client more, and it is what this server
// sent while it used the `mime-types` package.
const SPECIFIC_TYPES: Readonly<Record<string, string>> = {
  deb: "application/x-debian-package",
  dll: "application/x-msdownload",
  dmg: "application/x-apple-diskimage",
  exe: "application/x-msdos-program",
  iso: "application/x-iso9660-image",
  msi: "application/x-msdownload",
};

// The lower-cased extension `mime-types` looked up for `path`: that of its
// last segment, where a bare "txt" or a top-level ".txt" counts as
// extension "txt" (its `extname("x." + path)`), and "" when there is none.
function extensionOf(path: string): string {
  const full = `x.${path}`.replace(/\/+$/, "");
  const name = full.slice(full.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
}

/** The MIME type of `path` by its extension, or undefined when unknown. */
export function mimeTypeOf(path: string): string | undefined {
  const dot = path.lastIndexOf(".");
  const slash = path.lastIndexOf("/");
  if (dot > slash + 1) {
    const override = SOURCE_TYPES[path.slice(dot + 1).toLowerCase()];
    if (override !== undefined) return override;
  }
  const extension = extensionOf(path);
  if (extension === "") return undefined;
  return SPECIFIC_TYPES[extension] ?? mime.getType(extension) ?? undefined;
}
