import { strict as assert } from "node:assert";
import type { JsonObject } from "../mcp/jsonrpc.ts";
import { type HandlerContext, McpServer } from "../mcp/server.ts";
import { Session } from "../mcp/session.ts";
import { handlers } from "./mod.ts";
import { listClientRoots, rootsHandlers } from "./roots.ts";

function ctxOf(session: Session): HandlerContext {
  return { session } as unknown as HandlerContext;
}

/** A session whose client answers each request with `answer`. */
function answering(answer: (request: JsonObject) => JsonObject): {
  session: Session;
  requests: JsonObject[];
} {
  const requests: JsonObject[] = [];
  const session: Session = new Session((line) => {
    const message = JSON.parse(line);
    if (message.id === undefined) return;
    requests.push(message);
    queueMicrotask(() =>
      session.resolveResponse({
        kind: "response",
        id: message.id,
        ...answer(message),
      } as never)
    );
  });
  session.clientCapabilities = { roots: {} };
  return { session, requests };
}

Deno.test("listClientRoots: sends roots/list and keeps well-formed roots", async () => {
  const { session, requests } = answering(() => ({
    result: {
      roots: [
        { uri: "file:///a", name: "A" },
        { uri: "file:///b" },
        { name: "no uri" },
        "not an object",
        { uri: 7 },
      ],
    },
  }));
  assert.deepEqual(await listClientRoots(ctxOf(session)), [
    { uri: "file:///a", name: "A" },
    { uri: "file:///b" },
  ]);
  assert.equal(requests.length, 1);
  assert.equal(requests[0].method, "roots/list");
});

Deno.test("listClientRoots: a bad answer, an error or silence rejects", async () => {
  await assert.rejects(
    listClientRoots(ctxOf(answering(() => ({ result: {} })).session)),
    /without a "roots" array/,
  );
  await assert.rejects(
    listClientRoots(
      ctxOf(
        answering(() => ({ error: { code: -32601, message: "no roots" } }))
          .session,
      ),
    ),
    /no roots/,
  );
  const silent = new Session(() => {});
  silent.clientCapabilities = { roots: {} };
  const started = performance.now();
  await assert.rejects(listClientRoots(ctxOf(silent), 50));
  assert.ok(performance.now() - started < 2000);
  // A client without the capability is not asked at all.
  const { session: undeclared, requests } = answering(() => ({
    result: { roots: [] },
  }));
  undeclared.clientCapabilities = {};
  await assert.rejects(listClientRoots(ctxOf(undeclared)), /roots/);
  assert.equal(requests.length, 0);
});

Deno.test("rootsHandlers: onRoots once initialized and on list changes, for clients with roots", async () => {
  const server = new McpServer({
    handlers,
    info: { name: "example-mcp", version: "1.0.0" },
  });
  const calls: Session[] = [];
  const map = rootsHandlers((ctx) => calls.push(ctx.session));
  const run = async (session: Session, capabilities: JsonObject) => {
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities,
        clientInfo: { name: "t", version: "1" },
      },
    };
    await server.handle(init, session);
    const ctx = { session, server } as unknown as HandlerContext;
    // A list change before initialized is ignored.
    map["notifications/roots/list_changed"].handler({}, ctx);
    map["notifications/initialized"].handler({}, ctx);
    assert.equal(session.state, "ready");
    // A second initialized is not news.
    map["notifications/initialized"].handler({}, ctx);
    map["notifications/roots/list_changed"].handler({}, ctx);
  };
  const withRoots = new Session(() => {});
  await run(withRoots, { roots: { listChanged: true } });
  assert.deepEqual(calls, [withRoots, withRoots]);
  calls.length = 0;
  await run(new Session(() => {}), {});
  assert.deepEqual(calls, []);
});
