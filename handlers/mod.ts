/**
 * The method registry: one row per MCP method this server can answer,
 * holding its handler and everything else that holds for it (see
 * `MethodFacts` in `mcp/methods.ts`): whether it is answered at once, the
 * capability it declares, the protocol versions it exists in, and for
 * 2026-07-28 its caching hint, `Mcp-Name` field and whether it may ask the
 * client for input. The server reads all of these from the row; nothing
 * else lists methods. Adding a method is one module in this folder and one
 * row here.
 *
 * Methods that serve tools and resources load their module on first call
 * (lazyHandler): start-up and the handshake never pay for them, and they
 * run once the server's `setup` is done.
 *
 * @module
 */

import {
  type HandlerMap,
  lazyHandler,
  type MethodSpec,
} from "../mcp/server.ts";
import { cancelled } from "./cancelled.ts";
import { initialize, initialized } from "./initialize.ts";
import { loggingSetLevel } from "./logging_set_level.ts";
import { ping } from "./ping.ts";

/**
 * Which map a row belongs to: the default one, one per `--features`
 * feature, or an extension's.
 */
export type MethodGroup =
  | "default"
  | "prompts"
  | "completion"
  | "logging"
  | "tasks"
  | "skills";

/** A row of {@linkcode METHODS}: a method's spec and its group. */
export interface MethodRow extends MethodSpec {
  /** The map it belongs to. */
  readonly group: MethodGroup;
}

// Cached by everyone (public) and fresh until the server says the list
// changed; files belong to whoever runs the server and may change at any
// time, so their list and contents are private and fresh for a few seconds.
const PUBLIC = { ttlMs: 300_000, cacheScope: "public" } as const;
const PRIVATE = { ttlMs: 5_000, cacheScope: "private" } as const;
// The handshake era's last version, for methods 2026-07-28 removed.
const HANDSHAKE = "2025-11-25";
// The stateless revision's first version.
const STATELESS = "2026-07-28";
const SUBSCRIBE_INSTEAD =
  "use subscriptions/listen with resourceSubscriptions instead";

/** Every method this server can answer, by name. */
export const METHODS: Readonly<Record<string, MethodRow>> = {
  "ping": {
    group: "default",
    handler: ping,
    atOnce: true,
    until: HANDSHAKE,
    instead: "any request (server/discover, say) shows the server is alive",
  },
  "initialize": {
    group: "default",
    handler: initialize,
    atOnce: true,
    until: HANDSHAKE,
    instead:
      'a stateless client needs no handshake (send initialize without "io.modelcontextprotocol/protocolVersion" in _meta for an older version)',
  },
  "notifications/initialized": {
    group: "default",
    handler: initialized,
    atOnce: true,
  },
  "notifications/cancelled": {
    group: "default",
    handler: cancelled,
    atOnce: true,
  },
  "tools/list": {
    group: "default",
    handler: lazyHandler(() =>
      import("./tools_list.ts").then((m) => m.toolsList)
    ),
    capability: "tools",
    cacheHint: PUBLIC,
  },
  "tools/call": {
    group: "default",
    handler: lazyHandler(() =>
      import("./tools_call.ts").then((m) => m.toolsCall)
    ),
    asksInput: true,
    nameKey: "name",
  },
  "resources/list": {
    group: "default",
    handler: lazyHandler(() =>
      import("./resources_list.ts").then((m) => m.resourcesList)
    ),
    capability: "resources",
    cacheHint: PRIVATE,
  },
  "resources/templates/list": {
    group: "default",
    handler: lazyHandler(() =>
      import("./resources_templates_list.ts").then((m) =>
        m.resourcesTemplatesList
      )
    ),
    cacheHint: PUBLIC,
  },
  "resources/read": {
    group: "default",
    handler: lazyHandler(() =>
      import("./resources_read.ts").then((m) => m.resourcesRead)
    ),
    cacheHint: PRIVATE,
    asksInput: true,
    nameKey: "uri",
    largeAnswer: true,
  },
  "resources/subscribe": {
    group: "default",
    handler: lazyHandler(() =>
      import("./resources_subscribe.ts").then((m) => m.resourcesSubscribe)
    ),
    until: HANDSHAKE,
    instead: SUBSCRIBE_INSTEAD,
  },
  "resources/unsubscribe": {
    group: "default",
    handler: lazyHandler(() =>
      import("./resources_subscribe.ts").then((m) => m.resourcesUnsubscribe)
    ),
    until: HANDSHAKE,
    instead: SUBSCRIBE_INSTEAD,
  },
  // `server/discover` and `subscriptions/listen` (which replaces
  // `resources/subscribe`) are served when 2026-07-28 is offered; each
  // says itself what to do when asked without it.
  "server/discover": {
    group: "default",
    handler: lazyHandler(() =>
      import("./server_discover.ts").then((m) => m.serverDiscover)
    ),
    cacheHint: PUBLIC,
    since: STATELESS,
  },
  "subscriptions/listen": {
    group: "default",
    handler: lazyHandler(() =>
      import("./subscriptions_listen.ts").then((m) => m.subscriptionsListen)
    ),
    since: STATELESS,
  },
  "prompts/list": {
    group: "prompts",
    handler: lazyHandler(() =>
      import("./prompts_list.ts").then((m) => m.promptsList)
    ),
    capability: "prompts",
    cacheHint: PUBLIC,
  },
  "prompts/get": {
    group: "prompts",
    handler: lazyHandler(() =>
      import("./prompts_get.ts").then((m) => m.promptsGet)
    ),
    asksInput: true,
    nameKey: "name",
  },
  "completion/complete": {
    group: "completion",
    handler: lazyHandler(() =>
      import("./completion_complete.ts").then((m) => m.completionComplete)
    ),
    capability: "completions",
  },
  // Answered at once (not loaded lazily), so the level holds for every
  // message read after it.
  "logging/setLevel": {
    group: "logging",
    handler: loggingSetLevel,
    atOnce: true,
    capability: "logging",
    until: HANDSHAKE,
    instead:
      'set "io.modelcontextprotocol/logLevel" in each request\'s _meta instead',
  },
  "tasks/get": {
    group: "tasks",
    handler: lazyHandler(() => import("./tasks.ts").then((m) => m.tasksGet)),
    nameKey: "taskId",
  },
  "tasks/update": {
    group: "tasks",
    handler: lazyHandler(() => import("./tasks.ts").then((m) => m.tasksUpdate)),
    nameKey: "taskId",
  },
  "tasks/cancel": {
    group: "tasks",
    handler: lazyHandler(() => import("./tasks.ts").then((m) => m.tasksCancel)),
    nameKey: "taskId",
  },
  // A server's skills are its own, the same for all.
  "skills/list": {
    group: "skills",
    handler: lazyHandler(() => import("./skills.ts").then((m) => m.skillsList)),
    cacheHint: PUBLIC,
  },
  "skills/get": {
    group: "skills",
    handler: lazyHandler(() => import("./skills.ts").then((m) => m.skillsGet)),
    cacheHint: PUBLIC,
  },
  "resources/directory/read": {
    group: "skills",
    handler: lazyHandler(() =>
      import("./skills.ts").then((m) => m.resourcesDirectoryRead)
    ),
  },
};

/**
 * The rows of {@linkcode METHODS} in `group` as a server's method map:
 * those that exist in a version before 2026-07-28 (`stateless` false), or
 * those that came with it (`stateless` true).
 */
export function methodsIn(group: MethodGroup, stateless = false): HandlerMap {
  const map: Record<string, MethodSpec> = {};
  for (const [method, row] of Object.entries(METHODS)) {
    if (row.group === group && (row.since !== undefined) === stateless) {
      map[method] = row;
    }
  }
  return map;
}

/** The default map: the default group's methods before 2026-07-28. */
export const handlers: HandlerMap = methodsIn("default");

/**
 * The prompt methods, for servers with prompts (`--features prompts`):
 * added to {@linkcode handlers}, they also declare the `prompts`
 * capability.
 */
export const promptHandlers: HandlerMap = methodsIn("prompts");

/**
 * Completion of prompt arguments and resource template variables
 * (`--features completion`); declares the `completions` capability.
 */
export const completionHandlers: HandlerMap = methodsIn("completion");

/**
 * Logging (`--features logging`): add these to the map to declare the
 * `logging` capability.
 */
export const loggingHandlers: HandlerMap = methodsIn("logging");

/**
 * The methods of MCP 2026-07-28 (stateless): add these to the map of a
 * server whose protocol versions include it. `subscriptions/listen`
 * replaces `resources/subscribe`.
 */
export const modernHandlers: HandlerMap = methodsIn("default", true);

/**
 * The methods of the tasks extension (`io.modelcontextprotocol/tasks`,
 * 2026-07-28): add these to the map and declare the extension (see
 * `TASKS_EXTENSION`) to let tools with a `task` option run as tasks.
 */
export const taskHandlers: HandlerMap = methodsIn("tasks");

/**
 * The methods of the skills extension (`io.modelcontextprotocol/skills`):
 * add these to the map, serve a `SkillSet` with `serveSkills` and declare
 * the extension (`SKILLS_EXTENSION`: `skillsCapability()`).
 */
export const skillHandlers: HandlerMap = methodsIn("skills");
