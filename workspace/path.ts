/**
 * Path normalising shared by the layers that name files to the outside
 * world: the command line's `--root` and the `file://` URLs of resources.
 * Written on plain strings, so it needs neither `node:path` (whose import
 * starts Deno's Node compatibility layer) nor any file system access.
 *
 * @module
 */

const DRIVE_PATH = /^[A-Za-z]:[\\/]/;

/**
 * Make `path` absolute against `cwd` and drop `.`, `..` and empty
 * segments, so logs, resource URIs and `config` output never depend on
 * where the server was started. `..` never climbs above the root, and a
 * trailing separator is dropped. POSIX paths, and Windows drive paths
 * (`C:\…` or `C:/…`, written back with `\`); a UNC path (`\\server\…`) is
 * returned as it is.
 *
 * @example Resolving against the working directory
 * ```ts
 * import { absolutePath } from "./path.ts";
 * import { strict as assert } from "node:assert";
 *
 * assert.equal(absolutePath("/home/ada", "../bob/./code/"), "/home/bob/code");
 * assert.equal(absolutePath("C:\\w", "src\\..\\lib"), "C:\\w\\lib");
 * ```
 */
export function absolutePath(cwd: string, path: string): string {
  if (path.startsWith("\\\\")) return path; // A UNC path: leave it be.
  let full: string;
  if (path.startsWith("/") || DRIVE_PATH.test(path)) full = path;
  else if (path.startsWith("\\") && DRIVE_PATH.test(cwd)) {
    full = cwd.slice(0, 2) + path; // Rooted on the working directory's drive.
  } else full = `${cwd}/${path}`;
  const windows = DRIVE_PATH.test(full);
  const parts = full.split(windows ? /[\\/]+/ : /\/+/);
  const head = parts.shift() ?? "";
  const kept: string[] = [];
  for (const part of parts) {
    if (part === "" || part === ".") continue;
    if (part === "..") kept.pop();
    else kept.push(part);
  }
  const separator = windows ? "\\" : "/";
  return head + separator + kept.join(separator);
}
