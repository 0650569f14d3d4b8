/**
 * What the workspace prompts share: the workspace and its resources, the
 * caps they work within, and the completers of their path arguments.
 *
 * @module
 */

import type { Completer } from "../mcp/completion.ts";
import type { ContentBlock } from "../mcp/tool.ts";
import type { ResourceContents } from "../mcp/resource.ts";
import type { PathResources } from "../resources/provider.ts";
import type { ToolCaps } from "../tools/common.ts";
import { completePath } from "../workspace/complete_path.ts";
import { WorkspaceError } from "../workspace/errors.ts";
import type { WorkspaceView } from "../workspace/roots.ts";

/** What a workspace prompt is made from. */
export interface PromptSource {
  /**
   * What is served, as the tools see it: one workspace, or several roots
   * whose paths start with the root's name.
   */
  workspace: WorkspaceView;
  /** Its files as resources, named by the view's paths: the prompts embed them. */
  resources: PathResources;
  /** The limits the tools work within; the prompts keep to them too. */
  caps: ToolCaps;
}

/** Completes paths under the root (files and directories) as they are typed. */
export function pathCompleter(
  ws: WorkspaceView,
  options: { directoriesOnly?: boolean } = {},
): Completer {
  return (value, { signal }) => completePath(ws, value, { ...options, signal });
}

/**
 * The contents of the file at `path`, a path of the view as it resolved
 * (`(await workspace.resolve(p)).relative`), read as a resource. A path no
 * resource URI names (the top of several roots) is refused as no file.
 */
export async function readPath(
  resources: PathResources,
  path: string,
  signal: AbortSignal,
): Promise<ResourceContents[]> {
  const uri = resources.uriOfPath(path);
  if (uri === undefined) {
    throw new WorkspaceError(
      "not_a_file",
      path,
      `"${path}" is not a file; name a file inside a root.`,
    );
  }
  return await resources.read(uri, signal);
}

/** An embedded-resource content block for `contents`. */
export function embedded(contents: ResourceContents): ContentBlock {
  return { type: "resource", resource: { ...contents } };
}
