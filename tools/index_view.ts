/**
 * The part of the index that answers for one call: the index's snapshot
 * and the run of its files a walk from the call's start would yield,
 * when the index can stand for that walk; and what that walk had left out
 * by a given file. Shared by the tools that answer from the index
 * (`search_indexed.ts`, `symbol_indexed.ts`).
 *
 * @module
 */

import type { IndexView, TextIndex } from "../workspace/text_index.ts";
import {
  type ResolvedPath,
  type WalkSkips,
  walkSkips,
} from "../workspace/workspace.ts";
import { macrotask } from "./common.ts";

/**
 * The index, when it can answer for a walk from `start`: built and
 * current, and `start` a directory reached without links (so the walk
 * from it yields a contiguous part of the whole walk, named alike).
 */
export async function viewFor(
  index: TextIndex,
  start: ResolvedPath,
): Promise<{ view: IndexView; from: number; to: number } | undefined> {
  // One turn of the event loop: a change already reported by the system
  // is counted before the index is asked whether it is current.
  await macrotask();
  const view = index.view();
  if (view === undefined || !start.info.isDirectory) return undefined;
  const root = index.root === "/" ? "" : index.root;
  const relative = start.relative;
  if (
    start.absolute !== (relative === "" ? index.root : `${root}/${relative}`)
  ) {
    return undefined;
  }
  const order = view.order;
  if (relative === "") return { view, from: 0, to: order.length };
  // Where a skipped entry lies below the root is not recorded.
  if (view.skipEvents.length > 0) return undefined;
  const prefix = `${relative}/`;
  let from = 0;
  while (
    from < order.length && !view.relative[order[from]].startsWith(prefix)
  ) {
    from++;
  }
  let to = from;
  while (to < order.length && view.relative[order[to]].startsWith(prefix)) to++;
  return { view, from, to };
}

/** What a walk stopped before file position `stop` had left out. */
export function skipsBefore(view: IndexView, stop: number): WalkSkips {
  const skips = walkSkips();
  for (const event of view.skipEvents) {
    if (event.file <= stop) skips[event.kind] += event.count;
  }
  return skips;
}
