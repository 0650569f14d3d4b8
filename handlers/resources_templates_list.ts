/**
 * `resources/templates/list`: URI templates that address the server's
 * resources.
 *
 * @module
 */

import { pageResult, paginate } from "../mcp/pagination.ts";
import type { Handler } from "../mcp/server.ts";
import { resourceForVersion } from "../mcp/protocol_versions.ts";

/** Handle `resources/templates/list` (paginated like every list method). */
export const resourcesTemplatesList: Handler = async (
  params,
  { server, session },
) => {
  const provider = server.resourcesFor(session);
  // A provider whose resources are still being found (a client's roots
  // being listed) says so: its templates are those of what it will serve.
  await provider?.settled?.();
  const templates = (provider?.templates() ?? []).map((
    template,
  ) => resourceForVersion(template, session.protocolVersion));
  const page = paginate(
    templates,
    params.cursor,
    server.pageSize,
    (template) => template.uriTemplate,
  );
  return pageResult("resourceTemplates", page.items, page.nextKey);
};
