/**
 * The method → handler map. Adding a method is one module in this folder
 * and one line here. Methods that serve tools and resources load their
 * module on first call (lazyHandler): start-up and the handshake never pay
 * for them, and they run once the server's `setup` is done.
 *
 * @module
 */

import { type HandlerMap, lazyHandler } from "../mcp/server.ts";
import { cancelled } from "./cancelled.ts";
import { initialize, initialized } from "./initialize.ts";
import { loggingSetLevel } from "./logging_set_level.ts";
import { ping } from "./ping.ts";

/** Every method this server answers, by name. */
export const handlers: HandlerMap = {
  "ping": ping,
  "initialize": initialize,
  "notifications/initialized": initialized,
  "notifications/cancelled": cancelled,
  "tools/list": lazyHandler(() =>
    import("./tools_list.ts").then((m) => m.toolsList)
  ),
  "tools/call": lazyHandler(() =>
    import("./tools_call.ts").then((m) => m.toolsCall)
  ),
  "resources/list": lazyHandler(() =>
    import("./resources_list.ts").then((m) => m.resourcesList)
  ),
  "resources/templates/list": lazyHandler(() =>
    import("./resources_templates_list.ts").then((m) =>
      m.resourcesTemplatesList
    )
  ),
  "resources/read": lazyHandler(() =>
    import("./resources_read.ts").then((m) => m.resourcesRead)
  ),
  "resources/subscribe": lazyHandler(() =>
    import("./resources_subscribe.ts").then((m) => m.resourcesSubscribe)
  ),
  "resources/unsubscribe": lazyHandler(() =>
    import("./resources_subscribe.ts").then((m) => m.resourcesUnsubscribe)
  ),
};

/**
 * The prompt methods, for servers with prompts (`--features prompts`):
 * added to {@linkcode handlers}, they also declare the `prompts`
 * capability.
 */
export const promptHandlers: HandlerMap = {
  "prompts/list": lazyHandler(() =>
    import("./prompts_list.ts").then((m) => m.promptsList)
  ),
  "prompts/get": lazyHandler(() =>
    import("./prompts_get.ts").then((m) => m.promptsGet)
  ),
};

/**
 * Completion of prompt arguments and resource template variables
 * (`--features completion`); declares the `completions` capability.
 */
export const completionHandlers: HandlerMap = {
  "completion/complete": lazyHandler(() =>
    import("./completion_complete.ts").then((m) => m.completionComplete)
  ),
};

/**
 * Logging (`--features logging`): add these to the map to declare the
 * `logging` capability. `logging/setLevel` is answered at once (not
 * loaded lazily), so the level holds for every message read after it.
 */
export const loggingHandlers: HandlerMap = {
  "logging/setLevel": loggingSetLevel,
};

/**
 * The methods of MCP 2026-07-28 (stateless): add these to the map of a
 * server whose protocol versions include it. `server/discover` is answered
 * at once; `subscriptions/listen` replaces `resources/subscribe`.
 */
export const modernHandlers: HandlerMap = {
  "server/discover": lazyHandler(() =>
    import("./server_discover.ts").then((m) => m.serverDiscover)
  ),
  "subscriptions/listen": lazyHandler(() =>
    import("./subscriptions_listen.ts").then((m) => m.subscriptionsListen)
  ),
};

/**
 * The methods of the tasks extension (`io.modelcontextprotocol/tasks`,
 * 2026-07-28): add these to the map and declare the extension (see
 * `TASKS_EXTENSION`) to let tools with a `task` option run as tasks.
 */
export const taskHandlers: HandlerMap = {
  "tasks/get": lazyHandler(() => import("./tasks.ts").then((m) => m.tasksGet)),
  "tasks/update": lazyHandler(() =>
    import("./tasks.ts").then((m) => m.tasksUpdate)
  ),
  "tasks/cancel": lazyHandler(() =>
    import("./tasks.ts").then((m) => m.tasksCancel)
  ),
};

/**
 * The methods of the skills extension (`io.modelcontextprotocol/skills`):
 * add these to the map, serve a `SkillSet` with `serveSkills` and declare
 * the extension (`SKILLS_EXTENSION`: `skillsCapability()`).
 */
export const skillHandlers: HandlerMap = {
  "skills/list": lazyHandler(() =>
    import("./skills.ts").then((m) => m.skillsList)
  ),
  "skills/get": lazyHandler(() =>
    import("./skills.ts").then((m) => m.skillsGet)
  ),
  "resources/directory/read": lazyHandler(() =>
    import("./skills.ts").then((m) => m.resourcesDirectoryRead)
  ),
};
