/**
 * The tasks extension of MCP 2026-07-28 (`io.modelcontextprotocol/tasks`),
 * off unless a server opts in: add {@linkcode taskHandlers} (`tasks/get`,
 * `tasks/update`, `tasks/cancel`) to the method map, declare
 * `capabilities.extensions = { [TASKS_EXTENSION]: {} }`, and give a
 * long-running tool `task: { support: "optional" }` (or `"required"`).
 * Tasks live in the process's memory ({@linkcode TaskStore}).
 *
 * @example A server that runs tools as tasks
 * ```ts
 * import { capabilitiesOf, handlers, McpServer } from "../../mod.ts";
 * import { TASKS_EXTENSION, taskHandlers } from "./tasks.ts";
 *
 * const map = { ...handlers, ...taskHandlers };
 * const server = new McpServer({
 *   handlers: map,
 *   info: { name: "example", version: "1.0.0" },
 *   protocolVersions: ["2025-06-18", "2026-07-28"],
 *   capabilities: {
 *     ...capabilitiesOf(map),
 *     extensions: { [TASKS_EXTENSION]: {} },
 *   },
 * });
 * console.log(server.capabilities);
 * ```
 *
 * @module
 */

export { taskHandlers } from "../../handlers/mod.ts";
export {
  declaresTasks,
  isTerminal,
  MISSING_CLIENT_CAPABILITY,
  TASKS_EXTENSION,
  type TaskStatus,
  TaskStore,
  taskStoreOf,
  type TaskStoreOptions,
} from "../../mcp/ext_tasks.ts";
