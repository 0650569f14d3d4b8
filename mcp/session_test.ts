import { strict as assert } from "node:assert";
import { classify, type ResponseMessage, RpcError } from "./jsonrpc.ts";
import {
  DEFAULT_CLIENT_REQUEST_TIMEOUT_MS,
  REQUEST_TIMEOUT_CODE,
  Session,
} from "./session.ts";

function sessionWith(capabilities: Record<string, unknown>) {
  const sent: Record<string, unknown>[] = [];
  const session = new Session((line) => sent.push(JSON.parse(line)));
  session.clientCapabilities = capabilities;
  session.protocolVersion = "2025-11-25";
  return { session, sent };
}

const respond = (session: Session, id: unknown, body: object) =>
  session.resolveResponse(
    classify({ jsonrpc: "2.0", id, ...body }) as ResponseMessage,
  );

Deno.test("session.request: not sent without the client's capability, with an error saying which", async () => {
  const { session, sent } = sessionWith({ roots: {} });
  for (
    const [method, capability] of [
      ["sampling/createMessage", "sampling"],
      ["elicitation/create", "elicitation"],
    ]
  ) {
    await assert.rejects(
      session.request(method, {}),
      (error: RpcError) => {
        assert.ok(error instanceof RpcError);
        assert.ok(error.message.includes(`"${capability}" capability`));
        return true;
      },
    );
  }
  assert.equal(sent.length, 0);
  // Declared: sent.
  const answer = session.request("roots/list");
  assert.equal(sent.length, 1);
  respond(session, sent[0].id, { result: { roots: [] } });
  assert.deepEqual(await answer, { roots: [] });
});

Deno.test("session.request: a client error rejects with the client's code and message", async () => {
  const { session, sent } = sessionWith({ sampling: {} });
  const answer = session.request("sampling/createMessage", {});
  respond(session, sent[0].id, {
    error: { code: -1, message: "User rejected sampling request" },
  });
  await assert.rejects(answer, (error: RpcError) => {
    assert.ok(error instanceof RpcError);
    assert.equal(error.code, -1);
    assert.equal(error.message, "User rejected sampling request");
    return true;
  });
});

Deno.test("session.request: times out, cancels towards the client, rejects with -32001", async () => {
  const { session, sent } = sessionWith({ roots: {} });
  assert.equal(DEFAULT_CLIENT_REQUEST_TIMEOUT_MS, 60_000);
  const started = performance.now();
  await assert.rejects(
    session.request("roots/list", undefined, { timeoutMs: 30 }),
    (error: RpcError) => {
      assert.equal(error.code, REQUEST_TIMEOUT_CODE);
      assert.match(error.message, /did not answer roots\/list within 30 ms/);
      return true;
    },
  );
  assert.ok(performance.now() - started >= 25);
  assert.equal(sent.length, 2);
  assert.equal(sent[1].method, "notifications/cancelled");
  assert.deepEqual(
    (sent[1].params as { requestId: string }).requestId,
    sent[0].id,
  );
  // A late answer is dropped.
  assert.equal(respond(session, sent[0].id, { result: {} }), false);
});

Deno.test("session.request: ids are s1, s2…, routed apart from the client's own ids", async () => {
  const { session, sent } = sessionWith({ roots: {} });
  const first = session.request("roots/list");
  const second = session.request("roots/list");
  assert.deepEqual(sent.map((m) => m.id), ["s1", "s2"]);
  // A response with the client's numeric id 1 is not the answer to "s1".
  assert.equal(respond(session, 1, { result: { roots: [] } }), false);
  respond(session, "s2", { result: { roots: [{ uri: "file:///b" }] } });
  respond(session, "s1", { result: { roots: [{ uri: "file:///a" }] } });
  assert.deepEqual(await first, { roots: [{ uri: "file:///a" }] });
  assert.deepEqual(await second, { roots: [{ uri: "file:///b" }] });
});

Deno.test("session: the waiting hooks are called once per request, whatever ends it", async () => {
  const { session } = sessionWith({ roots: {} });
  const events: string[] = [];
  session.onWaitingForClient = (key) => events.push(`wait ${key}`);
  session.onClientAnswered = (key) => events.push(`done ${key}`);
  const controller = new AbortController();
  const aborted = session.request("roots/list", undefined, {
    waiter: "k1",
    signal: controller.signal,
  });
  controller.abort("stop");
  await assert.rejects(aborted);
  const closed = session.request("roots/list", undefined, { waiter: "k2" });
  session.close();
  await assert.rejects(closed, /session closed/);
  assert.deepEqual(events, ["wait k1", "done k1", "wait k2", "done k2"]);
});

Deno.test("session.log: nothing until a level is set, then records at or above it", () => {
  const { session, sent } = sessionWith({});
  session.log("emergency", "ignored");
  assert.equal(sent.length, 0);
  session.logLevel = "warning";
  session.log("info", "below");
  session.log("warning", { at: "threshold" }, "db");
  session.log("error", "above");
  assert.deepEqual(sent, [
    {
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level: "warning", logger: "db", data: { at: "threshold" } },
    },
    {
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level: "error", data: "above" },
    },
  ]);
  // Data that is not JSON goes as text, never as a crash.
  session.log("error", { big: 1n });
  assert.equal(
    (sent[2].params as { data: string }).data,
    "[object Object]",
  );
});

Deno.test("session.sample/elicit/listRoots: checked before sending, and the answers checked", async () => {
  const { session, sent } = sessionWith({
    sampling: {},
    elicitation: {},
    roots: {},
  });
  await assert.rejects(
    session.sample({ messages: [], maxTokens: 0 }),
    /maxTokens/,
  );
  await assert.rejects(
    session.elicit({
      message: "Pick",
      requestedSchema: {
        type: "object",
        properties: { nested: { type: "object" } },
      },
    }),
    /nested objects are not allowed/,
  );
  assert.equal(sent.length, 0);
  const sampled = session.sample({
    messages: [{ role: "user", content: { type: "text", text: "hi" } }],
    maxTokens: 10,
  });
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(sent[0].method, "sampling/createMessage");
  respond(session, sent[0].id, {
    result: {
      role: "assistant",
      content: { type: "text", text: "hello" },
      model: "m",
    },
  });
  assert.equal((await sampled).model, "m");
  const roots = session.listRoots();
  await new Promise((r) => setTimeout(r, 0));
  respond(session, sent[1].id, { result: { roots: [{ name: "no uri" }] } });
  await assert.rejects(roots, /invalid result/);
});

Deno.test("session.elicit: a client with URL mode only gets no form", async () => {
  const { session, sent } = sessionWith({ elicitation: { url: {} } });
  await assert.rejects(
    session.elicit({
      message: "Name?",
      requestedSchema: { type: "object", properties: {} },
    }),
    /without form mode/,
  );
  assert.equal(sent.length, 0);
});
