/**
 * `notifications/cancelled`: the client no longer wants a request's result.
 *
 * @module
 */

import { idKey, type RequestId } from "../mcp/jsonrpc.ts";
import type { Handler } from "../mcp/server.ts";

/**
 * Abort the named request's handler; its response, if it still comes, is
 * not sent. Unknown or finished requests are ignored, as the spec asks.
 */
export const cancelled: Handler = (params, { session }) => {
  const id = params.requestId;
  if (typeof id !== "string" && typeof id !== "number") return;
  const request = session.inFlight.get(idKey(id as RequestId));
  request?.abort(
    typeof params.reason === "string"
      ? params.reason
      : "cancelled by the client",
  );
};
