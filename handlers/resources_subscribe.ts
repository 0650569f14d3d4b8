/**
 * `resources/subscribe` and `resources/unsubscribe`: ask for (or stop)
 * `notifications/resources/updated` about one resource. Offered only when
 * the server watches its resources (`--watch`); otherwise -32601.
 *
 * @module
 */

import {
  describeError,
  EMPTY_RESULT,
  ErrorCode,
  RpcError,
} from "../mcp/jsonrpc.ts";
import { resourceNotFound, uriParam } from "../mcp/resource.ts";
import type { Handler, McpServer } from "../mcp/server.ts";
import { canSubscribe } from "../mcp/watch.ts";

function requireSubscribe(server: McpServer, method: string): void {
  if (!canSubscribe(server)) {
    throw new RpcError(
      ErrorCode.MethodNotFound,
      describeError(
        ErrorCode.MethodNotFound,
        `this server does not offer "${method}"; start it with --watch to subscribe to resource updates.`,
      ),
    );
  }
}

/**
 * Handle `resources/subscribe`: remember the resource's canonical URI for
 * this session. Subscribing twice is the same as once; a URI that names no
 * resource is -32002.
 */
export const resourcesSubscribe: Handler = async (
  params,
  { server, session },
) => {
  requireSubscribe(server, "resources/subscribe");
  const uri = uriParam(params);
  session.subscriptions.add(
    await server.resourcesFor(session)!.canonicalUri(uri),
  );
  return EMPTY_RESULT;
};

/**
 * Handle `resources/unsubscribe`: forget the subscription. Unsubscribing
 * from an existing resource not subscribed to is fine; a URI that names
 * neither a subscription nor a resource is -32002.
 */
export const resourcesUnsubscribe: Handler = async (
  params,
  { server, session },
) => {
  requireSubscribe(server, "resources/unsubscribe");
  const uri = uriParam(params);
  const provider = server.resourcesFor(session)!;
  // A subscribed file may be gone by now: forgetting it must still work.
  const normal = provider.normalizeUri(uri);
  if (normal === undefined) throw resourceNotFound(uri);
  if (session.subscriptions.delete(normal)) return EMPTY_RESULT;
  session.subscriptions.delete(await provider.canonicalUri(uri));
  return EMPTY_RESULT;
};
