/**
 * What the workspace tools share: their caps, annotations, and the glob
 * library they load on first use.
 *
 * @module
 */

import { DEFAULTS } from "../cli/flags.ts";
import type { ToolAnnotations } from "../mcp/tool.ts";

/** Limits on what one tool call returns; each is settable by flag. */
export interface ToolCaps {
  /** Most entries `list_directory` and `find_files` return. */
  maxEntries: number;
  /** Most matches `search_text` returns. */
  maxMatches: number;
  /** Most bytes of file content one call reads or returns. */
  maxReadBytes: number;
  /** Deepest level `list_directory` descends to. */
  maxDepth: number;
}

/** Default caps: the defaults of the flags that set them. */
export const DEFAULT_CAPS: ToolCaps = {
  maxEntries: DEFAULTS.maxEntries,
  maxMatches: DEFAULTS.maxMatches,
  maxReadBytes: DEFAULTS.maxReadBytes,
  maxDepth: DEFAULTS.maxDepth,
};

/** Every workspace tool only reads, repeatably, inside the root. */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  idempotentHint: true,
  openWorldHint: false,
};

type Picomatch = (
  glob: string,
  options?: Record<string, unknown>,
) => (path: string) => boolean;

let picomatch: Promise<Picomatch> | undefined;

/**
 * A matcher for a glob over root-relative POSIX paths. A pattern without
 * "/" matches a file's name anywhere ("*.ts"); one with "/" matches the
 * path relative to `base` ("src/**\/*.ts" under the root).
 */
export async function globMatcher(
  pattern: string,
  base = "",
): Promise<(relative: string) => boolean> {
  const pm =
    await (picomatch ??= import("picomatch").then((m) =>
      m.default as unknown as Picomatch
    ));
  // dot: true because .git is excluded by the workspace already, and
  // dotfiles such as .gitignore are ordinary files to a code reader.
  const test = pm(pattern, { dot: true });
  if (!pattern.includes("/")) {
    return (relative) => test(relative.slice(relative.lastIndexOf("/") + 1));
  }
  const prefix = base === "" ? "" : `${base}/`;
  return (relative) =>
    test(
      relative.startsWith(prefix) ? relative.slice(prefix.length) : relative,
    );
}

/** "1 entry" / "2 entries". */
export function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}
