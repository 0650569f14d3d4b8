/**
 * What a set of roots gives the tools, resources and prompts, and where
 * code that works on a session's files finds it. The app's wiring
 * (`app/roots.ts`) makes these: {@linkcode Served} from directories, and a
 * {@linkcode RootsSource} per server (its own roots, or each client's).
 *
 * @module
 */

import type { Session } from "../mcp/session.ts";
import type { Tool } from "../mcp/tool.ts";
import type { PathResources } from "../resources/provider.ts";
import type { Roots, WorkspaceView } from "../workspace/roots.ts";
import type { TextIndex } from "../workspace/text_index.ts";

/** What one set of roots gives tools and resources. */
export interface Served {
  /** The directories served (real paths), in order. */
  readonly paths: readonly string[];
  /** What tools read through. */
  readonly view: WorkspaceView;
  /** The files as resources, named by the view's paths too. */
  readonly resources: PathResources;
  /** The workspace tools over {@linkcode Served.view}. */
  readonly tools: readonly Tool[];
  /** The index the tools answer from, when one is kept (`ServeOptions.index` in app/roots.ts). */
  readonly index?: TextIndex;
  /**
   * Why nothing is served (the client's roots were refused): every tool
   * call fails with it, and no file is a resource.
   */
  readonly refusal?: string;
}

/**
 * Where code that works on a session's files (tools, completion) finds
 * what the session is served: `ClientRoots` (app/roots.ts), or
 * {@linkcode fixedRoots} for a server whose roots are its own.
 */
export interface RootsSource {
  /** What `session` is served, once a listing in progress is done. */
  servedFor(session: Session): Promise<Served>;
}

/** A {@linkcode RootsSource} that serves every session `served`. */
export function fixedRoots(served: Served): RootsSource {
  const answer = Promise.resolve(served);
  return { servedFor: () => answer };
}

/**
 * A sentence for tool descriptions when several roots are served: how
 * paths name them.
 */
export function rootsNote(roots: Roots): string {
  const names = roots.roots.map((root) =>
    `"${root.name}" (${root.workspace.root})`
  ).join(", ");
  return `Several roots are served, each a top-level directory: ${names}. A path starts with a root's name (for example "${
    roots.roots[0].name
  }/src"), or is absolute inside a root; list_directory with no path lists the roots.`;
}
