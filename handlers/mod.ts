/**
 * The method → handler map. Adding a method is one module in this folder
 * and one line here.
 *
 * @module
 */

import type { HandlerMap } from "../mcp/server.ts";
import { cancelled } from "./cancelled.ts";
import { initialize, initialized } from "./initialize.ts";
import { ping } from "./ping.ts";
import { toolsList } from "./tools_list.ts";

/** Every method this server answers, by name. */
export const handlers: HandlerMap = {
  "ping": ping,
  "initialize": initialize,
  "notifications/initialized": initialized,
  "notifications/cancelled": cancelled,
  "tools/list": toolsList,
};
