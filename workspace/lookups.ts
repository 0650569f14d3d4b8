/**
 * The directories a run of lookups went through (see {@linkcode Lookups}),
 * for `resolve.ts`'s `find` to start from.
 *
 * Invariant: a directory is kept only as a lookup reached it without a
 * link and without a descriptor, and is used only by lookups whose final
 * open is bracketed (`RootFs.openAt`), which checks that its path still
 * leads to it; a lookup that fails after using one clears them all. A
 * file's metadata read ahead was read in a bracket of every directory on
 * its path (`RootFs.lstatEachAt`), is used once, for an open of that name
 * in that very directory, and only if the open is that very file.
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

// Files whose metadata one read ahead takes, at most (one bracket).
const READ_AHEAD = 64;

// Expected paths one read ahead looks through, at most.
const LOOK_AHEAD = 256;

/** A file's metadata, read ahead in a bracket, and the directory it is in. */
interface Ahead {
  dir: DirHandle;
  info: Deno.FileInfo;
}

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
  readonly #ahead = new WeakMap<Tree, Map<string, Ahead>>();
  #expected: readonly string[] = [];
  // Where the next expected lookup is looked for (they come in order).
  #cursor = 0;
  // 1 for an expected path read ahead (or given up) already.
  #done = new Uint8Array(0);

  /**
   * The paths this run will look up, in order, as `find` is asked them:
   * each one's metadata is then read ahead, with up to 63 expected files
   * after it, in one bracket (see {@linkcode Lookups.listedFor}). A
   * lookup out of this order is not read ahead.
   */
  expect(paths: readonly string[]): void {
    this.#expected = paths;
    this.#cursor = 0;
    this.#done = new Uint8Array(paths.length);
  }

  /**
   * The metadata of the file `path` (a name in `dir`, reached without a
   * link) read ahead for this lookup, if any: an open that finds that very
   * file needs no bracket of its own (`RootFs.openAt`'s `listed`). An
   * expected path not read yet is read now, with those after it.
   */
  listedFor(
    tree: Tree,
    path: string,
    dir: DirHandle,
  ): Deno.FileInfo | undefined {
    const at = this.#positionOf(path);
    if (at === undefined) return undefined;
    if (this.#done[at] === 0) this.#readAhead(tree, at, dir);
    const ahead = this.#ahead.get(tree);
    const kept = ahead?.get(path);
    if (kept === undefined) return undefined;
    ahead?.delete(path);
    const same = kept.dir.dev === dir.dev && kept.dir.ino === dir.ino &&
      kept.dir.real === dir.real;
    return same ? kept.info : undefined;
  }

  // The position of `path` in the expected paths: looked for from the
  // last one found on, a little way (lookups come in the expected order,
  // some skipped); undefined when not there.
  #positionOf(path: string): number | undefined {
    const end = Math.min(this.#expected.length, this.#cursor + LOOK_AHEAD);
    for (let at = this.#cursor; at < end; at++) {
      if (this.#expected[at] === path) {
        this.#cursor = at + 1;
        return at;
      }
    }
    return undefined;
  }

  // The metadata of expected path `at` (in `dir`) and of the next ones
  // not read yet, in the directories the run passed or named by their
  // paths, in one bracket; nothing kept when a directory on the way
  // changes meanwhile (each is then opened on its own).
  #readAhead(tree: Tree, at: number, dir: DirHandle): void {
    const passed = this.passed(tree);
    const items: { dir: DirHandle; name: string }[] = [];
    const paths: string[] = [];
    const add = (i: number, dir: DirHandle, slash: number) => {
      this.#done[i] = 1;
      items.push({ dir, name: this.#expected[i].slice(slash + 1) });
      paths.push(this.#expected[i]);
    };
    add(at, dir, this.#expected[at].lastIndexOf("/"));
    const end = Math.min(this.#expected.length, at + LOOK_AHEAD);
    const hinted = new Map<string, DirHandle | undefined>();
    for (let i = at + 1; i < end && items.length < READ_AHEAD; i++) {
      if (this.#done[i] === 1) continue;
      const path = this.#expected[i];
      const slash = path.lastIndexOf("/");
      if (slash <= 0) continue;
      // A directory not passed yet is named by its path: the bracket
      // checks that it leads there (its lookup comes when its file's does).
      const parent = path.slice(0, slash);
      let dir = passed.get(parent)?.stack.at(-1) ?? hinted.get(parent);
      if (dir === undefined && !hinted.has(parent)) {
        dir = tree.fs.dirHint(parent);
        hinted.set(parent, dir);
      }
      if (dir !== undefined) add(i, dir, slash);
    }
    let infos: (Deno.FileInfo | Error)[];
    try {
      infos = tree.fs.lstatEachAt(items);
    } catch {
      return;
    }
    let ahead = this.#ahead.get(tree);
    if (ahead === undefined) {
      ahead = new Map();
      this.#ahead.set(tree, ahead);
    }
    for (let i = 0; i < items.length; i++) {
      const info = infos[i];
      if (info instanceof Error || !info.isFile) continue;
      ahead.set(paths[i], { dir: items[i].dir, info });
    }
  }

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

  /** Forget the directories passed in `tree`, and what was read ahead. */
  clear(tree: Tree): void {
    this.#byTree.delete(tree);
    this.#ahead.delete(tree);
  }
}
