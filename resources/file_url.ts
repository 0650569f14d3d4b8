/**
 * The `file://` URL of a file path, spelled exactly as Node's
 * `url.pathToFileURL` spells it, built on the web `URL` alone: importing
 * any `node:` module starts Deno's Node compatibility layer, which costs
 * several milliseconds of start-up.
 *
 * The path is resolved first (`.`, `..` and repeated separators removed;
 * a relative path is taken from the working directory; a trailing
 * separator is kept). Then `%`, the characters the URL `pathname` setter
 * would drop or read as a separator (LF, CR, tab, and on POSIX the
 * backslash) and those Node encodes beyond the setter (`[`, `]`, `^`, `|`,
 * `~`) are percent-encoded, and the setter encodes the rest (`#`, `?`,
 * spaces, `{`, `}`, non-ASCII, ...).
 *
 * @module
 */

import { absolutePath } from "../workspace/path.ts";

/** Options of {@linkcode pathToFileHref}. */
export interface FileHrefOptions {
  /**
   * Read the path as a Windows path (drive letters, `\` and `/` both
   * separators, UNC `\\server\share\...`). Default: whether Deno runs on
   * Windows.
   */
  windows?: boolean;
}

function resolvePosix(path: string): string {
  // Deno.cwd() is only reached for a relative path, which callers with a
  // real absolute path never pass.
  return absolutePath(path.startsWith("/") ? "/" : Deno.cwd(), path);
}

// A Windows path as `X:\a\b`, or `\\server\share\a` for UNC paths.
function resolveWindows(path: string): string {
  if (path.startsWith("\\\\?\\UNC\\")) return path; // Extended UNC.
  if (/^[\\/]{2}/.test(path) && !path.startsWith("\\\\?\\")) {
    return path.replaceAll("/", "\\"); // UNC: the URL parser resolves it.
  }
  // `\\?\X:\...` names the same file as `X:\...`.
  let full = path.startsWith("\\\\?\\") ? path.slice(4) : path;
  if (!/^[A-Za-z]:[\\/]/.test(full)) {
    // Relative: Deno.cwd() is never reached for the real absolute paths
    // this server's callers pass.
    const cwd = Deno.cwd();
    const drive = cwd.slice(0, 2);
    if (/^[A-Za-z]:/.test(full)) {
      // Drive-relative "X:a": from the working directory on that drive.
      full = full.slice(0, 2).toLowerCase() === drive.toLowerCase()
        ? `${cwd}\\${full.slice(2)}`
        : `${full.slice(0, 2)}\\${full.slice(2)}`;
    } else if (/^[\\/]/.test(full)) {
      full = `${drive}${full}`; // Rooted on the current drive.
    } else {
      full = `${cwd}\\${full}`;
    }
  }
  return absolutePath("", full); // A drive path by now: no cwd needed.
}

// `%`, what the pathname setter drops (LF, CR, tab) or takes for a
// separator (a POSIX backslash, an ordinary file name character there),
// and the characters Node's pathToFileURL encodes though the setter leaves
// them alone: `[`, `]`, `^`, `|`, `~`.
function encodePathChars(path: string, windows: boolean): string {
  return path.replace(
    windows ? /[%\n\r\t[\]^|~]/g : /[%\\\n\r\t[\]^|~]/g,
    (char) =>
      "%" + char.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0"),
  );
}

/**
 * The `file://` URL of `path`, as `url.pathToFileURL(path).href` spells it.
 * Throws a TypeError for a UNC path without a share or with an invalid
 * server name.
 */
export function pathToFileHref(
  path: string,
  options: FileHrefOptions = {},
): string {
  const windows = options.windows ?? Deno.build.os === "windows";
  let resolved = windows ? resolveWindows(path) : resolvePosix(path);
  const url = new URL("file:///");
  if (windows && resolved.startsWith("\\\\")) {
    const start = resolved.startsWith("\\\\?\\UNC\\") ? 8 : 2;
    const end = resolved.indexOf("\\", start);
    if (end === -1 || end === start) {
      throw new TypeError(`Not a UNC resource path: "${path}"`);
    }
    // The host parser checks and IDNA-encodes the server name.
    const host = new URL(`file://${resolved.slice(start, end)}/`).host;
    url.host = host;
    url.pathname = encodePathChars(resolved.slice(end), true);
    return url.href;
  }
  // Resolving drops a trailing separator; the caller meant a directory.
  const last = path.at(-1);
  const separator = windows ? "\\" : "/";
  if (
    (last === "/" || (windows && last === "\\")) &&
    !resolved.endsWith(separator)
  ) {
    resolved += "/";
  }
  url.pathname = encodePathChars(resolved, windows);
  return url.href;
}
