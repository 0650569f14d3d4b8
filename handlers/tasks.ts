/**
 * `tasks/get`, `tasks/update` and `tasks/cancel`: the methods of the tasks
 * extension (`io.modelcontextprotocol/tasks`; see `mcp/ext_tasks.ts`). Each
 * is refused with -32021 unless the request's client capabilities declare
 * the extension, and with -32602 for a task the server does not know.
 *
 * @module
 */

import { EMPTY_RESULT, type JsonObject } from "../mcp/jsonrpc.ts";
import {
  declaresTasks,
  missingTasksCapability,
  type TaskStore,
  taskStoreOf,
} from "../mcp/ext_tasks.ts";
import type { Handler, HandlerContext } from "../mcp/server.ts";

// The server's tasks, for a request that declared the extension.
function storeFor(method: string, ctx: HandlerContext): TaskStore {
  if (!declaresTasks(ctx.session.clientCapabilities)) {
    throw missingTasksCapability(method);
  }
  return taskStoreOf(ctx.server);
}

/** Handle `tasks/get`: the task's status and, when terminal, its outcome. */
export const tasksGet: Handler = (params: JsonObject, ctx) =>
  storeFor("tasks/get", ctx).get(params.taskId);

/**
 * Handle `tasks/update`: deliver `inputResponses` to what the task waits
 * for; acknowledged with an empty result.
 */
export const tasksUpdate: Handler = (params: JsonObject, ctx) => {
  storeFor("tasks/update", ctx).update(params.taskId, params.inputResponses);
  return EMPTY_RESULT;
};

/** Handle `tasks/cancel`: stop the task; acknowledged with an empty result. */
export const tasksCancel: Handler = (params: JsonObject, ctx) => {
  storeFor("tasks/cancel", ctx).cancel(params.taskId);
  return EMPTY_RESULT;
};
