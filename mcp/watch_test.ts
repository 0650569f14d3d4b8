import { strict as assert } from "node:assert";
import type { ResourceChanges, ResourceProvider } from "./resource.ts";
import { McpServer } from "./server.ts";
import { Session } from "./session.ts";
import { SharedWatches, watchResources } from "./watch.ts";

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
    handlers: {},
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
  // Resources are offered (the map implies `resources: {}`), but no
  // subscriptions: a provider that can watch is not enough.
  const server = new McpServer({
    info: { name: "example-mcp", version: "1.0.0" },
    handlers: {
      "resources/list": {
        handler: () => ({ resources: [] }),
        capability: "resources",
      },
    },
    resources: fakeProvider(),
  });
  assert.deepEqual(server.capabilities, { resources: {} });
  assert.equal(watchResources(server, new Session(() => {})), undefined);
});

Deno.test("watchResources: a session's own resources are watched; the server's stop reaching it", () => {
  const shared = fakeProvider();
  const own = fakeProvider();
  const server = new McpServer({
    info: { name: "example-mcp", version: "1.0.0" },
    handlers: {},
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

Deno.test("watchResources with SharedWatches: many sessions, one watch of the provider, stopped with the last", () => {
  const provider = fakeProvider();
  let watches = 0;
  const watch = provider.watch!.bind(provider);
  provider.watch = (listener) => {
    watches++;
    return watch(listener);
  };
  const server = new McpServer({
    info: { name: "example-mcp", version: "1.0.0" },
    handlers: {},
    capabilities: { resources: { subscribe: true, listChanged: true } },
    resources: provider,
  });
  const shared = new SharedWatches();
  const sent: string[][] = [[], [], []];
  const sessions = sent.map((lines) => {
    const session = new Session((line) => lines.push(line));
    session.state = "ready";
    session.subscriptions.add("file:///r/a.txt");
    return session;
  });
  const handles = sessions.map((session) =>
    watchResources(server, session, shared)!
  );
  assert.equal(watches, 1);
  assert.equal(shared.size, 1);
  provider.emit({ updated: ["file:///r/a.txt"], listChanged: false });
  for (const lines of sent) {
    assert.deepEqual(lines, [
      '{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///r/a.txt"}}',
    ]);
  }
  handles[0].close();
  handles[0].close();
  provider.emit({ updated: ["file:///r/a.txt"], listChanged: false });
  assert.equal(sent[0].length, 1, "a closed session hears nothing more");
  assert.equal(sent[1].length, 2);
  assert.equal(provider.closed, false);
  handles[1].close();
  handles[2].close();
  assert.equal(provider.closed, true, "the last one stops the watch");
  assert.equal(shared.size, 0);
});
