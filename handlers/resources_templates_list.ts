/**
 * `resources/templates/list`: URI templates that address the server's
 * resources.
 *
 * @module
 */

import { paginate } from "../mcp/pagination.ts";
import type { Handler } from "../mcp/server.ts";

/** Handle `resources/templates/list` (paginated like every list method). */
export const resourcesTemplatesList: Handler = async (params, { server }) => {
  await server.ready();
  const templates = server.resources?.templates() ?? [];
  const page = paginate(
    templates,
    params.cursor,
    server.pageSize,
    (template) => template.uriTemplate,
  );
  return page.nextCursor === undefined
    ? { resourceTemplates: page.items }
    : { resourceTemplates: page.items, nextCursor: page.nextCursor };
};
