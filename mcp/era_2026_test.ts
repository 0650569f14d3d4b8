import { strict as assert } from "node:assert";
import { META, ModernErrorCode, shape } from "./era_2026.ts";
import { decode, ErrorCode, type JsonObject, RpcError } from "./jsonrpc.ts";
import type { MethodFacts } from "./methods.ts";
import { type HandlerMap, McpServer, specOf } from "./server.ts";
import { Session } from "./session.ts";

const V = "2026-07-28";

function meta(extra: JsonObject = {}, capabilities: JsonObject = {}) {
  return {
    [META.protocolVersion]: V,
    [META.clientInfo]: { name: "t", version: "1" },
    [META.clientCapabilities]: capabilities,
    ...extra,
  };
}

const SAMPLE = {
  messages: [{ role: "user" as const, content: { type: "text", text: "?" } }],
  maxTokens: 5,
};
const FORM = {
  message: "Name?",
  requestedSchema: {
    type: "object" as const,
    properties: { name: { type: "string" as const } },
  },
};

/**
 * What the registry rows of the methods these tests use say (the server's
 * own rows are in `handlers/mod.ts`): a bare handler given to `setUp`
 * gets its method's.
 */
const FACTS: Readonly<Record<string, MethodFacts>> = {
  "ping": { until: "2025-11-25", instead: "any request shows it" },
  "tools/list": { cacheHint: { ttlMs: 300_000, cacheScope: "public" } },
  "tools/call": { asksInput: true },
  "resources/read": {
    asksInput: true,
    cacheHint: { ttlMs: 5_000, cacheScope: "private" },
  },
};

/** A server of `handlers` speaking 2026-07-28, and what its session sent. */
function setUp(handlers: HandlerMap, versions = [V, "2025-06-18"]) {
  const server = new McpServer({
    handlers: Object.fromEntries(
      Object.entries(handlers).map(([method, entry]) => [
        method,
        { ...FACTS[method], ...specOf(entry) },
      ]),
    ),
    info: { name: "era-test", version: "1.0.0" },
    protocolVersions: versions,
  });
  const sent: JsonObject[] = [];
  const session = new Session((line) => sent.push(JSON.parse(line)));
  const call = async (message: JsonObject): Promise<JsonObject | undefined> => {
    const line = await server.dispatch(
      decode(JSON.stringify({ jsonrpc: "2.0", ...message })),
      session,
    );
    return line === undefined ? undefined : JSON.parse(line);
  };
  return { server, session, sent, call };
}

Deno.test("era 2026: the server offers 2026-07-28 only when configured, never by initialize", async () => {
  const legacy = setUp({ "tools/list": () => ({ tools: [] }) }, ["2025-06-18"]);
  assert.deepEqual(legacy.server.modernVersions, []);
  const probe = await legacy.call({
    id: 1,
    method: "server/discover",
    params: { _meta: meta() },
  });
  assert.equal((probe?.error as JsonObject).code, ErrorCode.MethodNotFound);
  // A _meta naming 2026-07-28 means nothing to a server without it.
  const listed = await legacy.call({
    id: 2,
    method: "tools/list",
    params: { _meta: meta() },
  });
  assert.deepEqual(listed?.result, { tools: [] });

  const dual = setUp({});
  assert.deepEqual(dual.server.protocolVersions, ["2025-06-18"]);
  assert.deepEqual(dual.server.modernVersions, [V]);
});

Deno.test("era 2026: results carry resultType, caching hints and serverInfo; ids are kept exactly as sent", async () => {
  const { call, server: era, session } = setUp({
    "tools/list": () => ({ tools: [], _meta: { "com.example/x": 1 } }),
    "tools/call": () => ({ content: [] }),
  });
  const listed = await call({
    id: 1,
    method: "tools/list",
    params: { _meta: meta() },
  });
  assert.deepEqual(listed?.result, {
    resultType: "complete",
    tools: [],
    _meta: {
      "com.example/x": 1,
      [META.serverInfo]: { name: "era-test", version: "1.0.0" },
    },
    ttlMs: 300_000,
    cacheScope: "public",
  });
  const server = new McpServer({
    handlers: {},
    info: { name: "s", version: "1" },
  });
  // Shaping works on values, and the answer is encoded once after it: a
  // big id's digits stay as sent.
  const big = await era.dispatch(
    decode(
      `{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"_meta":${
        JSON.stringify(meta())
      }}}`,
    ),
    session,
  );
  assert.equal(
    big,
    '{"jsonrpc":"2.0","id":9007199254740993,"result":{"resultType":"complete","content":[],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"era-test","version":"1.0.0"}}}}',
  );
  // A result that is no object is refused, not shaped.
  assert.deepEqual(
    shape(server, "tools/call", { result: "text" }),
    { result: "text" },
  );
  const shaped = shape(server, "tools/call", { result: { content: [] } });
  assert.equal(
    JSON.stringify(shaped),
    '{"result":{"resultType":"complete","content":[],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}}',
  );
});

Deno.test("era 2026: resource not found is -32602; other errors keep their code", async () => {
  const { call } = setUp({
    "resources/read": () => {
      throw new RpcError(ErrorCode.ResourceNotFound, "Resource not found: x", {
        uri: "x",
      });
    },
    "tools/call": () => {
      throw new RpcError(-32002, "not about resources");
    },
  });
  const read = await call({
    id: 1,
    method: "resources/read",
    params: { uri: "x", _meta: meta() },
  });
  assert.deepEqual(read?.error, {
    code: -32602,
    message: "Resource not found: x",
    data: { uri: "x" },
  });
  // The same handler in the handshake era still answers -32002.
  const legacy = await call({
    id: 2,
    method: "resources/read",
    params: { uri: "x" },
  });
  assert.equal((legacy?.error as JsonObject).code, -32002);
});

Deno.test("era 2026: _meta is checked, and a version not spoken is -32022 with the supported ones", async () => {
  const { call } = setUp({ "tools/list": () => ({ tools: [] }) });
  for (
    const params of [
      {},
      { _meta: "x" },
      { _meta: { [META.clientCapabilities]: {}, [META.protocolVersion]: 1 } },
      { _meta: { [META.protocolVersion]: V } },
      { _meta: meta({ [META.clientCapabilities]: [] }) },
      { _meta: meta({ [META.logLevel]: "loud" }) },
    ]
  ) {
    const answer = await call({ id: 1, method: "server/discover", params });
    assert.equal(
      (answer?.error as JsonObject).code,
      ErrorCode.InvalidParams,
      JSON.stringify(params),
    );
  }
  const answer = await call({
    id: 2,
    method: "tools/list",
    params: { _meta: meta({ [META.protocolVersion]: "2099-01-01" }) },
  });
  assert.deepEqual(answer?.error, {
    code: ModernErrorCode.UnsupportedProtocolVersion,
    message:
      "Unsupported protocol version: this server does not speak MCP 2099-01-01; use one of 2026-07-28, 2025-06-18.",
    data: { supported: [V, "2025-06-18"], requested: "2099-01-01" },
  });
  // clientInfo may be left out.
  const ok = await call({
    id: 3,
    method: "tools/list",
    params: {
      _meta: { [META.protocolVersion]: V, [META.clientCapabilities]: {} },
    },
  });
  assert.equal((ok?.result as JsonObject).resultType, "complete");
});

Deno.test("era 2026: removed methods are -32601 for a 2026-07-28 request, and served for 2025", async () => {
  const { call } = setUp({ ping: () => ({}) });
  const modern = await call({
    id: 1,
    method: "ping",
    params: { _meta: meta() },
  });
  assert.equal((modern?.error as JsonObject).code, ErrorCode.MethodNotFound);
  assert.deepEqual((await call({ id: 2, method: "ping" }))?.result, {});
});

Deno.test("era 2026: a request's session is its _meta's, and leaves the connection's alone", async () => {
  let seen: Session | undefined;
  const { call, session } = setUp({
    "tools/call": (_params, ctx) => {
      seen = ctx.session;
      return { content: [] };
    },
  });
  await call({
    id: 1,
    method: "tools/call",
    params: { name: "x", _meta: meta({}, { sampling: {} }) },
  });
  assert.ok(seen !== undefined && seen !== session);
  assert.equal(seen.protocolVersion, V);
  assert.deepEqual(seen.clientInfo, { name: "t", version: "1" });
  assert.ok(seen.declares("sampling"));
  assert.equal(session.protocolVersion, undefined);
  assert.equal(session.state, "new");
});

function asking(): HandlerMap {
  return {
    "tools/call": async (params, ctx) => {
      if (params.name === "parallel") {
        const [sampled, elicited, roots] = await Promise.all([
          ctx.sample(SAMPLE),
          ctx.elicit(FORM),
          ctx.listRoots(),
        ]);
        return {
          content: [],
          structuredContent: { sampled, elicited, roots },
        };
      }
      const sampled = await ctx.sample(SAMPLE);
      let elicited: unknown;
      try {
        elicited = await ctx.elicit(FORM);
      } catch (error) {
        // A handler that catches still gets its request answered as
        // input_required: its own answer is dropped.
        return { content: [], structuredContent: { caught: String(error) } };
      }
      return { content: [], structuredContent: { sampled, elicited } };
    },
  };
}

const ALL = { sampling: {}, elicitation: { form: {} }, roots: {} };
const SAMPLED = {
  role: "assistant",
  content: { type: "text", text: "Paris" },
  model: "m",
};
const ELICITED = { action: "accept", content: { name: "Ada" } };

Deno.test("era 2026: requests to the client become input_required rounds, the answers carried in requestState", async () => {
  const { call, sent } = setUp(asking());
  const params = { name: "sequential", arguments: { a: 1 } };
  const first = (await call({
    id: 1,
    method: "tools/call",
    params: { ...params, _meta: meta({}, ALL) },
  }))?.result as JsonObject;
  assert.equal(first.resultType, "input_required");
  assert.deepEqual(first.inputRequests, {
    sampling_1: { method: "sampling/createMessage", params: SAMPLE },
  });
  assert.equal(typeof first.requestState, "string");
  assert.equal(first.ttlMs, undefined, "input_required is not cacheable");

  const second = (await call({
    id: 2,
    method: "tools/call",
    params: {
      ...params,
      _meta: meta({}, ALL),
      inputResponses: { sampling_1: SAMPLED },
      requestState: first.requestState,
    },
  }))?.result as JsonObject;
  assert.equal(second.resultType, "input_required");
  assert.deepEqual(Object.keys(second.inputRequests as JsonObject), [
    "elicitation_1",
  ]);

  // The third round sends only the newest answer: the first comes from
  // the state.
  const third = (await call({
    id: 3,
    method: "tools/call",
    params: {
      ...params,
      _meta: meta({}, ALL),
      inputResponses: { elicitation_1: ELICITED },
      requestState: second.requestState,
    },
  }))?.result as JsonObject;
  assert.equal(third.resultType, "complete");
  assert.deepEqual(third.structuredContent, {
    sampled: SAMPLED,
    elicited: ELICITED,
  });
  // Nothing was sent to the client: no request, no notification.
  assert.deepEqual(sent, []);

  // The state of one request does not serve another.
  const other = await call({
    id: 4,
    method: "tools/call",
    params: {
      name: "sequential",
      arguments: { a: 2 },
      _meta: meta({}, ALL),
      inputResponses: { elicitation_1: ELICITED },
      requestState: second.requestState,
    },
  });
  assert.equal((other?.error as JsonObject).code, ErrorCode.InvalidParams);
  assert.match(
    (other?.error as JsonObject).message as string,
    /belongs to another request/,
  );
});

Deno.test("era 2026: requests made together are asked in one round", async () => {
  const { call } = setUp(asking());
  const params = { name: "parallel", _meta: meta({}, ALL) };
  const first = (await call({ id: 1, method: "tools/call", params }))
    ?.result as JsonObject;
  assert.deepEqual(Object.keys(first.inputRequests as JsonObject), [
    "sampling_1",
    "elicitation_1",
    "roots_1",
  ]);
  const done = (await call({
    id: 2,
    method: "tools/call",
    params: {
      ...params,
      inputResponses: {
        sampling_1: SAMPLED,
        elicitation_1: ELICITED,
        roots_1: { roots: [{ uri: "file:///a" }] },
      },
      requestState: first.requestState,
    },
  }))?.result as JsonObject;
  assert.deepEqual(done.structuredContent, {
    sampled: SAMPLED,
    elicited: ELICITED,
    roots: [{ uri: "file:///a" }],
  });
});

Deno.test("era 2026: a capability the request did not declare is -32021 naming it", async () => {
  const { call } = setUp(asking());
  const answer = await call({
    id: 1,
    method: "tools/call",
    params: { name: "sequential", _meta: meta() },
  });
  assert.equal(
    (answer?.error as JsonObject).code,
    ModernErrorCode.MissingRequiredClientCapability,
  );
  assert.deepEqual((answer?.error as JsonObject).data, {
    requiredCapabilities: { sampling: {} },
  });
});

Deno.test("era 2026: log records go only to a request that set a level, at or above it", async () => {
  const { call, sent } = setUp({
    "tools/call": (_params, ctx) => {
      ctx.log("info", "info record");
      ctx.log("error", "error record");
      return { content: [] };
    },
  });
  await call({
    id: 1,
    method: "tools/call",
    params: { name: "x", _meta: meta() },
  });
  assert.deepEqual(sent, []);
  await call({
    id: 2,
    method: "tools/call",
    params: { name: "x", _meta: meta({ [META.logLevel]: "warning" }) },
  });
  assert.deepEqual(sent, [{
    jsonrpc: "2.0",
    method: "notifications/message",
    params: { level: "error", data: "error record" },
  }]);
});

Deno.test("era 2026: a cancelled request is not answered", async () => {
  const started = Promise.withResolvers<void>();
  const { server, session } = setUp({
    "tools/call": async (_params, ctx) => {
      started.resolve();
      await new Promise((resolve) =>
        ctx.signal.addEventListener("abort", resolve)
      );
      return { content: [] };
    },
  });
  const answer = server.dispatch(
    decode(JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "x", _meta: meta() },
    })),
    session,
  );
  await started.promise;
  session.cancel(7, "user");
  assert.equal(await answer, undefined);
});

Deno.test("era 2026: a request cancelled before its handler starts never runs", async () => {
  let ran = false;
  const { server, session, sent } = setUp({
    "tools/call": () => {
      ran = true;
      return { content: [] };
    },
  });
  const answer = server.dispatch(
    decode(JSON.stringify({
      jsonrpc: "2.0",
      id: "c",
      method: "tools/call",
      params: { name: "x", _meta: meta() },
    })),
    session,
  );
  // The cancellation read right after it, before any await has run.
  session.cancel("c", "changed my mind");
  assert.equal(await answer, undefined);
  assert.equal(ran, false);
  assert.deepEqual(sent, []);
  assert.equal(session.inFlight.size, 0);
});
