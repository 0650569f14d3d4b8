/**
 * A client path's text, checked and split into root-relative names
 * without touching the file system: the first step of path resolution
 * (`resolve.ts` follows the names).
 *
 * Invariant: a path that is not a string, longer than
 * {@linkcode MAX_PATH_BYTES}, deeper than {@linkcode MAX_PATH_SEGMENTS},
 * with a NUL byte, with a `..` segment, or absolute outside the root is
 * refused before any file system call.
 *
 * @module
 */

import { invalid, outside } from "./errors.ts";

/** Longest client path accepted, in UTF-8 bytes (POSIX PATH_MAX). */
export const MAX_PATH_BYTES = 4096;

/** Most path components in a client path or below the root in a walk. */
export const MAX_PATH_SEGMENTS = 256;

const encoder = new TextEncoder();

/** The length of `text` in UTF-8 bytes. */
export function utf8Length(text: string): number {
  // ASCII (the common case) needs no encoding.
  // deno-lint-ignore no-control-regex
  return /^[\x00-\x7f]*$/.test(text)
    ? text.length
    : encoder.encode(text).length;
}

/**
 * Check a client path's text and split it into segments relative to
 * `root` (the real absolute root), without touching the file system.
 * Backslashes and colons are ordinary name characters on POSIX systems,
 * so they are allowed. Throws a `WorkspaceError` ("invalid", "outside").
 */
export function clientSegments(root: string, path: string): string[] {
  if (typeof path !== "string") throw invalid(String(path), "not a string");
  if (path.length > MAX_PATH_BYTES || utf8Length(path) > MAX_PATH_BYTES) {
    throw invalid(path, `it is longer than ${MAX_PATH_BYTES} bytes`);
  }
  if (path.includes("\0")) throw invalid(path, "it contains a NUL byte");
  let rest = path;
  if (rest.startsWith("/")) {
    if (rest.startsWith("//")) throw outside(path); // UNC-like.
    const top = root === "/" ? "" : root;
    if (rest === top) rest = "";
    else if (rest.startsWith(`${top}/`)) rest = rest.slice(top.length + 1);
    else throw outside(path);
  }
  const segments: string[] = [];
  for (const segment of rest.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") throw outside(path);
    segments.push(segment);
  }
  if (segments.length > MAX_PATH_SEGMENTS) {
    throw invalid(path, `it has more than ${MAX_PATH_SEGMENTS} components`);
  }
  return segments;
}
