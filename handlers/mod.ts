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
import { resourcesList } from "./resources_list.ts";
import { resourcesRead } from "./resources_read.ts";
import {
  resourcesSubscribe,
  resourcesUnsubscribe,
} from "./resources_subscribe.ts";
import { resourcesTemplatesList } from "./resources_templates_list.ts";
import { toolsCall } from "./tools_call.ts";
import { toolsList } from "./tools_list.ts";

/** Every method this server answers, by name. */
export const handlers: HandlerMap = {
  "ping": ping,
  "initialize": initialize,
  "notifications/initialized": initialized,
  "notifications/cancelled": cancelled,
  "tools/list": toolsList,
  "resources/list": resourcesList,
  "resources/templates/list": resourcesTemplatesList,
  "resources/read": resourcesRead,
  "resources/subscribe": resourcesSubscribe,
  "resources/unsubscribe": resourcesUnsubscribe,
  "tools/call": toolsCall,
};
