/**
 * The client's roots: `roots/list` asked once the session is initialized
 * and again on each `notifications/roots/list_changed`, for clients that
 * declared the `roots` capability. What the roots are used for is the
 * application's business: it passes the function called when they may
 * have changed.
 *
 * @module
 */

import { isObject } from "../mcp/jsonrpc.ts";
import type { HandlerContext, MethodSpec } from "../mcp/server.ts";
import type { Session } from "../mcp/session.ts";
import { initialized } from "./initialize.ts";

/** One root a client gave: a URI (`file://` for directories), maybe a name. */
export interface ClientRoot {
  /** The root's URI. */
  uri: string;
  /** The client's name for it. */
  name?: string;
}

/** How long the client has to answer `roots/list`, in milliseconds. */
export const ROOTS_TIMEOUT_MS = 5_000;

/** Whether the client of `session` declared the `roots` capability. */
export function clientHasRoots(session: Session): boolean {
  return isObject(session.clientCapabilities?.roots);
}

/**
 * Ask the client of `ctx.session` for its roots (`roots/list`), waiting at
 * most `timeoutMs`. Entries that are not objects with a string `uri` are
 * dropped: one odd entry does not cost the client its other roots. Rejects
 * when the client did not declare the `roots` capability, answers with an
 * error or without a `roots` array, or not in time. This is the one place
 * the server asks for roots.
 */
export async function listClientRoots(
  ctx: Pick<HandlerContext, "session">,
  timeoutMs: number = ROOTS_TIMEOUT_MS,
): Promise<ClientRoot[]> {
  const result = await ctx.session.request("roots/list", undefined, {
    timeoutMs,
  });
  const roots = isObject(result) ? result.roots : undefined;
  if (!Array.isArray(roots)) {
    throw new TypeError(
      'the client answered roots/list without a "roots" array',
    );
  }
  return roots.flatMap((root) => {
    if (!isObject(root) || typeof root.uri !== "string") return [];
    return typeof root.name === "string"
      ? [{ uri: root.uri, name: root.name }]
      : [{ uri: root.uri }];
  });
}

/**
 * `notifications/initialized` and `notifications/roots/list_changed` for
 * a server that follows its clients' roots: `onRoots` is called with the
 * notification's context when the session has just become initialized,
 * and on each list change after that, provided the client declared the
 * `roots` capability. Merge the result over the default handler map.
 */
export function rootsHandlers(
  onRoots: (ctx: HandlerContext) => void,
): Readonly<Record<string, MethodSpec>> {
  return {
    "notifications/initialized": {
      handler: (params, ctx) => {
        const before = ctx.session.state;
        initialized(params, ctx);
        if (
          before === "initializing" && ctx.session.state === "ready" &&
          clientHasRoots(ctx.session)
        ) {
          onRoots(ctx);
        }
      },
      atOnce: true,
    },
    "notifications/roots/list_changed": {
      handler: (_params, ctx) => {
        if (ctx.session.state === "ready" && clientHasRoots(ctx.session)) {
          onRoots(ctx);
        }
      },
      atOnce: true,
    },
  };
}
