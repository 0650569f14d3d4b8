/**
 * `subscriptions/listen` (MCP 2026-07-28): one long-lived request through
 * which the client receives the change notifications it opted in to
 * (`toolsListChanged`, `promptsListChanged`, `resourcesListChanged`,
 * `resourceSubscriptions`), each tagged with the request's id as
 * `io.modelcontextprotocol/subscriptionId`. It replaces
 * `resources/subscribe`. The request ends when the client cancels it (no
 * answer), or when the client's input ends (a closing result).
 *
 * @module
 */

import { RequestSession } from "../mcp/era_2026.ts";
import {
  describeError,
  ErrorCode,
  invalidParams,
  isObject,
  type JsonObject,
  type RequestId,
  RpcError,
} from "../mcp/jsonrpc.ts";
import { declaresListChanged, notifyListChanged } from "../mcp/list_changed.ts";
import type { ResourceWatch } from "../mcp/resource.ts";
import type { Handler, McpServer } from "../mcp/server.ts";
import { Session } from "../mcp/session.ts";
import { canSubscribe, watchResources } from "../mcp/watch.ts";

/** The `_meta` key that tags a subscription's notifications. */
export const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

// Each opt-in flag, the notification it lets through, and the list whose
// `listChanged` capability it needs.
const LIST_FLAGS = [
  ["toolsListChanged", "notifications/tools/list_changed", "tools"],
  ["promptsListChanged", "notifications/prompts/list_changed", "prompts"],
  ["resourcesListChanged", "notifications/resources/list_changed", "resources"],
] as const;

/**
 * What the server agrees to send of what `requested` asks: the flags of
 * lists whose changes it announces, and the resource URIs when it can
 * watch resources.
 */
export function agreedFilter(
  server: McpServer,
  requested: JsonObject,
): JsonObject {
  const agreed: JsonObject = {};
  for (const [flag, , kind] of LIST_FLAGS) {
    if (
      requested[flag] === true &&
      declaresListChanged(server.capabilities, kind)
    ) agreed[flag] = true;
  }
  const uris = requested.resourceSubscriptions;
  if (uris !== undefined) {
    if (!Array.isArray(uris) || uris.some((uri) => typeof uri !== "string")) {
      throw invalidParams(
        '"notifications.resourceSubscriptions" must be an array of URIs.',
      );
    }
    if (canSubscribe(server)) agreed.resourceSubscriptions = uris;
  }
  return agreed;
}

/**
 * One subscription's view of the connection: it sends only what the
 * client opted in to, tagged with the subscription's id.
 */
class Subscription extends Session {
  readonly #out: Session;
  readonly #allowed: Set<string>;
  readonly #tag: JsonObject;

  constructor(out: Session, id: RequestId, agreed: JsonObject) {
    super(() => {});
    this.#out = out;
    this.#tag = { [SUBSCRIPTION_ID]: id };
    this.#allowed = new Set(
      LIST_FLAGS.filter(([flag]) => agreed[flag] === true).map(([, m]) => m),
    );
    const uris = agreed.resourceSubscriptions;
    if (Array.isArray(uris)) {
      this.#allowed.add("notifications/resources/updated");
      for (const uri of uris) this.subscriptions.add(uri as string);
    }
    this.protocolVersion = out.protocolVersion;
    this.state = "ready";
  }

  override notify(method: string, params?: JsonObject): void {
    if (this.state === "closed" || !this.#allowed.has(method)) return;
    const { _meta, ...rest } = params ?? {};
    this.#out.notify(method, {
      _meta: { ...(isObject(_meta) ? _meta : {}), ...this.#tag },
      ...rest,
    });
  }
}

/** Handle `subscriptions/listen`. */
export const subscriptionsListen: Handler = (params, ctx) => {
  const { server, session } = ctx;
  if (!(session instanceof RequestSession) || ctx.requestId === undefined) {
    throw new RpcError(
      ErrorCode.MethodNotFound,
      describeError(
        ErrorCode.MethodNotFound,
        "subscriptions/listen belongs to MCP 2026-07-28; name that version in the request's _meta (or use resources/subscribe after initialize).",
      ),
    );
  }
  const requested = params.notifications;
  if (!isObject(requested)) {
    throw invalidParams(
      '"notifications" must be an object naming what to listen to, such as {"toolsListChanged": true}.',
    );
  }
  const id = ctx.requestId;
  const agreed = agreedFilter(server, requested);
  // The acknowledgement comes first: nothing of this subscription before it.
  session.notify("notifications/subscriptions/acknowledged", {
    _meta: { [SUBSCRIPTION_ID]: id },
    notifications: agreed,
  });
  const subscription = new Subscription(session, id, agreed);
  const stopLists = server.onListChanged((kind) =>
    notifyListChanged(server.capabilities, subscription, kind)
  );
  let watch: ResourceWatch | undefined;
  if (
    agreed.resourceSubscriptions !== undefined ||
    agreed.resourcesListChanged === true
  ) {
    // The watch delivers to the subscription as to a subscribed session.
    watch = watchResources(server, subscription);
  }
  session.holdOpen();
  return new Promise<JsonObject>((resolve) => {
    let open = true;
    const end = () => {
      if (!open) return;
      open = false;
      stopLists();
      watch?.close();
      subscription.close();
      resolve({ _meta: { [SUBSCRIPTION_ID]: id } });
    };
    // Cancelled: the answer is dropped. Input over: a closing answer.
    ctx.signal.addEventListener("abort", end, { once: true });
    session.onInputEnd(end);
  });
};
