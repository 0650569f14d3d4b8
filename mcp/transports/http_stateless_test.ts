/**
 * Streamable HTTP for MCP 2026-07-28 over real sockets: stateless POSTs
 * (no session id asked for or issued), the mirrored headers checked
 * against the body, the HTTP status of each error code, a request's
 * notifications on its own stream, a held-open request's stream and its
 * cancellation by closing it, and the handshake era beside it unchanged.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import type { RequestSession } from "../era_2026.ts";
import { EMPTY_RESULT, type JsonObject } from "../jsonrpc.ts";
import { type HandlerMap, McpServer } from "../server.ts";
import { type HttpOptions, serveHttp } from "./http.ts";
import {
  annotatedHeaders,
  decodeHeaderValue,
  headerMismatch,
  statusOfAnswer,
} from "./http_stateless.ts";

const V = "2026-07-28";
const BOTH = "application/json, text/event-stream";

function meta(capabilities: JsonObject = {}): JsonObject {
  return {
    "io.modelcontextprotocol/protocolVersion": V,
    "io.modelcontextprotocol/clientCapabilities": capabilities,
    "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
  };
}

interface Fixture {
  url: string;
  calls: string[];
  /** Send a notification on the held-open request's stream. */
  tick: () => void;
  /** Resolves with how the held-open request ended. */
  held: Promise<string>;
  sessions: () => number;
}

async function withServer(
  test: (f: Fixture) => Promise<void>,
  options: Partial<HttpOptions> = {},
) {
  const calls: string[] = [];
  let tick = () => {};
  const held = Promise.withResolvers<string>();
  const handlers: HandlerMap = {
    // Gone from 2026-07-28, as in the server's registry (handlers/mod.ts).
    "ping": { handler: () => EMPTY_RESULT, atOnce: true, until: "2025-11-25" },
    "initialize": (params, { session }) => {
      session.protocolVersion = String(params.protocolVersion);
      session.state = "initializing";
      return { protocolVersion: session.protocolVersion };
    },
    "notifications/initialized": (_params, { session }) => {
      session.state = "ready";
    },
    "notifications/cancelled": (params, { session }) => {
      const id = params.requestId;
      if (typeof id === "string" || typeof id === "number") {
        session.cancel(id, "cancelled by the client");
      }
    },
    "server/discover": () => ({ supportedVersions: [V] }),
    "tools/list": () => ({ tools: [] }),
    // Its row names the field Mcp-Name mirrors, as the server's own does.
    "tools/call": {
      nameKey: "name",
      handler: async (params, ctx) => {
        calls.push(`call ${params.name}`);
        if (params.name === "sample") {
          await ctx.sample({ messages: [], maxTokens: 1 });
        }
        ctx.notify("notifications/progress", {
          progressToken: "p",
          progress: 1,
        });
        return { content: [{ type: "text", text: "done" }] };
      },
    },
    "watch": (_params, ctx) => {
      calls.push("watch");
      const session = ctx.session as RequestSession;
      session.holdOpen();
      ctx.notify("notifications/ack", {});
      tick = () => ctx.notify("notifications/tick", {});
      return new Promise<JsonObject>((resolve) => {
        ctx.signal.addEventListener("abort", () => {
          held.resolve("cancelled");
          resolve({});
        }, { once: true });
        session.onInputEnd(() => {
          held.resolve("input ended");
          resolve({ closing: true });
        });
      });
    },
  };
  const server = new McpServer({
    handlers,
    info: { name: "stateless-test", version: "1.0.0" },
    protocolVersions: ["2025-06-18", V],
  });
  server.tools.register({
    name: "mirrored",
    description: "A tool with a mirrored argument.",
    inputSchema: {
      type: "object",
      properties: {
        region: { type: "string", "x-mcp-header": "Region" },
        size: { type: "integer", "x-mcp-header": "Size" },
      },
    },
    run: () => ({ content: [] }),
  });
  const http = serveHttp(server, { port: 0, stopGraceMs: 5_000, ...options });
  try {
    await test({
      url: http.url,
      calls,
      tick: () => tick(),
      held: held.promise,
      sessions: () => http.sessions,
    });
  } finally {
    await http.shutdown();
  }
}

function request(
  id: number,
  method: string,
  params: JsonObject = {},
): JsonObject {
  return {
    jsonrpc: "2.0",
    id,
    method,
    params: { ...params, _meta: meta() },
  };
}

/** The headers a conforming client sends for `body`. */
function mirrored(body: JsonObject): Record<string, string> {
  const params = body.params as JsonObject;
  const headers: Record<string, string> = {
    "mcp-protocol-version": V,
    "mcp-method": String(body.method),
  };
  const name = params.name ?? params.uri;
  if (typeof name === "string") headers["mcp-name"] = name;
  return headers;
}

async function post(
  url: string,
  body: JsonObject,
  headers: Record<string, string> = mirrored(body),
): Promise<Response> {
  return await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: BOTH, ...headers },
    body: JSON.stringify(body),
  });
}

/** A handshake-era `initialize` (2025-06-18), sent without 2026 headers. */
const INITIALIZE: JsonObject = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "t", version: "1" },
  },
};

/** Read SSE events' data until the stream ends. */
async function readAll(body: ReadableStream<Uint8Array>): Promise<string[]> {
  const text = await new Response(body).text();
  return text.split("\n").filter((line) => line.startsWith("data: ")).map((
    line,
  ) => line.slice(6));
}

/** Read SSE events one at a time. */
class Events {
  #reader: ReadableStreamDefaultReader<string>;
  #buffer = "";
  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.pipeThrough(new TextDecoderStream()).getReader();
  }
  /** Comment lines seen so far (keep-alives). */
  comments = 0;
  async next(): Promise<JsonObject | undefined> {
    while (true) {
      const end = this.#buffer.indexOf("\n\n");
      if (end >= 0) {
        const event = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        if (event.startsWith(":")) this.comments++;
        const data = event.split("\n").find((l) => l.startsWith("data: "));
        if (data !== undefined) return JSON.parse(data.slice(6));
        continue;
      }
      const { value, done } = await this.#reader.read();
      if (done) return undefined;
      this.#buffer += value;
    }
  }
  async cancel(): Promise<void> {
    await this.#reader.cancel();
  }
}

Deno.test("http 2026: a POST without a session id is served statelessly, and none is issued", async () => {
  await withServer(async ({ url, sessions }) => {
    for (const id of [1, 2]) {
      const response = await post(url, request(id, "server/discover"));
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("mcp-session-id"), null);
      assert.equal(response.headers.get("content-type"), "application/json");
      const answer = await response.json();
      assert.equal(answer.id, id);
      assert.equal(answer.result.resultType, "complete");
      assert.deepEqual(answer.result.supportedVersions, [V]);
    }
    // A session id of an older revision is ignored, not looked up.
    const ignored = await post(url, request(3, "tools/list"), {
      ...mirrored(request(3, "tools/list")),
      "mcp-session-id": "no-such-session",
    });
    assert.equal(ignored.status, 200);
    assert.equal((await ignored.json()).result.resultType, "complete");
    assert.equal(sessions(), 0);
  });
});

Deno.test("http 2026: headers that disagree with the body, or are missing, are 400 -32020 and nothing runs", async () => {
  await withServer(async ({ url, calls }) => {
    const call = request(1, "tools/call", { name: "echo", arguments: {} });
    const cases: [string, Record<string, string>][] = [
      ["no version", { ...mirrored(call), "mcp-protocol-version": "" }],
      ["other version", {
        ...mirrored(call),
        "mcp-protocol-version": "2025-06-18",
      }],
      ["no method", { ...mirrored(call), "mcp-method": "" }],
      ["other method", { ...mirrored(call), "mcp-method": "tools/list" }],
      ["method case", { ...mirrored(call), "mcp-method": "TOOLS/CALL" }],
      ["no name", { ...mirrored(call), "mcp-name": "" }],
      ["other name", { ...mirrored(call), "mcp-name": "wrong" }],
      ["bad base64 name", { ...mirrored(call), "mcp-name": "=?base64?ZWNo?=" }],
    ];
    for (const [what, headers] of cases) {
      // An empty value stands for a header left out.
      const sent = Object.fromEntries(
        Object.entries(headers).filter(([, value]) => value !== ""),
      );
      const response = await post(url, call, sent);
      assert.equal(response.status, 400, what);
      const answer = await response.json();
      assert.equal(answer.id, 1, what);
      assert.equal(answer.error.code, -32020, what);
      assert.match(answer.error.message, /^Header mismatch: /, what);
    }
    assert.deepEqual(calls, []);
    // Header names in any case; the name Base64-encoded; padding stripped.
    const ok = await post(url, call, {
      "MCP-PROTOCOL-VERSION": V,
      "MCP-METHOD": "tools/call",
      "Mcp-Name": `=?base64?${btoa("echo")}?=`,
    });
    assert.equal(ok.status, 200);
    assert.equal((await readAll(ok.body!)).length, 2);
    assert.deepEqual(calls, ["call echo"]);
  });
});

Deno.test("http 2026: Mcp-Param headers of x-mcp-header arguments are checked, Base64 decoded strictly", async () => {
  await withServer(async ({ url }) => {
    const call = (args: JsonObject) =>
      request(1, "tools/call", { name: "mirrored", arguments: args });
    const status = async (args: JsonObject, extra: Record<string, string>) => {
      const body = call(args);
      const response = await post(url, body, { ...mirrored(body), ...extra });
      if (response.status !== 400) {
        await response.body?.cancel();
        return response.status;
      }
      return (await response.json()).error.code;
    };
    assert.equal(
      await status({ region: "eu" }, { "mcp-param-region": "eu" }),
      200,
    );
    assert.equal(
      await status({ region: "Hello" }, {
        "Mcp-Param-Region": `=?base64?${btoa("Hello")}?=`,
      }),
      200,
    );
    // A value that only looks like the encoding is taken as it is.
    assert.equal(
      await status({ region: "=?base64?SGVsbG8=" }, {
        "mcp-param-region": "=?base64?SGVsbG8=",
      }),
      200,
    );
    assert.equal(await status({ size: 42 }, { "mcp-param-size": "42.0" }), 200);
    assert.equal(await status({}, {}), 200);
    assert.equal(await status({ region: "eu" }, {}), -32020);
    assert.equal(
      await status({ region: "eu" }, { "mcp-param-region": "us" }),
      -32020,
    );
    assert.equal(
      await status({ region: "Hello" }, {
        "mcp-param-region": "=?base64?SGVsbG8?=",
      }),
      -32020,
    );
    assert.equal(
      await status({ region: "Hello" }, {
        "mcp-param-region": "=?base64?SGVs!!!bG8=?=",
      }),
      -32020,
    );
    assert.equal(
      await status({ size: 42 }, { "mcp-param-size": "41" }),
      -32020,
    );
  });
});

Deno.test("http 2026: error answers get the revision's status: 404 for -32601, 400 for -32602, -32021, -32022", async () => {
  await withServer(async ({ url }) => {
    const errorOf = async (response: Response) => {
      const answer = await response.json();
      return [response.status, answer.error?.code];
    };
    // Removed and unknown methods.
    assert.deepEqual(await errorOf(await post(url, request(1, "ping"))), [
      404,
      -32601,
    ]);
    assert.deepEqual(await errorOf(await post(url, request(2, "nope/x"))), [
      404,
      -32601,
    ]);
    // No _meta, or an incomplete one.
    const bare = { jsonrpc: "2.0", id: 3, method: "tools/list", params: {} };
    assert.deepEqual(
      await errorOf(await post(url, bare, mirrored(request(3, "tools/list")))),
      [400, -32602],
    );
    // A version the server does not speak, in header and body alike.
    const future = request(4, "tools/list");
    (future.params as JsonObject)._meta = {
      ...meta(),
      "io.modelcontextprotocol/protocolVersion": "2099-01-01",
    };
    const response = await post(url, future, {
      ...mirrored(future),
      "mcp-protocol-version": "2099-01-01",
    });
    assert.equal(response.status, 400);
    const answer = await response.json();
    assert.equal(answer.error.code, -32022);
    assert.ok(answer.error.data.supported.includes(V));
    // Not a valid request at all: its error, not 202.
    const invalid = await post(
      url,
      { jsonrpc: "2.0", id: 6, method: 7 } as unknown as JsonObject,
      { "mcp-protocol-version": V, "mcp-method": "x" },
    );
    assert.equal(invalid.status, 400);
    const refused = await invalid.json();
    assert.equal(refused.id, 6);
    assert.equal(refused.error.code, -32600);
    // A capability the client did not declare.
    assert.deepEqual(
      await errorOf(
        await post(url, request(5, "tools/call", { name: "sample" })),
      ),
      [400, -32021],
    );
  });
});

Deno.test("http 2026: a request's notifications go on its own stream, then its answer ends it", async () => {
  await withServer(async ({ url }) => {
    const response = await post(
      url,
      request(7, "tools/call", { name: "echo", arguments: {} }),
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    assert.equal(response.headers.get("x-accel-buffering"), "no");
    assert.equal(response.headers.get("mcp-session-id"), null);
    const events = (await readAll(response.body!)).map((d) => JSON.parse(d));
    assert.equal(events.length, 2);
    assert.equal(events[0].method, "notifications/progress");
    assert.equal(events[1].id, 7);
    assert.equal(events[1].result.resultType, "complete");
  });
});

Deno.test("http 2026: a held-open request keeps its stream, carries later notifications, and closing the stream cancels it", async () => {
  await withServer(async ({ url, tick, held, calls }) => {
    const response = await post(url, request(9, "watch"));
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    const events = new Events(response.body!);
    assert.equal((await events.next())?.method, "notifications/ack");
    // Other requests are served meanwhile.
    const other = await post(url, request(10, "tools/list"));
    assert.equal(other.status, 200);
    await other.body?.cancel();
    tick();
    assert.equal((await events.next())?.method, "notifications/tick");
    await events.cancel();
    assert.equal(await held, "cancelled");
    assert.deepEqual(calls, ["watch"]);
  });
});

Deno.test("http 2026: shutdown ends a held-open request with its answer", async () => {
  let reading: Promise<JsonObject | undefined> | undefined;
  await withServer(async ({ url, held }) => {
    const response = await post(url, request(11, "watch"));
    const events = new Events(response.body!);
    assert.equal((await events.next())?.method, "notifications/ack");
    // The shutdown (when this returns) ends the input: a closing answer,
    // then the end of the stream.
    reading = (async () => {
      const answer = await events.next();
      assert.equal(await events.next(), undefined);
      assert.equal(await held, "input ended");
      return answer;
    })();
  });
  const answer = await reading;
  assert.equal(answer?.id, 11);
  assert.equal((answer?.result as JsonObject).closing, true);
});

Deno.test("http 2026: the handshake era is served beside it as before; GET and DELETE without a session are 405", async () => {
  await withServer(async ({ url, sessions }) => {
    const init = await post(url, INITIALIZE, {});
    assert.equal(init.status, 200);
    assert.ok(init.headers.get("mcp-session-id"));
    await init.body?.cancel();
    assert.equal(sessions(), 1);
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(url, {
        method,
        headers: { accept: "text/event-stream", "mcp-protocol-version": V },
      });
      assert.equal(response.status, 405, method);
      assert.equal(response.headers.get("allow"), "POST");
      await response.body?.cancel();
    }
  });
});

Deno.test("http 2026: header values decode from =?base64?…?= strictly; x-mcp-header paths are found", () => {
  assert.equal(decodeHeaderValue("plain"), "plain");
  assert.equal(decodeHeaderValue(`=?base64?${btoa("Hi")}?=`), "Hi");
  assert.equal(decodeHeaderValue("=?base64?5LiW55WM?="), "世界");
  assert.equal(decodeHeaderValue("=?base64?SGk?="), undefined);
  assert.equal(decodeHeaderValue("=?base64?//79?="), undefined); // not UTF-8
  assert.equal(decodeHeaderValue("a\u0001b"), undefined);
  assert.deepEqual(
    [
      ...annotatedHeaders({
        properties: {
          a: { "x-mcp-header": "A" },
          b: { properties: { c: { "x-mcp-header": "C" } } },
        },
      }),
    ],
    [["mcp-param-a", ["a"]], ["mcp-param-c", ["b", "c"]]],
  );
  assert.equal(statusOfAnswer('{"jsonrpc":"2.0","id":1,"result":{}}'), 200);
  assert.equal(
    statusOfAnswer(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"x"}}',
    ),
    200,
  );
  assert.equal(
    statusOfAnswer(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"x"}}',
    ),
    400,
  );
  // Read from the answer's prefix: a string id (with escaped quotes) or
  // a result that holds an "error" key does not fool it.
  const answers: [string, number][] = [
    [
      '{"jsonrpc":"2.0","id":"a\\",\\"error\\":{\\"code\\":-32601,","result":{}}',
      200,
    ],
    [
      '{"jsonrpc":"2.0","id":"q\\"","error":{"code":-32601,"message":"x"}}',
      404,
    ],
    ['{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"x"}}', 400],
    ['{"jsonrpc":"2.0","id":2,"result":{"error":{"code":-32602}}}', 200],
    [
      '{"jsonrpc":"2.0","id":"","error":{"code":-32021,"message":"x","data":{}}}',
      400,
    ],
  ];
  for (const [line, status] of answers) {
    JSON.parse(line);
    assert.equal(statusOfAnswer(line), status, line);
  }
});

Deno.test("http 2026: a held-open stream carries keep-alive comments while quiet; requests over the limit are 503", async () => {
  await withServer(async ({ url, tick }) => {
    const response = await post(url, request(12, "watch"));
    const events = new Events(response.body!);
    assert.equal((await events.next())?.method, "notifications/ack");
    // The request slot is taken: another request waits for room.
    const refused = await post(url, request(13, "tools/list"));
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("retry-after"), "1");
    await refused.body?.cancel();
    // Comments come while nothing else does; the next event follows them.
    const ticking = setInterval(() => {
      if (events.comments >= 2) tick();
    }, 10);
    try {
      assert.equal((await events.next())?.method, "notifications/tick");
    } finally {
      clearInterval(ticking);
    }
    assert.ok(events.comments >= 2);
    await events.cancel();
  }, { keepAliveMs: 20, maxSessions: 1 });
});

Deno.test("http 2026: in a session of the handshake era too, a stateless request's notifications ride its own POST's stream", async () => {
  await withServer(async ({ url }) => {
    const init = await post(url, INITIALIZE, {});
    const session = init.headers.get("mcp-session-id")!;
    await init.body?.cancel();
    const response = await post(
      url,
      request(14, "tools/call", { name: "echo", arguments: {} }),
      { "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" },
    );
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    const events = (await readAll(response.body!)).map((d) => JSON.parse(d));
    assert.deepEqual(events.map((e) => e.method ?? e.id), [
      "notifications/progress",
      14,
    ]);
  });
});

Deno.test("http 2026: Mcp-Name of a tasks/* request must be its taskId", () => {
  const message = {
    kind: "request" as const,
    id: 1,
    method: "tasks/get",
    params: { taskId: "t-1", _meta: meta() },
  };
  const headers = (name?: string) =>
    new Headers({
      "mcp-protocol-version": V,
      "mcp-method": "tasks/get",
      ...(name === undefined ? {} : { "mcp-name": name }),
    });
  const check = (headers: Headers) =>
    headerMismatch(headers, message, undefined, "taskId");
  assert.equal(check(headers("t-1")), undefined);
  assert.match(
    check(headers("t-2")) ?? "",
    /Mcp-Name header value 't-2' does not match body value 't-1'/,
  );
  assert.match(
    check(headers()) ?? "",
    /Mcp-Name header is missing; a tasks\/get request sends its taskId/,
  );
  // A method whose row names no field ignores Mcp-Name.
  const other = { ...message, method: "toString", params: { _meta: meta() } };
  const otherHeaders = headers("x");
  otherHeaders.set("mcp-method", "toString");
  assert.equal(headerMismatch(otherHeaders, other), undefined);
});
