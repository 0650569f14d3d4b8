/**
 * `notifications/cancelled`: the client no longer wants a request's result.
 *
 * @module
 */

import type { RequestId } from "../mcp/jsonrpc.ts";
import type { Handler } from "../mcp/server.ts";

/**
 * Abort the named request's handler and drop its answer: nothing is sent
 * for it, whether it is queued, running, or finished but not yet written.
 * Unknown or finished requests are ignored, as the specification asks.
 */
export const cancelled: Handler = (params, { session }) => {
  const id = params.requestId;
  if (typeof id !== "string" && typeof id !== "number") return;
  session.cancel(
    id as RequestId,
    typeof params.reason === "string"
      ? params.reason
      : "cancelled by the client",
  );
};
