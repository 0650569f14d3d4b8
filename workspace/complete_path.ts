/**
 * Path completion: the paths under the root that begin with what a user
 * has typed so far, one directory level at a time, as a shell completes
 * them. Everything goes through the workspace's walk, so only what the
 * workspace serves is suggested: nothing `.gitignore` excludes (unless the
 * workspace includes ignored files), nothing outside the root.
 *
 * @module
 */

import { WorkspaceError } from "./errors.ts";
import type { WorkspaceView } from "./roots.ts";

/** Options of {@linkcode completePath}. */
export interface CompletePathOptions {
  /** Most paths returned; `total` still counts every match. Default 100. */
  limit?: number;
  /** Suggest only directories (each still ends with `/`). Default false. */
  directoriesOnly?: boolean;
  /** Stops the listing (the call then throws the reason). */
  signal?: AbortSignal;
}

/** What {@linkcode completePath} found. */
export interface PathCompletion {
  /** Matching paths relative to the root, directories ending in `/`, sorted. */
  values: string[];
  /** How many paths matched in all. */
  total: number;
}

/**
 * The entries of the directory `typed` is in whose names begin with its
 * last segment: `src/ma` suggests `src/main.ts` and `src/macros/`. A
 * leading `./` or `/` is ignored. A directory that does not exist, or that
 * the workspace refuses (outside the root, ignored), suggests nothing.
 * Over several roots (a {@linkcode WorkspaceView} such as `Roots`), the
 * top suggests the roots' names and `NAME/…` goes on inside that root.
 *
 * @example
 * ```ts ignore
 * const { values } = await completePath(workspace, "src/");
 * ```
 */
export async function completePath(
  ws: Pick<WorkspaceView, "walk">,
  typed: string,
  options: CompletePathOptions = {},
): Promise<PathCompletion> {
  const limit = options.limit ?? 100;
  const path = typed.replace(/^(\.\/|\/)+/, "");
  const slash = path.lastIndexOf("/");
  const dir = slash < 0 ? "" : path.slice(0, slash);
  const prefix = path.slice(slash + 1);
  const matches: string[] = [];
  try {
    for await (
      const entry of ws.walk({ path: dir, maxDepth: 1, signal: options.signal })
    ) {
      const name = entry.relative.slice(entry.relative.lastIndexOf("/") + 1);
      if (!name.startsWith(prefix)) continue;
      if (entry.isDirectory) matches.push(entry.relative + "/");
      else if (!options.directoriesOnly) matches.push(entry.relative);
    }
  } catch (error) {
    if (error instanceof WorkspaceError) return { values: [], total: 0 };
    throw error;
  }
  // Hidden entries last unless asked for: they are rarely what is meant.
  const hidden = (p: string) => prefix === "" && /(^|\/)\.[^/]*\/?$/.test(p);
  matches.sort((a, b) =>
    Number(hidden(a)) - Number(hidden(b)) || (a < b ? -1 : a > b ? 1 : 0)
  );
  return { values: matches.slice(0, limit), total: matches.length };
}
