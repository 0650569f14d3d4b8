/**
 * The files of a workspace in walk order, resumable after any file: what
 * `resources/list` pages through.
 *
 * Resuming after `a/b/c.txt` reads only the directories on that path
 * (`a/b`, then `a`, then the root) and walks what sorts after it there,
 * skipping earlier entries unchecked, so page N costs what page N shows,
 * not what pages 1..N-1 showed.
 *
 * @module
 */

import {
  type WalkEntry,
  type Workspace,
  WorkspaceError,
} from "../workspace/workspace.ts";

/** A resume key that this module cannot have produced. */
export class BadResumeKey extends Error {
  /** Make the error for `key`. */
  constructor(key: string) {
    super(`not a workspace path: ${JSON.stringify(key)}`);
    this.name = "BadResumeKey";
  }
}

// Keys are root-relative POSIX paths as the walk reports them.
function splitKey(key: string): string[] {
  const parts = key.split("/");
  if (
    key.length === 0 ||
    parts.some((part) =>
      part === "" || part === "." || part === ".." || part.includes("\0")
    )
  ) {
    throw new BadResumeKey(key);
  }
  return parts;
}

// The entries of `walk`, or none when its directory is gone or excluded:
// a page resuming in a directory deleted since has nothing left there.
async function* orNothing(
  walk: AsyncIterableIterator<WalkEntry>,
): AsyncGenerator<WalkEntry> {
  try {
    yield* walk;
  } catch (error) {
    if (error instanceof WorkspaceError) return;
    throw error;
  }
}

/**
 * The regular files of `workspace` in its walk order (depth-first, names
 * in code-unit order at each level), starting right after the file whose
 * root-relative path is `after` (from the start when undefined). `after`
 * need not exist any more. Throws {@linkcode BadResumeKey} for a key that
 * is not a root-relative path.
 */
export async function* filesAfter(
  workspace: Workspace,
  after: string | undefined,
  signal?: AbortSignal,
): AsyncGenerator<WalkEntry> {
  if (after === undefined) {
    for await (const entry of workspace.walk({ signal, sizes: true })) {
      if (entry.isFile) yield entry;
    }
    return;
  }
  const parts = splitKey(after);
  // Innermost directory first: what follows `after` in its directory, then
  // what follows that directory in its parent, and so on up to the root.
  for (let level = parts.length - 1; level >= 0; level--) {
    const rest = workspace.walk({
      path: parts.slice(0, level).join("/"),
      after: parts[level],
      signal,
      sizes: true,
    });
    for await (const entry of orNothing(rest)) {
      if (entry.isFile) yield entry;
    }
  }
}
