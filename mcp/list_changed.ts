/**
 * `notifications/*\/list_changed`: telling a session that the server's
 * tools, resources or prompts changed, when (and only when) the server
 * declared `listChanged` for that list and the session is initialized.
 *
 * @module
 */

import type { JsonObject } from "./jsonrpc.ts";
import type { Session } from "./session.ts";

/** The lists whose changes a server announces. */
export type ListKind = "tools" | "resources" | "prompts";

/** Whether `capabilities` declare `listChanged` for `kind`. */
export function declaresListChanged(
  capabilities: JsonObject,
  kind: ListKind,
): boolean {
  const capability = capabilities[kind];
  return typeof capability === "object" && capability !== null &&
    !Array.isArray(capability) &&
    (capability as JsonObject).listChanged === true;
}

/**
 * Send `session` the `notifications/KIND/list_changed` for `kind` when
 * `capabilities` (the server's) declare it and the session is initialized;
 * otherwise nothing. Returns whether it was sent.
 */
export function notifyListChanged(
  capabilities: JsonObject,
  session: Session,
  kind: ListKind,
): boolean {
  if (session.state !== "ready" || !declaresListChanged(capabilities, kind)) {
    return false;
  }
  session.notify(`notifications/${kind}/list_changed`);
  return true;
}
