/**
 * `file://` URIs of the files under a root directory, and the way back
 * from a client's URI to a root-relative path.
 *
 * A file has one identity: URIs are spelled as Node's `pathToFileURL`
 * spells them (`file_url.ts`: `%`, `#`, `?`, spaces and non-ASCII are
 * percent-encoded), and an incoming URI is compared after the URL parser's
 * normalisation (`.`/`..` segments, including their `%2e` spellings,
 * `localhost` host) and percent-decoding of each segment. A decoded
 * segment must stay a single path component: `%2f`, `%5c` and `%00` never
 * become separators or NULs.
 *
 * @module
 */

import { pathToFileHref } from "./file_url.ts";

// Decoded path segments of a file URL, or undefined when one cannot be
// a single path component.
function decodedSegments(pathname: string): string[] | undefined {
  const segments: string[] = [];
  for (const raw of pathname.split("/").slice(1)) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return undefined; // "%zz" or a broken UTF-8 sequence.
    }
    // A backslash is an ordinary name character on POSIX ("back\\slash.txt").
    if (/[/\0]/.test(segment) || segment === "." || segment === "..") {
      return undefined;
    }
    segments.push(segment);
  }
  return segments;
}

/** Maps between root-relative POSIX paths and `file://` URIs under a root. */
export class RootUri {
  /** The root's own URI, with a trailing `/`. */
  readonly prefix: string;
  readonly #root: string;
  readonly #rootSegments: string[];

  /** Make the mapping for the real absolute path `root`. */
  constructor(root: string) {
    this.#root = root.endsWith("/") ? root.slice(0, -1) : root;
    const href = pathToFileHref(this.#root === "" ? "/" : this.#root);
    this.prefix = href.endsWith("/") ? href : `${href}/`;
    const segments = decodedSegments(new URL(this.prefix).pathname);
    if (segments === undefined) {
      throw new TypeError(`Cannot make a file URI of the root "${root}"`);
    }
    segments.pop(); // The empty segment after the trailing "/".
    this.#rootSegments = segments;
  }

  /** The canonical URI of the root-relative POSIX path `relative`. */
  uriOf(relative: string): string {
    return pathToFileHref(`${this.#root}/${relative}`);
  }

  /**
   * The root-relative POSIX path `uri` names, or undefined when it names
   * nothing under the root (another scheme or host, a query or fragment,
   * a path outside the root, the root itself, an empty segment, or an
   * encoded separator or NUL).
   */
  relativeOf(uri: string): string | undefined {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      return undefined;
    }
    if (url.protocol !== "file:" || url.host !== "") return undefined;
    if (url.search !== "" || url.hash !== "" || uri.includes("?")) {
      return undefined;
    }
    const segments = decodedSegments(url.pathname);
    if (segments === undefined) return undefined;
    const root = this.#rootSegments;
    if (segments.length <= root.length) return undefined;
    for (let i = 0; i < root.length; i++) {
      if (segments[i] !== root[i]) return undefined;
    }
    const rest = segments.slice(root.length);
    if (rest.includes("")) return undefined;
    return rest.join("/");
  }

  /** The canonical spelling of `uri`, or undefined as for `relativeOf`. */
  normalize(uri: string): string | undefined {
    const relative = this.relativeOf(uri);
    return relative === undefined ? undefined : this.uriOf(relative);
  }
}
