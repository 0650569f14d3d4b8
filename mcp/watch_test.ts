import { strict as assert } from "node:assert";
import { handlers } from "../handlers/mod.ts";
import type { ResourceChanges, ResourceProvider } from "./resource.ts";
import { McpServer } from "./server.ts";
import { Session } from "./session.ts";
import { watchResources } from "./watch.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A provider whose changes the test emits by hand. */
function fakeProvider(): ResourceProvider & {
  emit(c: ResourceChanges): void;
  closed: boolean;
} {
  let listener: ((c: ResourceChanges) => void) | undefined;
  const provider = {
    closed: false,
    list: () => Promise.resolve({ resources: [] }),
    templates: () => [],
    read: () => Promise.resolve([]),
    canonicalUri: (uri: string) => Promise.resolve(uri),
    normalizeUri: (uri: string) => uri,
    watch(l: (c: ResourceChanges) => void) {
      listener = l;
      return { close: () => provider.closed = true };
    },
    emit: (c: ResourceChanges) => listener?.(c),
  };
  return provider;
}

Deno.test("watchResources: nothing before initialized, then subscribed updates and list_changed", async () => {
  const provider = fakeProvider();
  const server = new McpServer({
    info: { name: "example-mcp", version: "1.0.0" },
    handlers,
    capabilities: {
      tools: {},
      resources: { subscribe: true, listChanged: true },
    },
    resources: provider,
  });
  const sent: string[] = [];
  const session = new Session((line) => sent.push(line));
  const watch = watchResources(server, session)!;
  try {
    session.state = "initializing";
    session.subscriptions.add("file:///r/a.txt");
    provider.emit({
      updated: ["file:///r/a.txt", "file:///r/b.txt"],
      listChanged: false,
    });
    provider.emit({ updated: [], listChanged: true });
    await sleep(60);
    assert.deepEqual(sent, [], "held until the client is ready");
    session.state = "ready";
    await sleep(60);
    assert.deepEqual(sent, [
      '{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///r/a.txt"}}',
      '{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}',
    ]);
    sent.length = 0;
    provider.emit({ updated: [], listChanged: false, all: true });
    assert.deepEqual(sent, [
      '{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///r/a.txt"}}',
    ]);
  } finally {
    watch.close();
  }
  assert.equal(provider.closed, true);
});

Deno.test("watchResources: no watch without the subscribe capability", () => {
  const server = new McpServer({
    info: { name: "example-mcp", version: "1.0.0" },
    handlers,
    resources: fakeProvider(),
  });
  assert.equal(watchResources(server, new Session(() => {})), undefined);
});

// The subscribe handlers are offered only when the server watches its
// resources (canSubscribe, here in mcp/watch.ts).
Deno.test("subscribe handlers: -32601 without --watch; idempotent with it", async () => {
  const plain = new McpServer({
    info: { name: "example-mcp", version: "1.0.0" },
    handlers,
    resources: fakeProvider(),
  });
  const session = new Session(() => {});
  const call = async (server: McpServer, method: string, params: unknown) =>
    await server.handle({ jsonrpc: "2.0", id: 1, method, params }, session);
  assert.deepEqual(
    ((await call(plain, "resources/subscribe", { uri: "file:///r/a.txt" }))!
      .error as { code: number }).code,
    -32601,
  );
  const watching = new McpServer({
    info: { name: "example-mcp", version: "1.0.0" },
    handlers,
    capabilities: { resources: { subscribe: true } },
    resources: fakeProvider(),
  });
  for (let i = 0; i < 2; i++) {
    assert.deepEqual(
      (await call(watching, "resources/subscribe", { uri: "file:///r/a.txt" }))!
        .result,
      {},
    );
  }
  assert.deepEqual([...session.subscriptions], ["file:///r/a.txt"]);
  for (let i = 0; i < 2; i++) {
    assert.deepEqual(
      (await call(watching, "resources/unsubscribe", {
        uri: "file:///r/a.txt",
      }))!.result,
      {},
    );
  }
  assert.equal(session.subscriptions.size, 0);
  for (const params of [{}, { uri: 7 }, { uri: "no scheme" }]) {
    const error = (await call(watching, "resources/subscribe", params))!
      .error as { code: number };
    assert.equal(error.code, -32602, JSON.stringify(params));
  }
});

Deno.test("watchResources: a session's own resources are watched; the server's stop reaching it", () => {
  const shared = fakeProvider();
  const own = fakeProvider();
  const server = new McpServer({
    info: { name: "example-mcp", version: "1.0.0" },
    handlers,
    capabilities: {
      tools: {},
      resources: { subscribe: true, listChanged: true },
    },
    resources: shared,
  });
  const sent: string[] = [];
  const session = new Session((line) => sent.push(line));
  session.state = "ready";
  const before = watchResources(server, session)!;
  session.resources = own;
  const after = watchResources(server, session)!;
  try {
    shared.emit({ updated: [], listChanged: true });
    assert.deepEqual(sent, [], "the server's resources are not its own now");
    own.emit({ updated: [], listChanged: true });
    assert.deepEqual(sent, [
      '{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}',
    ]);
  } finally {
    before.close();
    after.close();
  }
});
