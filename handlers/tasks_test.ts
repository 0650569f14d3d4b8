import { strict as assert } from "node:assert";
import type { JsonObject } from "../mcp/jsonrpc.ts";
import { TASKS_EXTENSION } from "../mcp/ext_tasks.ts";
import { McpServer } from "../mcp/server.ts";
import { Session } from "../mcp/session.ts";
import { handlers, taskHandlers } from "./mod.ts";

const V = "2026-07-28";
const WITH_TASKS = { extensions: { [TASKS_EXTENSION]: {} } };

function meta(capabilities: JsonObject): JsonObject {
  return {
    "io.modelcontextprotocol/protocolVersion": V,
    "io.modelcontextprotocol/clientCapabilities": capabilities,
  };
}

function fixture() {
  const server = new McpServer({
    handlers: { ...handlers, ...taskHandlers },
    info: { name: "t", version: "1" },
    protocolVersions: [V, "2025-11-25"],
  });
  const release = Promise.withResolvers<void>();
  server.tools.register({
    name: "job",
    description: "Waits to be released, then reports.",
    inputSchema: { type: "object" },
    task: { support: "optional" },
    async run() {
      await release.promise;
      return { content: [{ type: "text", text: "released" }] };
    },
  });
  const session = new Session(() => {});
  let id = 0;
  const call = async (
    method: string,
    params: JsonObject,
    capabilities: JsonObject = WITH_TASKS,
  ) =>
    await server.handle({
      jsonrpc: "2.0",
      id: ++id,
      method,
      params: { ...params, _meta: meta(capabilities) },
    }, session) as JsonObject;
  return { call, release: release.resolve };
}

Deno.test("tasks handlers: a task runs from tools/call to tasks/get's completed result", async () => {
  const { call, release } = fixture();
  const created = (await call("tools/call", { name: "job" }))
    .result as JsonObject;
  assert.equal(created.resultType, "task");
  const taskId = created.taskId as string;
  const working = (await call("tasks/get", { taskId })).result as JsonObject;
  assert.equal(working.status, "working");
  assert.equal(working.resultType, "complete");
  release();
  let done: JsonObject = working;
  for (let turn = 0; turn < 1000 && done.status === "working"; turn++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    done = (await call("tasks/get", { taskId })).result as JsonObject;
  }
  assert.equal(done.status, "completed");
  assert.deepEqual((done.result as JsonObject).content, [
    { type: "text", text: "released" },
  ]);
});

Deno.test("tasks handlers: without the extension, tasks/* are -32021 and the tool runs as a plain call", async () => {
  const { call, release } = fixture();
  for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
    const answer = await call(method, { taskId: "x" }, {});
    assert.equal((answer.error as JsonObject).code, -32021, method);
  }
  release();
  const plain = (await call("tools/call", { name: "job" }, {}))
    .result as JsonObject;
  assert.equal(plain.resultType, "complete");
  assert.equal(plain.taskId, undefined);
});

Deno.test("tasks handlers: the removed tasks/result and tasks/list are -32601, an unknown task -32602", async () => {
  const { call } = fixture();
  for (const method of ["tasks/result", "tasks/list"]) {
    const answer = await call(method, { taskId: "x" });
    assert.equal((answer.error as JsonObject).code, -32601, method);
  }
  const unknown = await call("tasks/cancel", { taskId: "nope" });
  assert.equal((unknown.error as JsonObject).code, -32602);
});

Deno.test("tasks handlers: cancel acknowledges with an empty result, then tasks/get shows cancelled", async () => {
  const { call } = fixture();
  const created = (await call("tools/call", { name: "job" }))
    .result as JsonObject;
  const ack = (await call("tasks/cancel", { taskId: created.taskId }))
    .result as JsonObject;
  assert.deepEqual(Object.keys(ack).sort(), ["_meta", "resultType"]);
  assert.equal(ack.resultType, "complete");
  const after = (await call("tasks/get", { taskId: created.taskId }))
    .result as JsonObject;
  assert.equal(after.status, "cancelled");
});
