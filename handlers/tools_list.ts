/**
 * `tools/list`: the server's tools sorted by name, a page at a time.
 *
 * @module
 */

import type { Handler } from "../mcp/server.ts";
import { pageResult, paginate } from "../mcp/pagination.ts";
import { toolForVersion } from "../mcp/protocol_versions.ts";
import { toolDefinition } from "../mcp/tool.ts";

/** Handle `tools/list`, each tool as the session's protocol version defines it. */
export const toolsList: Handler = (params, { server, session }) => {
  // Keyset pagination needs items sorted by their key: the tool name.
  const page = paginate(
    server.tools.sorted(),
    params.cursor,
    server.pageSize,
    (tool) => tool.name,
  );
  return pageResult(
    "tools",
    page.items.map((tool) =>
      toolForVersion(toolDefinition(tool), session.protocolVersion)
    ),
    page.nextKey,
  );
};
