import { strict as assert } from "node:assert";
import type { ResourceProvider } from "../mcp/resource.ts";
import { McpServer } from "../mcp/server.ts";
import { Session } from "../mcp/session.ts";
import {
  resourcesSubscribe,
  resourcesUnsubscribe,
} from "./resources_subscribe.ts";

/** A provider of any URI, spelled as given, that can watch (and never reports). */
function watchingProvider(): ResourceProvider {
  return {
    list: () => Promise.resolve({ resources: [] }),
    templates: () => [],
    read: () => Promise.resolve([]),
    canonicalUri: (uri: string) => Promise.resolve(uri),
    normalizeUri: (uri: string) => uri,
    watch: () => ({ close: () => {} }),
  };
}

const handlers = {
  "resources/subscribe": resourcesSubscribe,
  "resources/unsubscribe": resourcesUnsubscribe,
};

// The subscribe handlers are offered only when the server watches its
// resources (canSubscribe, in mcp/watch.ts).
Deno.test("subscribe handlers: -32601 without --watch; idempotent with it", async () => {
  const plain = new McpServer({
    info: { name: "example-mcp", version: "1.0.0" },
    handlers,
    resources: watchingProvider(),
  });
  const session = new Session(() => {});
  const call = async (server: McpServer, method: string, params: unknown) =>
    await server.handle({ jsonrpc: "2.0", id: 1, method, params }, session);
  for (const method of ["resources/subscribe", "resources/unsubscribe"]) {
    const error = (await call(plain, method, { uri: "file:///r/a.txt" }))!
      .error as { code: number; message: string };
    assert.equal(error.code, -32601, method);
    assert.match(error.message, /--watch/);
  }
  assert.equal(session.subscriptions.size, 0);
  const watching = new McpServer({
    info: { name: "example-mcp", version: "1.0.0" },
    handlers,
    capabilities: { resources: { subscribe: true } },
    resources: watchingProvider(),
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
