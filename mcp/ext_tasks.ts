/**
 * The tasks extension (`io.modelcontextprotocol/tasks`, MCP 2026-07-28 and
 * later): a `tools/call` the server expects to take long is answered at
 * once with a task handle (`resultType: "task"`) instead of its result; the
 * client polls `tasks/get` for the task's status and, once it is terminal,
 * its result or error, answers what the task asks of it with
 * `tasks/update`, and may stop it with `tasks/cancel`.
 *
 * A server opts in by adding the `tasks/*` handlers (`taskHandlers` of
 * `handlers/mod.ts`) and declaring the extension in its capabilities; a tool
 * opts in with its `task` option (see {@linkcode ToolTaskOptions}). Only a
 * client that declares the extension in the request's capabilities ever
 * gets a task: for any other, a tool whose task support is `optional` runs
 * as a plain call, and one whose support is `required` is refused with
 * -32021. This module loads on the first call of such a tool or of a
 * `tasks/*` method; a server without them never loads it.
 *
 * Tasks live in the memory of the process that created them (routing
 * headers name the task, so a balancer can keep a task's requests on one
 * instance) and are forgotten `ttlMs` after their creation.
 *
 * @module
 */

import { ErrorCode, isObject, type JsonObject, RpcError } from "./jsonrpc.ts";
import type { LoggingLevel } from "./logging.ts";
import {
  CLIENT_CAPABILITY_OF,
  type ClientRequestOptions,
  Session,
} from "./session.ts";
import type { Tool, ToolContext, ToolResult } from "./tool.ts";
export type { ToolTaskOptions } from "./tool.ts";
import { ToolFailure } from "./tool.ts";
import { toolError } from "./content.ts";

/** The extension's identifier, as capabilities name it. */
export const TASKS_EXTENSION: string = "io.modelcontextprotocol/tasks";

/** MissingRequiredClientCapabilityError's code (MCP 2026-07-28). */
export const MISSING_CLIENT_CAPABILITY: number =
  ErrorCode.MissingRequiredClientCapability;

/** How long a task is kept after its creation, unless configured (ms). */
export const DEFAULT_TASK_TTL_MS: number = 10 * 60_000;

/** How often a client is asked to poll a task, unless configured (ms). */
export const DEFAULT_POLL_INTERVAL_MS: number = 500;

/** How many tasks may be running at once, unless configured. */
export const DEFAULT_MAX_RUNNING: number = 64;

/** How many tasks are kept (running or ended), unless configured. */
export const DEFAULT_MAX_KEPT: number = 1000;

/** A task's status. */
export type TaskStatus =
  | "working"
  | "input_required"
  | "completed"
  | "failed"
  | "cancelled";

/** Whether `status` is final: the task's state no longer changes. */
export function isTerminal(status: TaskStatus): boolean {
  return status === "completed" || status === "failed" ||
    status === "cancelled";
}

/** One request to the client a task waits for. */
interface PendingInput {
  request: JsonObject;
  resolve: (answer: unknown) => void;
}

/** What the store keeps of one task. */
interface TaskRecord {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: number;
  lastUpdatedAt: number;
  result?: JsonObject;
  error?: JsonObject;
  pending: Map<string, PendingInput>;
  controller: AbortController;
}

/** Settings of a {@linkcode TaskStore}. */
export interface TaskStoreOptions {
  /** How long a task is kept after its creation (ms). */
  ttlMs?: number;
  /** The polling interval suggested to clients (ms). */
  pollIntervalMs?: number;
  /**
   * How many tasks may be running (not yet ended) at once: a call beyond
   * it is not made a task (see {@linkcode TaskStore.full}).
   */
  maxRunning?: number;
  /**
   * How many tasks are kept in all: beyond it, the oldest ended tasks are
   * forgotten before their TTL.
   */
  maxKept?: number;
  /** The clock (ms since the epoch); tests set it. */
  now?: () => number;
}

function taskNotFound(taskId: unknown): RpcError {
  return new RpcError(
    ErrorCode.InvalidParams,
    `Invalid params: no task ${
      JSON.stringify(String(taskId).slice(0, 200))
    } (it never existed here or has expired); use the taskId of a CreateTaskResult from this server.`,
  );
}

/**
 * The tasks of one server: creation, the `tasks/get` view, input answers,
 * cancellation and expiry.
 */
export class TaskStore {
  /** How long a task is kept after its creation (ms). */
  readonly ttlMs: number;
  /** The polling interval suggested to clients (ms). */
  readonly pollIntervalMs: number;
  /** How many tasks may be running at once. */
  readonly maxRunning: number;
  /** How many tasks are kept in all. */
  readonly maxKept: number;
  readonly #now: () => number;
  readonly #tasks = new Map<string, TaskRecord>();

  /** A store with `options`' settings. */
  constructor(options: TaskStoreOptions = {}) {
    this.ttlMs = options.ttlMs ?? DEFAULT_TASK_TTL_MS;
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    this.maxRunning = options.maxRunning ?? DEFAULT_MAX_RUNNING;
    this.maxKept = options.maxKept ?? DEFAULT_MAX_KEPT;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Whether a new task would exceed {@linkcode TaskStore.maxRunning} or
   * {@linkcode TaskStore.maxKept} (after forgetting the oldest ended ones):
   * then {@linkcode TaskStore.create} throws, and a caller runs the work as
   * a plain call or refuses it.
   */
  get full(): boolean {
    this.#expire();
    let running = 0;
    for (const record of this.#tasks.values()) {
      if (!isTerminal(record.status)) running++;
    }
    if (running >= this.maxRunning) return true;
    // Make room among the ended tasks, oldest first (the map keeps them in
    // creation order).
    for (const [taskId, record] of this.#tasks) {
      if (this.#tasks.size < this.maxKept) break;
      if (isTerminal(record.status)) this.#tasks.delete(taskId);
    }
    return this.#tasks.size >= this.maxKept;
  }

  /** How many tasks are kept (expired ones are dropped first). */
  get size(): number {
    this.#expire();
    return this.#tasks.size;
  }

  /**
   * Create a task in status `working` and run `work` for it: `work` gets
   * the task's signal (aborted by `tasks/cancel`) and a function that asks
   * the client (parking the task in `input_required` until `tasks/update`
   * answers). What `work` returns completes the task; an {@linkcode RpcError}
   * it throws fails it. The task exists before this returns its id.
   * Throws a `RangeError` when the store is {@linkcode TaskStore.full}.
   */
  create(
    work: (
      signal: AbortSignal,
      ask: (request: JsonObject, prefix: string) => Promise<unknown>,
    ) => Promise<JsonObject>,
  ): string {
    if (this.full) {
      throw new RangeError(
        `too many tasks: at most ${this.maxRunning} may run and ${this.maxKept} be kept at once`,
      );
    }
    const now = this.#now();
    const record: TaskRecord = {
      taskId: crypto.randomUUID(),
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      pending: new Map(),
      controller: new AbortController(),
    };
    this.#tasks.set(record.taskId, record);
    const counts = new Map<string, number>();
    const ask = (request: JsonObject, prefix: string): Promise<unknown> => {
      if (isTerminal(record.status)) {
        return Promise.reject(new Error("the task has ended"));
      }
      const count = (counts.get(prefix) ?? 0) + 1;
      counts.set(prefix, count);
      const { promise, resolve } = Promise.withResolvers<unknown>();
      record.pending.set(`${prefix}_${count}`, { request, resolve });
      this.#move(record, "input_required");
      return promise;
    };
    // Started after this returns (the handle goes out before any work);
    // a `work` that throws at once fails the task like one that rejects.
    // Work not started when the task was cancelled never starts.
    const signal = record.controller.signal;
    Promise.resolve().then(() => {
      signal.throwIfAborted();
      return work(signal, ask);
    }).then(
      (result) => this.#finish(record, "completed", { result }),
      (error) => {
        if (error instanceof RpcError) {
          const shaped: JsonObject = {
            code: error.code,
            message: error.message,
          };
          if (error.data !== undefined) shaped.data = error.data;
          this.#finish(record, "failed", {
            error: shaped,
            statusMessage: error.message,
          });
        } else {
          this.#finish(record, "failed", {
            error: {
              code: ErrorCode.InternalError,
              message: `Internal error: ${
                error instanceof Error ? error.message : String(error)
              }`,
            },
          });
        }
      },
    );
    return record.taskId;
  }

  /** The task's fields common to every view (`Task`). */
  #task(record: TaskRecord): JsonObject {
    const task: JsonObject = { taskId: record.taskId, status: record.status };
    if (record.statusMessage !== undefined) {
      task.statusMessage = record.statusMessage;
    }
    task.createdAt = new Date(record.createdAt).toISOString();
    task.lastUpdatedAt = new Date(record.lastUpdatedAt).toISOString();
    task.ttlMs = this.ttlMs;
    task.pollIntervalMs = this.pollIntervalMs;
    return task;
  }

  /** The `CreateTaskResult` of task `taskId`. */
  created(taskId: string): JsonObject {
    const record = this.#find(taskId);
    return { resultType: "task", ...this.#task(record) };
  }

  /**
   * The `tasks/get` view (`DetailedTask`): the task, with what it waits for
   * (`input_required`), its result (`completed`) or its error (`failed`).
   * Throws -32602 for an unknown task.
   */
  get(taskId: unknown): JsonObject {
    const record = this.#find(taskId);
    const view = this.#task(record);
    if (record.status === "input_required") {
      const inputRequests: JsonObject = {};
      for (const [key, input] of record.pending) {
        inputRequests[key] = input.request;
      }
      view.inputRequests = inputRequests;
    } else if (record.status === "completed") view.result = record.result;
    else if (record.status === "failed") view.error = record.error;
    return view;
  }

  /**
   * Deliver `inputResponses` to the requests task `taskId` waits for;
   * answers to keys it does not wait for are ignored. Throws -32602 for an
   * unknown task.
   */
  update(taskId: unknown, inputResponses: unknown): void {
    const record = this.#find(taskId);
    if (!isObject(inputResponses)) return;
    let answered = false;
    for (const [key, answer] of Object.entries(inputResponses)) {
      const input = record.pending.get(key);
      if (input === undefined) continue;
      record.pending.delete(key);
      input.resolve(answer);
      answered = true;
    }
    if (
      answered && record.pending.size === 0 &&
      record.status === "input_required"
    ) this.#move(record, "working");
  }

  /**
   * Cancel task `taskId`: a task not yet terminal becomes `cancelled` and
   * its work's signal is aborted; a terminal one stays as it is. Throws
   * -32602 for an unknown task.
   */
  cancel(taskId: unknown): void {
    const record = this.#find(taskId);
    if (isTerminal(record.status)) return;
    this.#finish(record, "cancelled", {
      statusMessage: "The task was cancelled at the client's request.",
    });
    record.controller.abort(new Error("the task was cancelled"));
  }

  #find(taskId: unknown): TaskRecord {
    this.#expire();
    const record = typeof taskId === "string"
      ? this.#tasks.get(taskId)
      : undefined;
    if (record === undefined) throw taskNotFound(taskId);
    return record;
  }

  #move(record: TaskRecord, status: TaskStatus): void {
    record.status = status;
    record.lastUpdatedAt = this.#now();
  }

  #finish(
    record: TaskRecord,
    status: TaskStatus,
    fields: { result?: JsonObject; error?: JsonObject; statusMessage?: string },
  ): void {
    // The first end wins: work that ends after a cancellation is dropped.
    if (isTerminal(record.status)) return;
    record.pending.clear();
    record.result = fields.result;
    record.error = fields.error;
    if (fields.statusMessage !== undefined) {
      record.statusMessage = fields.statusMessage;
    }
    this.#move(record, status);
  }

  // Tasks past their TTL are forgotten; a running one is stopped first.
  #expire(): void {
    const cutoff = this.#now() - this.ttlMs;
    for (const [taskId, record] of this.#tasks) {
      if (record.createdAt > cutoff) continue;
      record.controller.abort(new Error("the task expired"));
      this.#tasks.delete(taskId);
    }
  }
}

const STORES = new WeakMap<object, TaskStore>();

/**
 * The task store of `server` (any object standing for one server), made
 * with `options` on first use: to set the TTL or the limits, call it with
 * them once before the server serves (`tools/call` and `tasks/*` call it
 * without).
 */
export function taskStoreOf(
  server: object,
  options?: TaskStoreOptions,
): TaskStore {
  let store = STORES.get(server);
  if (store === undefined) {
    store = new TaskStore(options);
    STORES.set(server, store);
  }
  return store;
}

/** Whether a request's client capabilities declare the tasks extension. */
export function declaresTasks(capabilities: JsonObject | undefined): boolean {
  const extensions = capabilities?.extensions;
  return isObject(extensions) && isObject(extensions[TASKS_EXTENSION]);
}

/** The -32021 error of a request that needs the tasks extension. */
export function missingTasksCapability(what: string): RpcError {
  return new RpcError(
    MISSING_CLIENT_CAPABILITY,
    `Missing required client capability: ${what} needs the "${TASKS_EXTENSION}" extension; declare it under "extensions" in the request's client capabilities.`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );
}

/** The short name of each method a task may ask the client, for input keys. */
const KEY_PREFIX: Readonly<Record<string, string>> = {
  "sampling/createMessage": "sampling",
  "elicitation/create": "elicitation",
  "roots/list": "roots",
};

/**
 * The session a task's work runs in: it has the capabilities of the
 * request that created the task, sends nothing (the request is answered),
 * and turns each request to the client into an input request of the task.
 */
class TaskSession extends Session {
  readonly #ask: (request: JsonObject, prefix: string) => Promise<unknown>;

  constructor(
    origin: Session,
    ask: (request: JsonObject, prefix: string) => Promise<unknown>,
  ) {
    super(() => {});
    this.#ask = ask;
    this.protocolVersion = origin.protocolVersion;
    this.clientCapabilities = origin.clientCapabilities;
    this.clientInfo = origin.clientInfo;
    this.state = "ready";
  }

  override request(
    method: string,
    params?: JsonObject,
    _options?: ClientRequestOptions,
  ): Promise<unknown> {
    const capability = CLIENT_CAPABILITY_OF[method];
    if (capability !== undefined && !this.declares(capability)) {
      return Promise.reject(
        new RpcError(
          MISSING_CLIENT_CAPABILITY,
          `Missing required client capability: the task needs the client's "${capability}" capability, which the request that created it did not declare.`,
          { requiredCapabilities: { [capability]: {} } },
        ),
      );
    }
    const request: JsonObject = { method };
    if (params !== undefined) request.params = params;
    return this.#ask(
      request,
      KEY_PREFIX[method] ?? method.replaceAll("/", "_"),
    );
  }
}

/** The tool context of a task's work. */
function taskContext(
  session: TaskSession,
  signal: AbortSignal,
  meta: JsonObject | undefined,
): ToolContext {
  return {
    signal,
    session,
    meta,
    notify() {},
    request: (method, params, options) =>
      session.request(method, params, options),
    reportProgress() {},
    log(_level: LoggingLevel) {},
    sample: (params, options) => session.sample(params, options),
    elicit: (params, options) => session.elicit(params, options),
    listRoots: (options) => session.listRoots(options),
  };
}

function tooManyTasks(store: TaskStore): RpcError {
  return new RpcError(
    ErrorCode.InternalError,
    `Internal error: the server is running or keeping as many tasks as it may (${store.maxRunning} running, ${store.maxKept} kept); wait for some to end (tasks/get) or cancel them (tasks/cancel), then call again.`,
  );
}

/**
 * Run `tool`'s call with `args` the way its task option and the request's
 * capabilities say: as a task (the `CreateTaskResult` is returned at once),
 * as a plain call (its result is returned), or not at all (-32021 for a
 * `required` tool and a client without the extension). `run` is how the
 * plain call runs; `store`, the server's tasks; `version`, the request's
 * protocol version (tasks need 2026-07-28 or later, whose results carry
 * `resultType`); `shapeResult`, how a result is trimmed for that version.
 */
export async function callWithTask(
  tool: Tool,
  args: JsonObject,
  ctx: ToolContext,
  store: TaskStore,
  run: (args: JsonObject) => Promise<ToolResult>,
  shapeResult: (result: ToolResult) => JsonObject,
): Promise<JsonObject | ToolResult> {
  const task = tool.task!;
  const session = ctx.session;
  const eligible = declaresTasks(session.clientCapabilities) &&
    (session.protocolVersion ?? "") >= "2026-07-28";
  if (eligible && store.full) {
    // No room for another task: an optional one runs as a plain call.
    if (task.support === "required") throw tooManyTasks(store);
    return await run(args);
  }
  if (!eligible) {
    if (task.support === "required") {
      throw missingTasksCapability(
        `tool "${tool.name}" runs only as a task: it`,
      );
    }
    return await run(args);
  }
  const taskArgs = task.prepare === undefined
    ? args
    : await task.prepare(args, ctx);
  const meta = ctx.meta;
  if (store.full) throw tooManyTasks(store);
  const taskId = store.create(async (signal, ask) => {
    const taskSession = new TaskSession(session, ask);
    try {
      return shapeResult(
        await tool.run(taskArgs, taskContext(taskSession, signal, meta)),
      );
    } catch (error) {
      if (error instanceof RpcError) throw error;
      if (signal.aborted) throw error;
      if (error instanceof ToolFailure) {
        return shapeResult(toolError(error.message));
      }
      return shapeResult(
        toolError(
          `Tool ${tool.name} failed unexpectedly (${
            error instanceof Error ? error.message : String(error)
          }). Try different arguments; the server log has details.`,
        ),
      );
    }
  });
  return store.created(taskId);
}
