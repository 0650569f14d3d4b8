/**
 * `resources/list`: the server's resources, one page at a time.
 *
 * @module
 */

import { decodeCursor, pageResult } from "../mcp/pagination.ts";
import type { Handler } from "../mcp/server.ts";
import { resourceForVersion } from "../mcp/protocol_versions.ts";

/**
 * Handle `resources/list`: a page of `server.pageSize` resources, with a
 * `nextCursor` while more remain. A bad cursor is -32602.
 */
export const resourcesList: Handler = async (
  params,
  { server, session, signal },
) => {
  const after = decodeCursor(params.cursor);
  const provider = server.resourcesFor(session);
  if (provider === undefined) return { resources: [] };
  const page = await provider.list(after, server.pageSize, signal);
  return pageResult(
    "resources",
    page.resources.map((resource) =>
      resourceForVersion(resource, session.protocolVersion)
    ),
    page.nextKey,
  );
};
