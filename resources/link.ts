/**
 * `resource_link` content blocks, so tools that name files (find_files,
 * search_text, list_directory) can hand the client the same resource
 * identity that `resources/list` and `resources/read` use.
 *
 * @module
 */

import { resourceLink as linkBlock } from "../mcp/content.ts";
import type { ContentBlock } from "../mcp/tool.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { mimeTypeOf } from "../workspace/mime_lazy.ts";
import { RootUri } from "./uri.ts";

/** Optional fields of a resource link. */
export interface ResourceLinkOptions {
  /** Human-readable name. */
  title?: string;
  /** What the file is, or why it is linked (a match's line, say). */
  description?: string;
  /** Size in bytes, when the caller already knows it. */
  size?: number;
}

const rootUris = new WeakMap<Workspace, RootUri>();

/**
 * A `resource_link` block for the file at `relative` (a root-relative
 * POSIX path as the workspace reports it): its canonical `file://` URI, the
 * path as name, and the MIME type by name when known. Keys in wire order:
 * type, uri, name, title, description, mimeType, size.
 */
export async function resourceLink(
  workspace: Workspace,
  relative: string,
  options: ResourceLinkOptions = {},
): Promise<ContentBlock> {
  let uris = rootUris.get(workspace);
  if (uris === undefined) {
    uris = new RootUri(workspace.root);
    rootUris.set(workspace, uris);
  }
  return linkBlock({
    uri: uris.uriOf(relative),
    name: relative,
    title: options.title,
    description: options.description,
    mimeType: await mimeTypeOf(relative),
    size: options.size,
  });
}
