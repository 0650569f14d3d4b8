import { strict as assert } from "node:assert";
import { ErrorCode, type JsonObject, RpcError } from "./jsonrpc.ts";
import {
  callWithTask,
  declaresTasks,
  MISSING_CLIENT_CAPABILITY,
  TASKS_EXTENSION,
  TaskStore,
} from "./ext_tasks.ts";
import { Session } from "./session.ts";
import type { Tool, ToolContext, ToolResult } from "./tool.ts";

/** Let queued work run until `done` holds (a bounded number of turns). */
async function until(done: () => boolean): Promise<void> {
  for (let turn = 0; turn < 1000 && !done(); turn++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  assert.ok(done(), "the condition never held");
}

function statusOf(store: TaskStore, taskId: string): unknown {
  return store.get(taskId).status;
}

function rpcCode(error: unknown): number | undefined {
  return error instanceof RpcError ? error.code : undefined;
}

Deno.test("ext_tasks: a task exists as soon as its handle is returned, then completes with its result", async () => {
  const store = new TaskStore({ ttlMs: 60_000, pollIntervalMs: 250 });
  const gate = Promise.withResolvers<void>();
  const taskId = store.create(async () => {
    await gate.promise;
    return { content: [{ type: "text", text: "done" }] };
  });
  const created = store.created(taskId);
  assert.equal(created.resultType, "task");
  assert.equal(created.taskId, taskId);
  assert.equal(created.status, "working");
  assert.equal(created.ttlMs, 60_000);
  assert.equal(created.pollIntervalMs, 250);
  assert.match(String(created.createdAt), /^\d{4}-\d\d-\d\dT/);
  assert.ok(!("result" in created) && !("task" in created));
  const working = store.get(taskId);
  assert.equal(working.status, "working");
  assert.ok(!("result" in working) && !("error" in working));
  gate.resolve();
  await until(() => statusOf(store, taskId) === "completed");
  assert.deepEqual(store.get(taskId).result, {
    content: [{ type: "text", text: "done" }],
  });
});

Deno.test("ext_tasks: a JSON-RPC error fails the task with the error and no result", async () => {
  const store = new TaskStore();
  const taskId = store.create(() => {
    throw new RpcError(ErrorCode.InternalError, "backend down", { at: 1 });
  });
  await until(() => statusOf(store, taskId) === "failed");
  const failed = store.get(taskId);
  assert.deepEqual(failed.error, {
    code: ErrorCode.InternalError,
    message: "backend down",
    data: { at: 1 },
  });
  assert.ok(!("result" in failed));
});

Deno.test("ext_tasks: input requests park the task; answers may come one at a time; unknown keys are ignored", async () => {
  const store = new TaskStore();
  const taskId = store.create(async (_signal, ask) => {
    const answers = await Promise.all([
      ask({ method: "elicitation/create" }, "elicitation"),
      ask({ method: "elicitation/create" }, "elicitation"),
    ]);
    return { answers } as JsonObject;
  });
  await until(() => statusOf(store, taskId) === "input_required");
  assert.deepEqual(Object.keys(store.get(taskId).inputRequests as JsonObject), [
    "elicitation_1",
    "elicitation_2",
  ]);
  store.update(taskId, { "never-asked": { action: "accept" } });
  store.update(taskId, { elicitation_1: "one" });
  const partial = store.get(taskId);
  assert.equal(partial.status, "input_required");
  assert.deepEqual(Object.keys(partial.inputRequests as JsonObject), [
    "elicitation_2",
  ]);
  // An answer to a key already answered changes nothing.
  store.update(taskId, { elicitation_1: "again" });
  store.update(taskId, { elicitation_2: "two" });
  await until(() => statusOf(store, taskId) === "completed");
  assert.deepEqual(store.get(taskId).result, { answers: ["one", "two"] });
});

Deno.test("ext_tasks: cancel ends a running task as cancelled, aborts its work and ignores its late result; cancelling again is a no-op", async () => {
  const store = new TaskStore();
  let started = false;
  let aborted = false;
  const finish = Promise.withResolvers<void>();
  const taskId = store.create(async (signal) => {
    started = true;
    signal.addEventListener("abort", () => aborted = true);
    await finish.promise;
    return { late: true };
  });
  await until(() => started);
  store.cancel(taskId);
  assert.equal(statusOf(store, taskId), "cancelled");
  await until(() => aborted);
  finish.resolve();
  await new Promise((resolve) => setTimeout(resolve, 0));
  const cancelled = store.get(taskId);
  assert.equal(cancelled.status, "cancelled");
  assert.ok(!("result" in cancelled));
  store.cancel(taskId);
  assert.equal(statusOf(store, taskId), "cancelled");
});

Deno.test("ext_tasks: work of a task cancelled before it started never starts", async () => {
  const store = new TaskStore();
  let started = false;
  const taskId = store.create(() => {
    started = true;
    return Promise.resolve({});
  });
  store.cancel(taskId);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(started, false);
  assert.equal(statusOf(store, taskId), "cancelled");
});

Deno.test("ext_tasks: an unknown or expired task is -32602 for get, update and cancel", async () => {
  let now = 1_000_000;
  const store = new TaskStore({ ttlMs: 5_000, now: () => now });
  const taskId = store.create(() => Promise.resolve({}));
  await until(() => statusOf(store, taskId) === "completed");
  for (
    const call of [
      () => store.get("nope"),
      () => store.update("nope", {}),
      () => store.cancel("nope"),
      () => store.get(42),
    ]
  ) {
    assert.throws(call, (error) => rpcCode(error) === ErrorCode.InvalidParams);
  }
  now += 4_999;
  assert.equal(statusOf(store, taskId), "completed");
  now += 1;
  assert.throws(
    () => store.get(taskId),
    (error) => rpcCode(error) === ErrorCode.InvalidParams,
  );
  assert.equal(store.size, 0);
});

function contextFor(version: string, capabilities: JsonObject): ToolContext {
  const session = new Session(() => {});
  session.protocolVersion = version;
  session.clientCapabilities = capabilities;
  return {
    signal: new AbortController().signal,
    session,
    meta: undefined,
  } as unknown as ToolContext;
}

const WITH_TASKS = { extensions: { [TASKS_EXTENSION]: {} } };

function toolOf(support: "optional" | "required"): Tool {
  return {
    name: "job",
    description: "a job",
    inputSchema: { type: "object" },
    task: { support },
    run: (args) => ({
      content: [{ type: "text", text: `ran ${JSON.stringify(args)}` }],
    }),
  };
}

const plain = (result: ToolResult) => result as JsonObject;

Deno.test("ext_tasks: callWithTask makes a task only for a 2026-07-28 request that declares the extension", async () => {
  const store = new TaskStore();
  const runPlain = (args: JsonObject): Promise<ToolResult> =>
    Promise.resolve({ content: [{ type: "text", text: "plain" }], args });
  const tool = toolOf("optional");

  const sync = await callWithTask(
    tool,
    {},
    contextFor("2026-07-28", {}),
    store,
    runPlain,
    plain,
  );
  assert.equal((sync as ToolResult).content[0].text, "plain");
  const older = await callWithTask(
    tool,
    {},
    contextFor("2025-11-25", WITH_TASKS),
    store,
    runPlain,
    plain,
  );
  assert.equal((older as ToolResult).content[0].text, "plain");
  assert.equal(store.size, 0);

  const created = await callWithTask(
    tool,
    { n: 1 },
    contextFor("2026-07-28", WITH_TASKS),
    store,
    runPlain,
    plain,
  ) as JsonObject;
  assert.equal(created.resultType, "task");
  const taskId = created.taskId as string;
  await until(() => statusOf(store, taskId) === "completed");
  assert.deepEqual(store.get(taskId).result, {
    content: [{ type: "text", text: 'ran {"n":1}' }],
  });
});

Deno.test("ext_tasks: a required task tool refuses a client without the extension with -32021 naming it", async () => {
  await assert.rejects(
    callWithTask(
      toolOf("required"),
      {},
      contextFor("2026-07-28", { elicitation: {} }),
      new TaskStore(),
      () => Promise.reject(new Error("must not run")),
      plain,
    ),
    (error) => {
      assert.equal(rpcCode(error), MISSING_CLIENT_CAPABILITY);
      assert.deepEqual((error as RpcError).data, {
        requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
      });
      return true;
    },
  );
});

Deno.test("ext_tasks: prepare runs before the task and gives it its arguments", async () => {
  const store = new TaskStore();
  const tool: Tool = {
    ...toolOf("required"),
    task: {
      support: "required",
      prepare: (args) => Promise.resolve({ ...args, user: "Alice" }),
    },
  };
  const created = await callWithTask(
    tool,
    { a: 1 },
    contextFor("2026-07-28", WITH_TASKS),
    store,
    () => Promise.reject(new Error("must not run plain")),
    plain,
  ) as JsonObject;
  const taskId = created.taskId as string;
  await until(() => statusOf(store, taskId) === "completed");
  assert.deepEqual(store.get(taskId).result, {
    content: [{ type: "text", text: 'ran {"a":1,"user":"Alice"}' }],
  });
});

Deno.test("ext_tasks: a task's request to the client becomes an input request of the task", async () => {
  const store = new TaskStore();
  const tool: Tool = {
    ...toolOf("optional"),
    async run(_args, ctx) {
      const answer = await ctx.session.elicit({
        message: "Sure?",
        requestedSchema: { type: "object", properties: {} },
      });
      return { content: [{ type: "text", text: answer.action }] };
    },
  };
  const created = await callWithTask(
    tool,
    {},
    contextFor("2026-07-28", { ...WITH_TASKS, elicitation: {} }),
    store,
    () => Promise.reject(new Error("must not run plain")),
    plain,
  ) as JsonObject;
  const taskId = created.taskId as string;
  await until(() => statusOf(store, taskId) === "input_required");
  const waiting = store.get(taskId).inputRequests as JsonObject;
  assert.deepEqual(Object.keys(waiting), ["elicitation_1"]);
  assert.equal(
    (waiting.elicitation_1 as JsonObject).method,
    "elicitation/create",
  );
  store.update(taskId, { elicitation_1: { action: "decline" } });
  await until(() => statusOf(store, taskId) === "completed");
  assert.deepEqual(store.get(taskId).result, {
    content: [{ type: "text", text: "decline" }],
  });
});

Deno.test("ext_tasks: declaresTasks wants an object under the extension's name", () => {
  assert.equal(declaresTasks(WITH_TASKS), true);
  assert.equal(
    declaresTasks({ extensions: { [TASKS_EXTENSION]: true } }),
    false,
  );
  assert.equal(declaresTasks({ extensions: {} }), false);
  assert.equal(declaresTasks(undefined), false);
});

Deno.test("ext_tasks: beyond maxRunning no task is made: an optional tool runs plain, a required one is refused", async () => {
  const store = new TaskStore({ maxRunning: 1 });
  const hold = Promise.withResolvers<JsonObject>();
  store.create(() => hold.promise);
  assert.equal(store.full, true);
  assert.throws(() => store.create(() => Promise.resolve({})), RangeError);
  const plainRun = await callWithTask(
    toolOf("optional"),
    {},
    contextFor("2026-07-28", WITH_TASKS),
    store,
    () => Promise.resolve({ content: [{ type: "text", text: "plain" }] }),
    plain,
  );
  assert.equal((plainRun as ToolResult).content[0].text, "plain");
  await assert.rejects(
    callWithTask(
      toolOf("required"),
      {},
      contextFor("2026-07-28", WITH_TASKS),
      store,
      () => Promise.reject(new Error("must not run")),
      plain,
    ),
    (error) => rpcCode(error) === ErrorCode.InternalError,
  );
  hold.resolve({});
  await until(() => !store.full);
});

Deno.test("ext_tasks: beyond maxKept the oldest ended tasks are forgotten first", async () => {
  const store = new TaskStore({ maxKept: 2 });
  const first = store.create(() => Promise.resolve({ n: 1 }));
  const hold = Promise.withResolvers<JsonObject>();
  const running = store.create(() => hold.promise);
  await until(() => statusOf(store, first) === "completed");
  const third = store.create(() => Promise.resolve({ n: 3 }));
  assert.throws(() => store.get(first), RpcError);
  assert.equal(statusOf(store, running), "working");
  await until(() => statusOf(store, third) === "completed");
  // Two kept, one of them running: the ended one makes room again.
  store.create(() => Promise.resolve({ n: 4 }));
  assert.throws(() => store.get(third), RpcError);
  hold.resolve({});
});

Deno.test("ext_tasks: a task asking for a capability the client did not declare fails with -32021", async () => {
  const store = new TaskStore();
  const tool: Tool = {
    ...toolOf("optional"),
    async run(_args, ctx) {
      await ctx.session.listRoots();
      return { content: [] };
    },
  };
  const created = await callWithTask(
    tool,
    {},
    contextFor("2026-07-28", WITH_TASKS),
    store,
    () => Promise.reject(new Error("must not run plain")),
    plain,
  ) as JsonObject;
  const taskId = created.taskId as string;
  await until(() => statusOf(store, taskId) === "failed");
  assert.equal(
    (store.get(taskId).error as JsonObject).code,
    MISSING_CLIENT_CAPABILITY,
  );
});
