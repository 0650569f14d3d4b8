/**
 * The search behind `find_symbol`: files (from a walk, or from the index)
 * are read in order on this thread, through the workspace's confined
 * reads; those whose text holds the name's literal part are parsed on
 * the symbol parser's workers, a few at a time, and their definitions
 * taken in file order. So the answer is that of one file after another,
 * whatever order the parses finish in, and whether the files came from a
 * walk or the index.
 *
 * @module
 */

import type { WalkEntry } from "../workspace/tree.ts";
import { Lookups, type WalkSkips } from "../workspace/workspace.ts";
import type { WorkspaceView } from "../workspace/roots.ts";
import type { DefinitionsResult } from "../symbols/definitions.ts";
import { displayPath, Pacer } from "./common.ts";
import { definitionsIn, readSource } from "./symbol_source.ts";

/**
 * Parses a search keeps in flight at most: enough to keep the workers
 * busy while this thread reads the next files, few enough that little is
 * parsed for nothing past the cap.
 */
export const PARSES_IN_FLIGHT = 4;

// Files taken but not yet done, at most: the walk runs no further ahead
// of a slow parse than this.
const STEPS_AHEAD = 256;

/** What a search looks for. */
export interface SymbolQuery {
  /** Whether a definition's name is wanted. */
  matches: (name: string) => boolean;
  /** Text every wanted name holds ("" when none is known). */
  literal: string;
  /** Only definitions of this kind, when given. */
  kind?: string;
  /** Most definitions to return. */
  limit: number;
  /** Largest file parsed, in bytes. */
  cap: number;
}

/** A file a search may read, in the order of the walk. */
export interface SymbolCandidate {
  /** What `readSource` opens: a walk entry, or a path. */
  target: string | WalkEntry;
  /** Its root-relative path. */
  relative: string;
  /** Its size in bytes, when known before it is opened. */
  size?: number;
  /**
   * Known to hold no wanted definition without reading it (the index
   * says its text lacks the literal, or that it is not text).
   */
  absent?: boolean;
  /**
   * The length of its text as the index holds it: text of another length
   * (or none) means the index is behind, and the search gives up.
   */
  length?: number;
  /** The file the call named (not met in a walk): refusals are answers. */
  named?: boolean;
  /** What the walk had left out when it reached this file. */
  skips(): WalkSkips;
}

/** What a search found. */
export interface SymbolHits {
  /** `path:line kind name` lines, in file order. */
  found: string[];
  /** Files skipped as over the cap. */
  large: string[];
  /** Files that could not be read or parsed. */
  failed: string[];
  /** Source files looked at (not over the cap). */
  files: number;
  /** Whether more definitions matched than `limit`. */
  truncated: boolean;
  /** What the walk left out up to where the search stopped. */
  skips: WalkSkips;
}

/** Thrown by a search when a file no longer is as the index holds it. */
export class StaleIndex extends Error {}

/** Options of {@linkcode searchSymbols}. */
export interface SymbolSearchOptions {
  /** Stops the search: it rejects with the reason at once. */
  signal: AbortSignal;
  /** Told now and then how far the search is. */
  progress(files: number, found: number): void;
  /** What the walk left out once it is done. */
  endSkips(): WalkSkips;
}

// One file, as the search took it: its outcome is kept in file order
// until the files before it are done.
interface Step {
  candidate: SymbolCandidate;
  counted: boolean;
  note?: "large" | "failed";
  parse?: Promise<DefinitionsResult>;
}

/**
 * Search `candidates` of `ws` for the definitions `query` wants; a
 * refusal (the one file named is not source the tools read) is returned
 * as its reason.
 */
export async function searchSymbols(
  ws: WorkspaceView,
  candidates: AsyncIterable<SymbolCandidate> | Iterable<SymbolCandidate>,
  query: SymbolQuery,
  options: SymbolSearchOptions,
): Promise<SymbolHits | { refused: string }> {
  const { matches, literal, kind, limit, cap } = query;
  const hits: SymbolHits = {
    found: [],
    large: [],
    failed: [],
    files: 0,
    truncated: false,
    skips: options.endSkips(),
  };
  // Parses still queued when the search ends are dropped by this.
  const parses = new AbortController();
  const signal = AbortSignal.any([options.signal, parses.signal]);
  const pacer = new Pacer(
    options.signal,
    () => options.progress(hits.files, hits.found.length),
  );
  const steps: Step[] = [];
  let inFlight = 0;

  // Take the first step's outcome; true once the cap is passed.
  const take = async (): Promise<boolean> => {
    const step = steps.shift() as Step;
    const { candidate } = step;
    if (step.counted) hits.files++;
    if (step.note === "large") hits.large.push(candidate.relative);
    if (step.note === "failed") hits.failed.push(candidate.relative);
    if (step.parse === undefined) return false;
    inFlight--;
    const result = await step.parse;
    if (!result.ok) {
      hits.failed.push(candidate.relative);
      return false;
    }
    for (const def of result.definitions) {
      if (!matches(def.name)) continue;
      if (kind !== undefined && def.kind !== kind) continue;
      if (hits.found.length === limit) {
        hits.truncated = true;
        hits.skips = candidate.skips();
        return true;
      }
      hits.found.push(
        `${
          displayPath(candidate.relative)
        }:${def.line} ${def.kind} ${def.name}${
          def.parent === undefined ? "" : ` (in ${def.parent})`
        }`,
      );
    }
    return false;
  };
  // Take what is done, and wait for parses while too many are in flight.
  const settle = async (all: boolean): Promise<boolean> => {
    while (steps.length > 0) {
      if (
        steps[0].parse !== undefined && !all &&
        inFlight < PARSES_IN_FLIGHT && steps.length < STEPS_AHEAD
      ) {
        return false;
      }
      if (await take()) return true;
      // Waiting on parses is time too: progress goes out meanwhile.
      if (pacer.due()) await pacer.pause();
    }
    return false;
  };

  // The files' directories, looked up once for them all (by path: the
  // index's candidates).
  const lookups = new Lookups();
  // Read the step's file and start its parse, when it may hold a wanted
  // definition; a refusal's reason when it is the file named.
  const read = async (step: Step): Promise<string | undefined> => {
    const { candidate } = step;
    let source;
    try {
      source = await readSource(
        ws,
        candidate.target,
        cap,
        options.signal,
        lookups,
      );
    } catch (error) {
      // A file that vanished or became unreadable since the walk.
      if (options.signal.aborted) throw error;
      if (candidate.length !== undefined) throw new StaleIndex();
      step.note = "failed";
      return undefined;
    }
    if (
      candidate.length !== undefined &&
      (!source.ok || source.text.length !== candidate.length)
    ) {
      throw new StaleIndex();
    }
    if (!source.ok) {
      if (source.tooLarge) step.note = "large";
      else if (candidate.named) return source.reason;
      return undefined;
    }
    if (literal !== "" && !source.text.includes(literal)) return undefined;
    step.parse = definitionsIn(source, signal);
    // Awaited in order; until then its rejection is not unhandled.
    step.parse.catch(() => {});
    inFlight++;
    return undefined;
  };

  try {
    for await (const candidate of candidates) {
      if (pacer.due()) await pacer.pause();
      const step: Step = { candidate, counted: false };
      steps.push(step);
      if (candidate.size !== undefined && candidate.size > cap) {
        step.note = "large";
      } else {
        step.counted = true;
        if (!candidate.absent) {
          const refused = await read(step);
          if (refused !== undefined) return { refused };
        }
      }
      if (await settle(false)) return hits;
    }
    await settle(true);
    if (!hits.truncated) hits.skips = options.endSkips();
    return hits;
  } finally {
    parses.abort();
  }
}
