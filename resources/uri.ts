/**
 * `file://` URIs of the files under a root directory, and the way back
 * from a client's URI to a root-relative path.
 *
 * A file has one identity: URIs are spelled as Node's `pathToFileURL`
 * spells them (`file_url.ts`: `%`, `#`, `?`, spaces and non-ASCII are
 * percent-encoded), and an incoming URI is compared after the URL parser's
 * normalisation (`.`/`..` segments, including their `%2e` spellings,
 * `localhost` host) and percent-decoding of each segment. A decoded
 * segment must stay a single path component: `%2f` and `%00` never become
 * separators or NULs, nor `%5c` on Windows (on POSIX a backslash is an
 * ordinary character of a file name, `back\slash.txt`).
 *
 * The published template `file:///ROOT/{+path}` is expanded by clients with
 * RFC 6570 reserved expansion (the official SDK's `UriTemplate` uses
 * `encodeURI`), which leaves `#` and `?` as they are. A file URI has no use
 * for a query or a fragment here, so both are read as part of the name:
 * `file:///ROOT/a#b.txt` names the file `a#b.txt`, exactly as the template
 * expands it. (Reserved expansion also passes `%XX` triplets through, so a
 * name that itself contains one, such as `%41.txt`, reads back only through
 * the URI this server lists, which spells it `%2541.txt`.)
 *
 * @module
 */

import { pathToFileHref } from "./file_url.ts";

// Characters a POSIX file URL's path spells as they are (neither the URL
// parser nor `file_url.ts` escapes them, and they decode to themselves).
const PLAIN_PATH = /^[A-Za-z0-9._+,=@-]+(?:\/[A-Za-z0-9._+,=@-]+)*$/;
const DOT_SEGMENT = /(?:^|\/)\.\.?(?:\/|$)/;

// Whether the root-relative `relative` is spelled the same in its URI:
// plain characters, no empty, "." or ".." segment.
function plain(relative: string): boolean {
  return PLAIN_PATH.test(relative) && !DOT_SEGMENT.test(relative);
}

// Decoded path segments of a file URL, or undefined when one cannot be
// a single path component.
function decodedSegments(
  pathname: string,
  windows: boolean,
): string[] | undefined {
  const segments: string[] = [];
  for (const raw of pathname.split("/").slice(1)) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return undefined; // "%zz" or a broken UTF-8 sequence.
    }
    if (
      /[/\0]/.test(segment) || (windows && segment.includes("\\")) ||
      segment === "." || segment === ".."
    ) {
      return undefined;
    }
    segments.push(segment);
  }
  return segments;
}

/** Options of {@linkcode RootUri}. */
export interface RootUriOptions {
  /** Windows paths; default: whether Deno runs on Windows. */
  windows?: boolean;
}

/** Maps between root-relative POSIX paths and `file://` URIs under a root. */
export class RootUri {
  /** The root's own URI, with a trailing `/`. */
  readonly prefix: string;
  readonly #root: string;
  readonly #rootSegments: string[];
  readonly #windows: boolean;

  /** Make the mapping for the real absolute path `root`. */
  constructor(root: string, options: RootUriOptions = {}) {
    this.#windows = options.windows ?? Deno.build.os === "windows";
    this.#root = root.endsWith("/") ? root.slice(0, -1) : root;
    const href = pathToFileHref(this.#root === "" ? "/" : this.#root, {
      windows: this.#windows,
    });
    this.prefix = href.endsWith("/") ? href : `${href}/`;
    const segments = decodedSegments(
      new URL(this.prefix).pathname,
      this.#windows,
    );
    if (segments === undefined) {
      throw new TypeError(`Cannot make a file URI of the root "${root}"`);
    }
    segments.pop(); // The empty segment after the trailing "/".
    this.#rootSegments = segments;
  }

  /** The canonical URI of the root-relative POSIX path `relative`. */
  uriOf(relative: string): string {
    if (!this.#windows && plain(relative)) return this.prefix + relative;
    return pathToFileHref(`${this.#root}/${relative}`, {
      windows: this.#windows,
    });
  }

  /**
   * Whether the URI of the root-relative path `relative` leads back to it
   * (`relativeOf(uriOf(relative)) === relative`), without parsing a URL
   * for the common names that need no escape.
   */
  roundTrips(relative: string): boolean {
    if (!this.#windows && plain(relative)) return true;
    return this.relativeOf(this.uriOf(relative)) === relative;
  }

  /**
   * The root-relative POSIX path `uri` names, or undefined when it names
   * nothing under the root (another scheme or host, a path outside the
   * root, the root itself, an empty segment, or an encoded separator or
   * NUL). A raw `#` or `?` is part of the name (see the module notes).
   */
  relativeOf(uri: string): string | undefined {
    let url: URL;
    try {
      url = new URL(uri.replaceAll("#", "%23").replaceAll("?", "%3F"));
    } catch {
      return undefined;
    }
    if (url.protocol !== "file:" || url.host !== "") return undefined;
    const segments = decodedSegments(url.pathname, this.#windows);
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
