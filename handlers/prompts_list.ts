/**
 * `prompts/list`: the server's prompts sorted by name, a page at a time.
 *
 * @module
 */

import type { Handler } from "../mcp/server.ts";
import { pageResult, paginate } from "../mcp/pagination.ts";
import { promptForVersion } from "../mcp/protocol_versions.ts";
import { promptDefinition } from "../mcp/prompt.ts";

/** Handle `prompts/list`, each prompt as the session's protocol version defines it. */
export const promptsList: Handler = (params, { server, session }) => {
  // Keyset pagination needs items sorted by their key: the prompt name.
  const page = paginate(
    server.prompts.sorted(),
    params.cursor,
    server.pageSize,
    (prompt) => prompt.name,
  );
  return pageResult(
    "prompts",
    page.items.map((prompt) =>
      promptForVersion(promptDefinition(prompt), session.protocolVersion)
    ),
    page.nextKey,
  );
};
