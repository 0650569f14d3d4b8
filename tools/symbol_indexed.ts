/**
 * `find_symbol`'s files from the workspace's index (`--index`) instead of
 * a walk: the same files in the same order, each with its size, so that
 * only the files whose text can hold the name's literal part are read.
 * The index's trigram postings tell which those are (a literal of three
 * characters or more gives trigrams; a shorter one reads every source
 * file, still without a walk). The search's answer is the walk's: a file
 * that is no longer as the index holds it ends the search with
 * `StaleIndex`, and the tool walks instead.
 *
 * @module
 */

import { FILE_TEXT, type TextIndex } from "../workspace/text_index.ts";
import { trigramsOf } from "../workspace/trigrams.ts";
import type { ResolvedPath, WalkSkips } from "../workspace/workspace.ts";
import { languageOf } from "../symbols/languages.ts";
import { skipsBefore, viewFor } from "./index_view.ts";
import { StaleIndex, type SymbolCandidate } from "./symbol_search.ts";

/** The files of a search from the index, and the walk's skips at its end. */
export interface IndexedCandidates {
  /** The source files, in walk order. */
  candidates: Iterable<SymbolCandidate>;
  /** What the walk left out, once done. */
  endSkips(): WalkSkips;
}

/**
 * The files a walk of `start` would give `find_symbol`, from `index`,
 * marked absent where their text cannot hold `literal`; undefined when
 * the index cannot stand for that walk (not current, a start reached
 * through a link…).
 */
export async function indexedCandidates(
  index: TextIndex,
  start: ResolvedPath,
  literal: string,
): Promise<IndexedCandidates | undefined> {
  const found = await viewFor(index, start);
  if (found === undefined) return undefined;
  const { view, from, to } = found;
  const trigrams = trigramsOf(literal);
  const marks = trigrams.length === 0 ? undefined : view.matching(trigrams);
  function* candidates(): Generator<SymbolCandidate> {
    for (let at = from; at < to; at++) {
      const id = view.order[at];
      const relative = view.relative[id];
      if (languageOf(relative) === undefined) continue;
      const size = view.size(id);
      // Unknown where the file could not be read: what the walk makes of
      // it (over the cap, or unreadable) is not known here.
      if (Number.isNaN(size)) throw new StaleIndex();
      const text = view.kinds[id] === FILE_TEXT;
      yield {
        target: relative,
        relative,
        size,
        // Not text (binary: a file over the read cap is over the size
        // cap too), or text without every trigram of the literal.
        absent: !text || (marks !== undefined && marks[id] !== 1),
        length: text ? view.lengths[id] : undefined,
        skips: () => skipsBefore(view, at),
      };
    }
  }
  return {
    candidates: candidates(),
    endSkips: () => skipsBefore(view, view.order.length),
  };
}
