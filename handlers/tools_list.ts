/**
 * `tools/list`: the server's tools, in registration order.
 *
 * @module
 */

import type { Handler } from "../mcp/server.ts";
import { toolDefinition } from "../mcp/tool.ts";

/** Handle `tools/list`. */
export const toolsList: Handler = (_params, { server }) => ({
  tools: server.tools.list().map(toolDefinition),
});
