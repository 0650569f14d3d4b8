/**
 * `resources/read`: the contents of one resource.
 *
 * @module
 */

import { resourceNotFound, uriParam } from "../mcp/resource.ts";
import type { Handler } from "../mcp/server.ts";

/**
 * Handle `resources/read`. A missing or malformed `uri` is -32602; a URI
 * that names no readable resource is -32002 with `data: {"uri": …}`.
 */
export const resourcesRead: Handler = async (
  params,
  { server, session, signal },
) => {
  const uri = uriParam(params);
  const provider = server.resourcesFor(session);
  if (provider === undefined) throw resourceNotFound(uri);
  return { contents: await provider.read(uri, signal) };
};
