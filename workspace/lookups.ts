/**
 * The directories a run of lookups went through (see {@linkcode Lookups}),
 * for `resolve.ts`'s `find` to start from.
 *
 * Invariant: a directory is kept only as a lookup reached it without a
 * link and without a descriptor, and is used only by lookups whose final
 * open is bracketed (`RootFs.openAt`), which checks that its path still
 * leads to it; a lookup that fails after using one clears them all.
 *
 * @module
 */

import type { Level } from "./ignore_stack.ts";
import type { DirHandle } from "./secure_fs.ts";
import type { Tree } from "./tree.ts";

/**
 * A directory a lookup went through: the directories held on the way to
 * it (itself last), and the ignore levels of the path as asked.
 */
export interface Passed {
  /** The directories from the root down to it. */
  stack: DirHandle[];
  /** The ignore levels of the path as asked, down to it. */
  levels: Level[];
}

// Directories kept per tree by one Lookups, at most (then it starts over).
const MAX_PASSED = 16_384;

/**
 * The directories a run of lookups (one search's candidate files, say)
 * went through, by the path that reached them: a later lookup of the run
 * starts from the deepest one its path begins with, instead of stepping
 * down from the root and reading the ignore rules of every directory on
 * the way again. Kept only for directories reached without a link and
 * without a descriptor (the re-checked mode), and used only by lookups
 * whose final open is bracketed, which checks that the path still leads
 * to the directory held (`RootFs.openAt`). The ignore rules are those of
 * the run's first lookup through a directory, as a walk keeps them for
 * its length. A lookup that fails after using them clears them (see
 * {@linkcode Lookups.clear}), so that a retry starts from the root.
 */
export class Lookups {
  readonly #byTree = new WeakMap<Tree, Map<string, Passed>>();

  /** The directories passed in `tree` (for `find`), by the path asked. */
  passed(tree: Tree): Map<string, Passed> {
    let passed = this.#byTree.get(tree);
    if (passed === undefined) {
      passed = new Map();
      this.#byTree.set(tree, passed);
    }
    if (passed.size >= MAX_PASSED) passed.clear();
    return passed;
  }

  /** Forget the directories passed in `tree`. */
  clear(tree: Tree): void {
    this.#byTree.delete(tree);
  }
}
