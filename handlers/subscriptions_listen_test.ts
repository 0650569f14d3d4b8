import { strict as assert } from "node:assert";
import { decode, type JsonObject } from "../mcp/jsonrpc.ts";
import type { ResourceChanges, ResourceProvider } from "../mcp/resource.ts";
import { capabilitiesOf, McpServer } from "../mcp/server.ts";
import { Session } from "../mcp/session.ts";
import { handlers, modernHandlers, promptHandlers } from "./mod.ts";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

function setUp(listChanged: boolean) {
  const map = { ...handlers, ...promptHandlers, ...modernHandlers };
  const server = new McpServer({
    handlers: map,
    info: { name: "listen-test", version: "1.0.0" },
    protocolVersions: ["2026-07-28", "2025-06-18"],
    capabilities: capabilitiesOf(map, { listChanged }),
  });
  const sent: JsonObject[] = [];
  const session = new Session((line) => sent.push(JSON.parse(line)));
  const listen = (id: number | string, notifications: unknown) =>
    server.dispatch(
      decode(JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "subscriptions/listen",
        params: { notifications, _meta: META },
      })),
      session,
    );
  return { server, session, sent, listen };
}

// Until `sent` has `count` messages (the handler loads its module first).
async function messages(sent: JsonObject[], count: number): Promise<void> {
  for (let turn = 0; sent.length < count && turn < 2000; turn++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.equal(sent.length, count, JSON.stringify(sent));
}

Deno.test("subscriptions/listen: acknowledged first, then only the opted-in changes, tagged", async () => {
  const { server, session, sent, listen } = setUp(true);
  const answer = listen(7, {
    toolsListChanged: true,
    resourceSubscriptions: ["file:///x"],
    somethingElse: true,
  });
  await messages(sent, 1);
  // Resource subscriptions need a watch (--watch): not honoured here.
  assert.deepEqual(sent[0], {
    jsonrpc: "2.0",
    method: "notifications/subscriptions/acknowledged",
    params: {
      _meta: { "io.modelcontextprotocol/subscriptionId": 7 },
      notifications: { toolsListChanged: true },
    },
  });
  server.listChanged("prompts");
  server.listChanged("tools");
  assert.deepEqual(sent.slice(1), [{
    jsonrpc: "2.0",
    method: "notifications/tools/list_changed",
    params: { _meta: { "io.modelcontextprotocol/subscriptionId": 7 } },
  }]);
  // The input ends: the subscription closes with a result.
  session.endInput();
  const line = await answer;
  assert.deepEqual(JSON.parse(line as string), {
    jsonrpc: "2.0",
    id: 7,
    result: {
      resultType: "complete",
      _meta: {
        "io.modelcontextprotocol/subscriptionId": 7,
        "io.modelcontextprotocol/serverInfo": {
          name: "listen-test",
          version: "1.0.0",
        },
      },
    },
  });
  server.listChanged("tools");
  assert.equal(sent.length, 2, "nothing after the subscription closed");
});

Deno.test("subscriptions/listen: without listChanged nothing is honoured; a cancelled one ends silently", async () => {
  const { server, session, sent, listen } = setUp(false);
  const answer = listen("s", { toolsListChanged: true });
  await messages(sent, 1);
  assert.deepEqual(
    (sent[0].params as JsonObject).notifications,
    {},
  );
  session.cancel("s", "done");
  assert.equal(await answer, undefined);
  server.listChanged("tools");
  assert.equal(sent.length, 1);
});

Deno.test("subscriptions/listen: a 2025 request for it is -32601, a bad filter -32602", async () => {
  const { server, session, listen } = setUp(true);
  const legacy = await server.dispatch(
    decode(
      '{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{}}}',
    ),
    session,
  );
  assert.equal(JSON.parse(legacy as string).error.code, -32601);
  const bad = await listen(2, { resourceSubscriptions: "file:///x" });
  assert.equal(JSON.parse(bad as string).error.code, -32602);
});

Deno.test("subscriptions/listen: resource updates reach a subscription for the URIs it named", async () => {
  const map = { ...handlers, ...modernHandlers };
  let emit: ((changes: ResourceChanges) => void) | undefined;
  let closed = 0;
  const provider: ResourceProvider = {
    list: () => Promise.resolve({ resources: [] }),
    templates: () => [],
    read: () => Promise.resolve([]),
    canonicalUri: (uri) => Promise.resolve(uri),
    normalizeUri: (uri) => uri,
    watch(listener) {
      emit = listener;
      return { close: () => closed++ };
    },
  };
  const server = new McpServer({
    handlers: map,
    info: { name: "listen-test", version: "1.0.0" },
    protocolVersions: ["2026-07-28"],
    capabilities: { resources: { subscribe: true, listChanged: true } },
    resources: provider,
  });
  const sent: JsonObject[] = [];
  const session = new Session((line) => sent.push(JSON.parse(line)));
  const answer = server.dispatch(
    decode(JSON.stringify({
      jsonrpc: "2.0",
      id: 3,
      method: "subscriptions/listen",
      params: {
        notifications: { resourceSubscriptions: ["file:///a"] },
        _meta: META,
      },
    })),
    session,
  );
  await messages(sent, 1);
  assert.deepEqual((sent[0].params as JsonObject).notifications, {
    resourceSubscriptions: ["file:///a"],
  });
  assert.ok(emit !== undefined, "the subscription watches the resources");
  emit({ updated: ["file:///a", "file:///b"], listChanged: true });
  // Only the named URI, tagged; no list change (not opted in).
  assert.deepEqual(sent.slice(1), [{
    jsonrpc: "2.0",
    method: "notifications/resources/updated",
    params: {
      _meta: { "io.modelcontextprotocol/subscriptionId": 3 },
      uri: "file:///a",
    },
  }]);
  session.endInput();
  await answer;
  assert.equal(closed, 1, "the watch stops with the subscription");
});
