/**
 * What the symbol tools (`outline`, `find_symbol`, `read_symbol`) share:
 * a file's text read through the workspace's confined reads, refused with
 * a reason the model can act on when it is not source the tools read (an
 * unsupported language, too large, binary), and its definitions from
 * `symbols/`, parsed on a worker thread loaded on first use.
 *
 * @module
 */

import {
  decodeText,
  isProbablyText,
  SNIFF_BYTES,
} from "../workspace/content.ts";
import type { WorkspaceView } from "../workspace/roots.ts";
import type { WalkEntry } from "../workspace/tree.ts";
import type { Lookups } from "../workspace/workspace.ts";
import {
  EXTENSIONS,
  languageOf,
  type SymbolLanguage,
} from "../symbols/languages.ts";
import type { DefinitionsResult } from "../symbols/definitions.ts";
import { displayPath, type ToolCaps } from "./common.ts";

/** Largest file the symbol tools parse (bytes), below `--max-read-bytes`. */
export const MAX_SYMBOL_FILE_BYTES = 512 * 1024;

/** The byte cap on parsed files under `caps`. */
export function symbolFileCap(caps: Pick<ToolCaps, "maxReadBytes">): number {
  return Math.min(caps.maxReadBytes, MAX_SYMBOL_FILE_BYTES);
}

/** A source file, read; or why it is not one. */
export type SourceFile =
  | {
    ok: true;
    relative: string;
    text: string;
    language: SymbolLanguage;
  }
  | { ok: false; relative: string; reason: string; tooLarge?: boolean };

/** The sentence for a file in a language the tools do not read. */
export function unsupportedNote(relative: string): string {
  return `${
    displayPath(relative)
  } is not in a language the symbol tools read (files ending in .${
    EXTENSIONS.join(", .")
  }). Use read_file to read it, or search_text to find a name in it.`;
}

/**
 * The text of the file `target` names, read through `ws` (so the
 * workspace's confinement, `.git` and `.gitignore` rules apply), when it
 * is a text file of at most `cap` bytes in a language the tools read. A
 * path looked up as one of a run (`lookups`) starts from the directories
 * the run passed.
 */
export async function readSource(
  ws: WorkspaceView,
  target: string | WalkEntry,
  cap: number,
  signal: AbortSignal,
  lookups?: Lookups,
): Promise<SourceFile> {
  using file = await ws.open(target, lookups);
  const relative = file.relative;
  const shown = displayPath(relative);
  if (file.info.isDirectory) {
    return {
      ok: false,
      relative,
      reason:
        `${shown} is a directory; use find_symbol with it as "path", or list_directory.`,
    };
  }
  if (!file.info.isFile) {
    return {
      ok: false,
      relative,
      reason: `${shown} is not a regular file and cannot be read.`,
    };
  }
  const language = languageOf(relative);
  if (language === undefined) {
    return { ok: false, relative, reason: unsupportedNote(relative) };
  }
  const tooLarge = (size: number | string) => ({
    ok: false as const,
    relative,
    tooLarge: true,
    reason:
      `${shown} is ${size} bytes, over the ${cap}-byte limit for symbols; use read_file with offset and limit, or search_text, instead.`,
  });
  if (file.info.size > cap) return tooLarge(file.info.size);
  const { bytes, truncated } = await file.read({
    maxBytes: cap,
    signal,
    skipLarger: true,
  });
  if (truncated) return tooLarge(`over ${cap}`);
  if (!isProbablyText(bytes.subarray(0, SNIFF_BYTES))) {
    return {
      ok: false,
      relative,
      reason:
        `${shown} is a binary file, not ${language.name} source; use file_info for its details.`,
    };
  }
  return { ok: true, relative, text: decodeText(bytes), language };
}

/**
 * The definitions of `source`, parsed with its language's grammar on a
 * worker thread (`symbol_parser.ts`); rejects with `signal`'s reason as
 * soon as it aborts.
 */
export async function definitionsIn(
  source: { text: string; language: SymbolLanguage },
  signal?: AbortSignal,
): Promise<DefinitionsResult> {
  const { parseDefinitions } = await import("./symbol_parser.ts");
  return parseDefinitions(source.language, source.text, signal);
}

/** "12" for one line, "12-40" for a range. */
export function lineRange(start: number, end: number): string {
  return start === end ? `${start}` : `${start}-${end}`;
}
