/**
 * The Streamable HTTP transport over real sockets: every status code and
 * header rule, hostile input (each answered with the right status, nothing
 * served, and the server healthy afterwards), SSE routing, resumption and
 * polling, idle sessions, and graceful shutdown.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { EMPTY_RESULT, type JsonObject } from "../jsonrpc.ts";
import { type HandlerMap, McpServer } from "../server.ts";
import type { Session } from "../session.ts";
import { type HttpOptions, type HttpServer, serveHttp } from "./http.ts";
import { readUntil } from "./_test_utils.ts";

/**
 * The methods these tests lean on, written out here: the transport is
 * tested against the library alone, not against the server's handlers.
 */
function handlers(calls: string[], gates: Map<string, Promise<void>>) {
  const map: HandlerMap = {
    "ping": () => EMPTY_RESULT,
    "initialize": (params, { session }) => {
      calls.push("initialize");
      if (typeof params.protocolVersion !== "string") {
        throw new TypeError("protocolVersion missing");
      }
      session.protocolVersion = params.protocolVersion;
      session.clientCapabilities = params.capabilities as JsonObject;
      session.state = "initializing";
      return { protocolVersion: session.protocolVersion };
    },
    "notifications/initialized": (_params, { session }) => {
      calls.push("initialized");
      session.state = "ready";
    },
    "notifications/cancelled": (params, { session }) => {
      const id = params.requestId;
      if (typeof id === "string" || typeof id === "number") {
        session.cancel(id, "cancelled by the client");
      }
    },
    // Reports progress and a notification of its own, then answers.
    "work": async (params, ctx) => {
      calls.push("work");
      const gate = gates.get(String(params.gate));
      if (gate !== undefined) await gate;
      ctx.notify("notifications/message", { level: "info", data: "working" });
      return { done: params.n ?? true };
    },
    // Answers `size` characters, once the gate opens.
    "big": async (params) => {
      const gate = gates.get(String(params.gate));
      if (gate !== undefined) await gate;
      return { data: "x".repeat(Number(params.size)) };
    },
    // Asks the client something and answers with what it said.
    "ask": async (_params, ctx) => {
      const answer = await ctx.request("roots/list");
      return { answer } as JsonObject;
    },
    // Ends its stream at once, then answers once the gate opens.
    "reconnect": async (params, ctx) => {
      const closed = ctx.closeStream?.() ?? false;
      const gate = gates.get(String(params.gate));
      if (gate !== undefined) await gate;
      return { closed };
    },
  };
  return map;
}

interface Fixture {
  http: HttpServer;
  url: string;
  calls: string[];
  sessions: Session[];
  gates: Map<string, Promise<void>>;
  logged: string[];
}

async function withServer(
  options: Partial<HttpOptions>,
  test: (fixture: Fixture) => Promise<void>,
): Promise<void> {
  const calls: string[] = [];
  const sessions: Session[] = [];
  const gates = new Map<string, Promise<void>>();
  const logged: string[] = [];
  const server = new McpServer({
    handlers: handlers(calls, gates),
    info: { name: "example-mcp", version: "1.0.0" },
    protocolVersions: ["2025-11-25", "2025-06-18", "2025-03-26"],
    logger: {
      level: "debug",
      log: (level, message) => logged.push(`${level}: ${message}`),
    },
  });
  const http = serveHttp(server, {
    port: 0,
    onSession: (session) => sessions.push(session),
    ...options,
  });
  try {
    await test({ http, url: http.url, calls, sessions, gates, logged });
  } finally {
    await http.shutdown();
  }
}

const BOTH = "application/json, text/event-stream";

function headers(extra: Record<string, string> = {}): Record<string, string> {
  return { "content-type": "application/json", accept: BOTH, ...extra };
}

async function post(
  url: string,
  body: unknown,
  extra: Record<string, string> = {},
): Promise<Response> {
  return await fetch(url, {
    method: "POST",
    headers: headers(extra),
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** Initialize a session at `version`; returns its id. */
async function initialize(url: string, version = "2025-06-18") {
  const response = await post(url, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: version,
      capabilities: { roots: {} },
      clientInfo: { name: "test", version: "1" },
    },
  });
  assert.equal(response.status, 200);
  const id = response.headers.get("mcp-session-id");
  assert.ok(id !== null);
  await response.body?.cancel();
  const ready = await post(
    url,
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { "mcp-session-id": id, "mcp-protocol-version": version },
  );
  assert.equal(ready.status, 202);
  assert.equal(await ready.text(), "");
  return id;
}

/** An HTTP-level error body: JSON-RPC, id null, the code and a message. */
async function assertError(
  response: Response,
  status: number,
  code: number,
  pattern: RegExp,
): Promise<void> {
  assert.equal(response.status, status);
  assert.match(response.headers.get("content-type") ?? "", /application\/json/);
  const body = await response.json();
  assert.equal(body.jsonrpc, "2.0");
  assert.equal(body.id, null);
  assert.equal(body.error.code, code);
  assert.match(body.error.message, pattern);
}

/** Whether the server still serves a fresh session end to end. */
async function assertHealthy(url: string): Promise<void> {
  const id = await initialize(url);
  const response = await post(
    url,
    { jsonrpc: "2.0", id: 1, method: "work", params: { n: 7 } },
    { "mcp-session-id": id, accept: "application/json" },
  );
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), {
    jsonrpc: "2.0",
    id: 1,
    result: { done: 7 },
  });
}

interface Event {
  id?: string;
  data: string;
  retry?: number;
}

/** Reads one SSE event at a time from a response body. */
class EventReader {
  readonly #reader: ReadableStreamDefaultReader<string>;
  #buffer = "";

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** The next event, or undefined once the stream has ended. */
  async next(): Promise<Event | undefined> {
    let at;
    while ((at = this.#buffer.indexOf("\n\n")) < 0) {
      const { done, value } = await this.#reader.read();
      if (done) return undefined;
      this.#buffer += value;
    }
    const block = this.#buffer.slice(0, at);
    this.#buffer = this.#buffer.slice(at + 2);
    const event: Event = { data: "" };
    const data: string[] = [];
    for (const line of block.split("\n")) {
      const colon = line.indexOf(":");
      const field = line.slice(0, colon);
      const value = line.slice(colon + 1).replace(/^ /, "");
      if (field === "id") event.id = value;
      else if (field === "retry") event.retry = Number(value);
      else if (field === "data") data.push(value);
    }
    event.data = data.join("\n");
    return event;
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}

/** Read SSE events from `body` until `until` says stop or it ends. */
async function readEvents(
  body: ReadableStream<Uint8Array>,
  until: (events: Event[]) => boolean = () => false,
): Promise<{ events: Event[]; ended: boolean }> {
  const reader = new EventReader(body);
  const events: Event[] = [];
  try {
    while (true) {
      const event = await reader.next();
      if (event === undefined) return { events, ended: true };
      events.push(event);
      if (until(events)) return { events, ended: false };
    }
  } finally {
    await reader.cancel();
  }
}

/** Wait (at most 10 s) until `check` holds. */
async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.ok(check(), `never happened: ${what}`);
}

Deno.test("http: initialize issues a session id; notifications get 202; requests are answered with JSON", async () => {
  await withServer({}, async ({ url, http }) => {
    assert.match(url, /^http:\/\/127\.0\.0\.1:[0-9]+\/mcp$/);
    const id = await initialize(url);
    assert.match(id, /^[\x21-\x7e]{32}$/);
    assert.equal(http.sessions, 1);
    const response = await post(
      url,
      { jsonrpc: "2.0", id: "p", method: "ping" },
      { "mcp-session-id": id },
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/json");
    assert.equal(response.headers.get("mcp-session-id"), id);
    assert.equal(
      await response.text(),
      '{"jsonrpc":"2.0","id":"p","result":{}}',
    );
    // A response from the client is accepted like a notification.
    const answer = await post(
      url,
      { jsonrpc: "2.0", id: "s9", result: {} },
      { "mcp-session-id": id },
    );
    assert.equal(answer.status, 202);
    assert.equal(await answer.text(), "");
  });
});

Deno.test("http: a missing session id is 400, an unknown or ended one 404", async () => {
  await withServer({}, async ({ url, calls }) => {
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    await assertError(await post(url, ping), 400, -32000, /Mcp-Session-Id/);
    await assertError(
      await post(url, ping, { "mcp-session-id": "nope" }),
      404,
      -32001,
      /initialize a new session/,
    );
    const id = await initialize(url);
    const ended = await fetch(url, {
      method: "DELETE",
      headers: { "mcp-session-id": id },
    });
    assert.equal(ended.status, 200);
    await ended.body?.cancel();
    await assertError(
      await post(url, ping, { "mcp-session-id": id }),
      404,
      -32001,
      /no open session/,
    );
    const again = await fetch(url, {
      method: "DELETE",
      headers: { "mcp-session-id": id },
    });
    await assertError(again, 404, -32001, /no open session/);
    const get = await fetch(url, { headers: { accept: "text/event-stream" } });
    await assertError(get, 400, -32000, /Mcp-Session-Id/);
    assert.deepEqual(calls, ["initialize", "initialized"]);
  });
});

Deno.test("http: MCP-Protocol-Version is checked; a missing one is accepted", async () => {
  await withServer({}, async ({ url }) => {
    const id = await initialize(url);
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    await assertError(
      await post(url, ping, {
        "mcp-session-id": id,
        "mcp-protocol-version": "1999-01-01",
      }),
      400,
      -32000,
      /MCP-Protocol-Version "1999-01-01" is not supported; send one of 2025-11-25/,
    );
    const plain = await post(url, ping, { "mcp-session-id": id });
    assert.equal(plain.status, 200);
    await plain.body?.cancel();
  });
});

Deno.test("http: wrong method 405, content type 415, Accept 406, bad JSON 400 -32700, other paths 404", async () => {
  await withServer({}, async ({ url, calls, http }) => {
    const put = await fetch(url, { method: "PUT", body: "{}" });
    assert.equal(put.headers.get("allow"), "GET, POST, DELETE");
    await assertError(put, 405, -32000, /use POST/);
    await assertError(
      await fetch(url, {
        method: "POST",
        headers: { "content-type": "text/plain", accept: BOTH },
        body: "{}",
      }),
      415,
      -32000,
      /Content-Type: application\/json/,
    );
    await assertError(
      await post(url, { jsonrpc: "2.0", id: 0, method: "initialize" }, {
        accept: "text/html",
      }),
      406,
      -32000,
      /Accept/,
    );
    await assertError(
      await post(url, "{not json"),
      400,
      -32700,
      /^Parse error: the body is not valid JSON/,
    );
    // Not a message at all, or an invalid one: refused before any session
    // is made for it.
    await assertError(await post(url, "42"), 400, -32600, /Invalid Request/);
    await assertError(
      await post(url, { jsonrpc: "1.0", id: 1, method: "initialize" }),
      400,
      -32600,
      /Invalid Request/,
    );
    await assertError(
      await post(url, [{ jsonrpc: "2.0", id: 1, method: "initialize" }]),
      400,
      -32000,
      /Mcp-Session-Id header is missing/,
    );
    assert.equal(http.sessions, 0);
    const id = await initialize(url);
    await assertError(
      await post(url, '{"jsonrpc":"2.0","id":1,', { "mcp-session-id": id }),
      400,
      -32700,
      /Parse error/,
    );
    await assertError(
      await fetch(new URL("/other", url), { method: "POST", body: "{}" }),
      404,
      -32000,
      /serves MCP at \/mcp only/,
    );
    const get = await fetch(url, {
      headers: { "mcp-session-id": id, accept: "application/json" },
    });
    await assertError(get, 406, -32000, /text\/event-stream/);
    assert.deepEqual(calls, ["initialize", "initialized"]);
    await assertHealthy(url);
  });
});

Deno.test("http: an oversized body is 413 (declared or streamed), and nothing is served", async () => {
  await withServer({ maxBodyBytes: 1000 }, async ({ url, calls }) => {
    const id = await initialize(url);
    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "work",
      params: { pad: "x".repeat(2000) },
    });
    await assertError(
      await post(url, big, { "mcp-session-id": id }),
      413,
      -32000,
      /over the limit of 1000 bytes/,
    );
    // Without a length up front: counted as it arrives.
    const bytes = new TextEncoder().encode(big);
    const streamed = await fetch(url, {
      method: "POST",
      headers: headers({ "mcp-session-id": id }),
      body: new ReadableStream({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 300) {
            controller.enqueue(bytes.slice(at, at + 300));
          }
          controller.close();
        },
      }),
    });
    await assertError(streamed, 413, -32000, /over the limit/);
    assert.ok(!calls.includes("work"));
    await assertHealthy(url);
  });
});

Deno.test("http: a body that is not UTF-8 is 400 -32700", async () => {
  await withServer({}, async ({ url }) => {
    const response = await fetch(url, {
      method: "POST",
      headers: headers(),
      body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
    });
    await assertError(response, 400, -32700, /UTF-8/);
  });
});

Deno.test("http: a forged Host or Origin is 403 and nothing is served", async () => {
  await withServer(
    { allowedOrigins: ["https://app.example"] },
    async ({ url, calls, http }) => {
      const init = {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {} },
      };
      const port = new URL(url).port;
      // fetch sets Host itself; a raw request sends the forged one.
      const forged = await rawRequest(
        Number(port),
        `POST /mcp HTTP/1.1\r\nHost: evil.example:${port}\r\nContent-Type: application/json\r\nAccept: ${BOTH}\r\nContent-Length: ${
          JSON.stringify(init).length
        }\r\nConnection: close\r\n\r\n${JSON.stringify(init)}`,
      );
      assert.match(forged, /^HTTP\/1\.1 403 /);
      assert.match(forged, /DNS-rebinding protection/);
      // What to do: connect to the URL, or allow the name.
      assert.match(
        forged,
        new RegExp(
          `connect to http://127\\.0\\.0\\.1:${port}/mcp, or, if this server should answer to that name, start it with evil\\.example:${port} in its allowedHosts option\\.`,
        ),
      );
      await assertError(
        await post(url, init, { origin: "http://evil.example" }),
        403,
        -32000,
        /Origin "http:\/\/evil.example" is not allowed \(DNS-rebinding protection\); if requests from that page should reach this server, start it with http:\/\/evil\.example in its allowedOrigins option\./,
      );
      assert.deepEqual(calls, []);
      assert.equal(http.sessions, 0);
      const local = await post(url, init, {
        origin: `http://localhost:${port}`,
      });
      assert.equal(local.status, 200);
      await local.body?.cancel();
      const listed = await post(url, init, { origin: "https://app.example" });
      assert.equal(listed.status, 200);
      await listed.body?.cancel();
      await assertHealthy(url);
    },
  );
});

/** Send `text` on a new TCP connection and read until the server closes. */
async function rawRequest(port: number, text: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(new TextEncoder().encode(text));
  let out = "";
  const buffer = new Uint8Array(4096);
  const decoder = new TextDecoder();
  while (true) {
    const n = await conn.read(buffer);
    if (n === null) break;
    out += decoder.decode(buffer.subarray(0, n));
    if (/\r\n\r\n/.test(out) && /"jsonrpc"/.test(out)) break;
  }
  conn.close();
  return out;
}

Deno.test("http: with a bearer token, a missing or wrong one is 401 with WWW-Authenticate", async () => {
  await withServer({ bearerToken: "s3cret" }, async ({ url, calls }) => {
    const init = {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {} },
    };
    const missing = await post(url, init);
    assert.match(missing.headers.get("www-authenticate") ?? "", /^Bearer/);
    await assertError(missing, 401, -32000, /needs a bearer token/);
    const wrong = await post(url, init, { authorization: "Bearer s3creT" });
    assert.match(
      wrong.headers.get("www-authenticate") ?? "",
      /^Bearer .*invalid_token/,
    );
    await assertError(wrong, 401, -32000, /token is wrong/);
    const longer = await post(url, init, { authorization: "Bearer s3cret1" });
    await assertError(longer, 401, -32000, /token is wrong/);
    assert.deepEqual(calls, []);
    const right = await post(url, init, { authorization: "Bearer s3cret" });
    assert.equal(right.status, 200);
    await right.body?.cancel();
  });
});

Deno.test("http: slow-loris clients: a slow body is cut off with 408, stalled headers are closed with 408, and the server goes on", async () => {
  let stalledHeaders: Deno.TcpConn | undefined;
  await withServer(
    { bodyTimeoutMs: 300, headerTimeoutMs: 300, stopGraceMs: 200 },
    async ({ url, calls }) => {
      // Headers begun and never finished.
      stalledHeaders = await Deno.connect({
        hostname: "127.0.0.1",
        port: Number(new URL(url).port),
      });
      await stalledHeaders.write(
        new TextEncoder().encode(
          "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConte",
        ),
      );
      const id = await initialize(url);
      const stalled = new AbortController();
      const response = await fetch(url, {
        method: "POST",
        headers: headers({ "mcp-session-id": id }),
        signal: stalled.signal,
        body: new ReadableStream({
          start(controller) {
            // One byte, then nothing: a slow-loris client.
            controller.enqueue(new TextEncoder().encode("{"));
          },
        }),
      });
      await assertError(response, 408, -32000, /did not arrive within 300 ms/);
      stalled.abort();
      assert.ok(!calls.includes("work"));
      // The stalled headers are answered 408 and their connection closed
      // (before, they held their socket for ever).
      // (Bounded, so that a server that never closes them fails the test.)
      let bound: ReturnType<typeof setTimeout> | undefined;
      const cut = await Promise.race([
        readUntil(stalledHeaders, () => false),
        new Promise<string>((resolve) => {
          bound = setTimeout(() => resolve("still open after 10 s"), 10_000);
        }),
      ]);
      clearTimeout(bound);
      assert.match(cut, /^HTTP\/1\.1 408 /);
      assert.match(cut, /did not arrive within 300 ms/);
      await assertHealthy(url);
    },
  );
  stalledHeaders?.close();
});

Deno.test("http: a body shorter than its Content-Length says gets 408 with Connection: close; a whole one is served", async () => {
  await withServer({ bodyTimeoutMs: 300 }, async ({ url, calls }) => {
    const id = await initialize(url);
    const { port } = new URL(url);
    const request = (body: string, length: number) =>
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
      `Content-Type: application/json\r\n` +
      `Accept: application/json, text/event-stream\r\n` +
      `Mcp-Session-Id: ${id}\r\nContent-Length: ${length}\r\n\r\n${body}`;
    const work = JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "work", arguments: {} },
    });
    // Part of the body, then nothing.
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: +port });
    try {
      await conn.write(
        new TextEncoder().encode(request(work.slice(0, 20), work.length)),
      );
      const reply = await readUntil(conn, (text) => text.includes("}}"));
      assert.match(reply, /^HTTP\/1\.1 408 /);
      assert.match(reply, /\r\nconnection: close\r\n/i);
      assert.match(reply, /did not arrive within 300 ms/);
      assert.ok(!calls.includes("work"));
    } finally {
      conn.close();
    }
    // The whole body, with its length: served.
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 8, method: "ping" });
    const whole = await Deno.connect({ hostname: "127.0.0.1", port: +port });
    try {
      await whole.write(new TextEncoder().encode(request(ping, ping.length)));
      const answered = await readUntil(
        whole,
        (text) => text.includes('"result":{}}'),
      );
      assert.match(answered, /^HTTP\/1\.1 200 /);
      assert.ok(answered.endsWith('{"jsonrpc":"2.0","id":8,"result":{}}'));
    } finally {
      whole.close();
    }
    await assertHealthy(url);
  });
});

Deno.test("http: at the session cap a new session ends the least recently used one without a request running, never-used first; 503 when all run one", async () => {
  await withServer({ maxSessions: 3 }, async ({ url, http, gates, calls }) => {
    const init = {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {} },
    };
    const used = await initialize(url);
    const busy = await initialize(url);
    // Made and left: never used after its initialize.
    const left = await post(url, init);
    const leftId = left.headers.get("mcp-session-id")!;
    await left.body?.cancel();
    const gate = Promise.withResolvers<void>();
    gates.set("g", gate.promise);
    const running = post(
      url,
      { jsonrpc: "2.0", id: 1, method: "work", params: { gate: "g" } },
      { "mcp-session-id": busy, accept: "application/json" },
    );
    const ping = (id: string) =>
      post(url, { jsonrpc: "2.0", id: 9, method: "ping" }, {
        "mcp-session-id": id,
      });
    // The never-used one goes first, though the used one is older.
    const fresh = await initialize(url);
    assert.equal(http.sessions, 3);
    assert.equal((await ping(leftId)).status, 404);
    assert.equal((await ping(used)).status, 200);
    // Then the least recently used without a request running: `used`
    // (pinged before `fresh` was used last), not `busy`, whose work runs.
    assert.equal((await ping(fresh)).status, 200);
    const newer = await initialize(url);
    assert.equal((await ping(used)).status, 404);
    gate.resolve();
    assert.equal((await running).status, 200);
    // Every session running a request: a new one is refused.
    const gate2 = Promise.withResolvers<void>();
    gates.set("h", gate2.promise);
    const ids = [busy, fresh, newer];
    const held = ids.map((id) =>
      post(
        url,
        { jsonrpc: "2.0", id: 2, method: "work", params: { gate: "h" } },
        { "mcp-session-id": id, accept: "application/json" },
      )
    );
    await eventually(
      () => calls.filter((call) => call === "work").length === 4,
      "the requests started",
    );
    await assertError(
      await post(url, init),
      503,
      -32000,
      /maximum of 3 sessions/,
    );
    gate2.resolve();
    for (const response of await Promise.all(held)) {
      assert.equal(response.status, 200);
      await response.body?.cancel();
    }
    await assertHealthy(url);
  });
});

Deno.test("http: a session no request uses after its initialize ends within the unused timeout; a used one stays", async () => {
  await withServer(
    { unusedSessionTimeoutMs: 200 },
    async ({ url, http }) => {
      const response = await post(url, {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {} },
      });
      const left = response.headers.get("mcp-session-id")!;
      await response.body?.cancel();
      const used = await initialize(url);
      await eventually(() => http.sessions === 1, "the unused session ended");
      const ping = (id: string) =>
        post(url, { jsonrpc: "2.0", id: 9, method: "ping" }, {
          "mcp-session-id": id,
        });
      await assertError(await ping(left), 404, -32001, /ended, expired/);
      const alive = await ping(used);
      assert.equal(alive.status, 200);
      await alive.body?.cancel();
    },
  );
});

Deno.test("http: 1,000 idle sessions are held, and a fresh one is served", async () => {
  await withServer({}, async ({ url, http }) => {
    for (let i = 0; i < 1000; i++) {
      const response = await post(url, {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {} },
      });
      assert.equal(response.status, 200);
      await response.body?.cancel();
    }
    assert.equal(http.sessions, 1000);
    await assertHealthy(url);
    assert.equal(http.sessions, 1001);
  });
});

Deno.test("http: an idle session ends and is then 404; a failed initialize leaves none", async () => {
  await withServer(
    { sessionIdleTimeoutMs: 100 },
    async ({ url, http, sessions }) => {
      const id = await initialize(url);
      await eventually(() => http.sessions === 0, "the idle session ended");
      await eventually(
        () => sessions[0].state === "closed",
        "the session closed",
      );
      await assertError(
        await post(url, { jsonrpc: "2.0", id: 1, method: "ping" }, {
          "mcp-session-id": id,
        }),
        404,
        -32001,
        /ended, expired/,
      );
      // No protocolVersion: the handler throws, and no session is kept.
      const failed = await post(url, {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {},
      });
      assert.equal(failed.status, 200);
      assert.ok((await failed.json()).error !== undefined);
      await eventually(() => http.sessions === 0, "the failed session ended");
    },
  );
});

Deno.test("http: Accept text/event-stream alone gets an SSE stream that ends after the answer", async () => {
  await withServer({}, async ({ url }) => {
    const id = await initialize(url);
    const response = await post(
      url,
      { jsonrpc: "2.0", id: 5, method: "ping" },
      { "mcp-session-id": id, accept: "text/event-stream" },
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    const { events, ended } = await readEvents(response.body!);
    assert.ok(ended);
    assert.equal(events.length, 1);
    assert.match(events[0].id ?? "", /^[0-9]+_[0-9]+$/);
    assert.equal(events[0].data, '{"jsonrpc":"2.0","id":5,"result":{}}');
  });
});

Deno.test("http: what a handler sends while handling a request goes on that request's stream, before its answer", async () => {
  await withServer({}, async ({ url }) => {
    const id = await initialize(url);
    const response = await post(
      url,
      {
        jsonrpc: "2.0",
        id: 8,
        method: "work",
        params: { _meta: { progressToken: "t" } },
      },
      { "mcp-session-id": id },
    );
    // Both accepted: a notification came first, so the reply is a stream.
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    const { events, ended } = await readEvents(response.body!);
    assert.ok(ended);
    assert.deepEqual(events.map((event) => JSON.parse(event.data)), [
      {
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: "info", data: "working" },
      },
      { jsonrpc: "2.0", id: 8, result: { done: true } },
    ]);
  });
});

Deno.test("http: a request to the client rides the stream of the request that made it; its answer POSTed back gets 202", async () => {
  await withServer({}, async ({ url }) => {
    const id = await initialize(url);
    const response = await post(
      url,
      { jsonrpc: "2.0", id: 3, method: "ask" },
      { "mcp-session-id": id },
    );
    const events = new EventReader(response.body!);
    const asked = JSON.parse((await events.next())!.data);
    assert.equal(asked.method, "roots/list");
    const answer = await post(
      url,
      { jsonrpc: "2.0", id: asked.id, result: { roots: [] } },
      { "mcp-session-id": id },
    );
    assert.equal(answer.status, 202);
    assert.deepEqual(JSON.parse((await events.next())!.data), {
      jsonrpc: "2.0",
      id: 3,
      result: { answer: { roots: [] } },
    });
    assert.equal(await events.next(), undefined, "the stream ends");
    await answer.body?.cancel();
  });
});

Deno.test("http: GET opens the standalone stream for what relates to no request; a second one is 409", async () => {
  await withServer({}, async ({ url, sessions }) => {
    const id = await initialize(url);
    const get = await fetch(url, {
      headers: { "mcp-session-id": id, accept: "text/event-stream" },
    });
    assert.equal(get.status, 200);
    assert.equal(get.headers.get("content-type"), "text/event-stream");
    const second = await fetch(url, {
      headers: { "mcp-session-id": id, accept: "text/event-stream" },
    });
    await assertError(second, 409, -32000, /open already/);
    sessions[0].notify("notifications/tools/list_changed");
    const { events } = await readEvents(get.body!, (e) => e.length === 1);
    assert.deepEqual(JSON.parse(events[0].data), {
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
    });
  });
});

Deno.test("http: GET with Last-Event-ID replays what the stream missed", async () => {
  await withServer({}, async ({ url, sessions }) => {
    const id = await initialize(url);
    const open = () =>
      fetch(url, {
        headers: { "mcp-session-id": id, accept: "text/event-stream" },
      });
    const first = await open();
    sessions[0].notify("notifications/a");
    const { events } = await readEvents(first.body!, (e) => e.length === 1);
    const lastId = events[0].id!;
    // The client is gone: this waits for it.
    sessions[0].notify("notifications/b");
    const resumed = await fetch(url, {
      headers: {
        "mcp-session-id": id,
        accept: "text/event-stream",
        "last-event-id": lastId,
      },
    });
    assert.equal(resumed.status, 200);
    sessions[0].notify("notifications/c");
    const replay = await readEvents(
      resumed.body!,
      (e) => e.some((event) => event.data.includes("notifications/c")),
    );
    const methods = replay.events.map((event) => JSON.parse(event.data).method);
    assert.deepEqual(methods, [
      "notifications/b",
      "notifications/c",
    ]);
  });
});

Deno.test("http: SSE polling (2025-11-25): priming event, stream closed mid-call with retry, answer after reconnecting", async () => {
  await withServer({ retryMs: 50 }, async ({ url, gates }) => {
    const id = await initialize(url, "2025-11-25");
    const gate = Promise.withResolvers<void>();
    gates.set("g", gate.promise);
    const response = await post(
      url,
      { jsonrpc: "2.0", id: 1, method: "reconnect", params: { gate: "g" } },
      { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" },
    );
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    const cut = await readEvents(response.body!);
    assert.ok(cut.ended, "the server closed the stream");
    assert.ok(cut.events.length >= 1);
    assert.equal(cut.events[0].data, "", "the priming event comes first");
    assert.ok(cut.events[0].id !== undefined);
    assert.ok(cut.events.some((event) => event.retry === 50));
    assert.ok(cut.events.every((event) => event.data === ""));
    gate.resolve();
    const lastId = cut.events.at(-1)!.id!;
    const resumed = await fetch(url, {
      headers: {
        "mcp-session-id": id,
        "mcp-protocol-version": "2025-11-25",
        accept: "text/event-stream",
        "last-event-id": lastId,
      },
    });
    assert.equal(resumed.status, 200);
    const rest = await readEvents(resumed.body!);
    assert.ok(rest.ended, "the resumed stream ends after the answer");
    assert.deepEqual(JSON.parse(rest.events.at(-1)!.data), {
      jsonrpc: "2.0",
      id: 1,
      result: { closed: true },
    });
  });
});

Deno.test("http: batches only where the version allows them (2025-03-26), answered as one array", async () => {
  await withServer({}, async ({ url }) => {
    const old = await initialize(url, "2025-03-26");
    const batch = [
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", method: "notifications/x" },
      { jsonrpc: "2.0", id: 2, method: "work", params: { n: 2 } },
    ];
    const response = await post(url, batch, {
      "mcp-session-id": old,
      accept: "application/json",
    });
    assert.equal(response.status, 200);
    const answers = await response.json();
    assert.deepEqual(
      answers.sort((a: { id: number }, b: { id: number }) => a.id - b.id),
      [
        { jsonrpc: "2.0", id: 1, result: {} },
        { jsonrpc: "2.0", id: 2, result: { done: 2 } },
      ],
    );
    const now = await initialize(url, "2025-06-18");
    await assertError(
      await post(url, batch, { "mcp-session-id": now }),
      400,
      -32600,
      /batches are not part of protocol version 2025-06-18/,
    );
  });
});

Deno.test("http: a request id still in flight in the session is refused with 400", async () => {
  await withServer({}, async ({ url, gates }) => {
    const id = await initialize(url);
    const gate = Promise.withResolvers<void>();
    gates.set("g", gate.promise);
    const slow = post(
      url,
      { jsonrpc: "2.0", id: 4, method: "work", params: { gate: "g" } },
      { "mcp-session-id": id, accept: "application/json" },
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    await assertError(
      await post(url, { jsonrpc: "2.0", id: 4, method: "ping" }, {
        "mcp-session-id": id,
      }),
      400,
      -32600,
      /already in use/,
    );
    gate.resolve();
    const answered = await slow;
    assert.deepEqual(await answered.json(), {
      jsonrpc: "2.0",
      id: 4,
      result: { done: true },
    });
  });
});

Deno.test("http: shutdown finishes a request in flight, then stops serving", async () => {
  const calls: string[] = [];
  await withServer({}, async ({ url, http, gates, calls: seen }) => {
    const id = await initialize(url);
    const gate = Promise.withResolvers<void>();
    gates.set("g", gate.promise);
    const slow = post(
      url,
      { jsonrpc: "2.0", id: 9, method: "work", params: { gate: "g" } },
      { "mcp-session-id": id, accept: "application/json" },
    );
    await eventually(() => seen.includes("work"), "the request started");
    const standalone = await fetch(url, {
      headers: { "mcp-session-id": id, accept: "text/event-stream" },
    });
    assert.equal(standalone.status, 200);
    const stopping = http.shutdown();
    setTimeout(() => gate.resolve(), 50);
    const answered = await slow;
    assert.equal(answered.status, 200);
    assert.deepEqual(await answered.json(), {
      jsonrpc: "2.0",
      id: 9,
      result: { done: true },
    });
    await stopping;
    await http.finished;
    const { ended } = await readEvents(standalone.body!);
    assert.ok(ended, "the standalone stream ended");
    assert.equal(http.sessions, 0);
    await assert.rejects(() =>
      post(url, { jsonrpc: "2.0", id: 1, method: "ping" })
    );
    calls.push("done");
  });
  assert.deepEqual(calls, ["done"]);
});

Deno.test("http: a request still running when the shutdown grace ends is answered 503", async () => {
  await withServer(
    { stopGraceMs: 100 },
    async ({ url, http, gates, calls }) => {
      const id = await initialize(url);
      gates.set("never", new Promise(() => {}));
      const stuck = post(
        url,
        { jsonrpc: "2.0", id: 1, method: "work", params: { gate: "never" } },
        { "mcp-session-id": id, accept: "application/json" },
      );
      await eventually(() => calls.includes("work"), "the request started");
      await http.shutdown();
      await assertError(
        await stuck,
        503,
        -32000,
        /session ended before this request was answered/,
      );
    },
  );
});

Deno.test("http: a request the client cancels ends its stream without an answer", async () => {
  // (Its handler ignores the cancellation: shutdown gives it 100 ms.)
  await withServer({ stopGraceMs: 100 }, async ({ url, gates, calls }) => {
    const id = await initialize(url);
    gates.set("never", new Promise(() => {}));
    const response = await post(
      url,
      { jsonrpc: "2.0", id: 6, method: "work", params: { gate: "never" } },
      { "mcp-session-id": id, accept: "text/event-stream" },
    );
    await eventually(() => calls.includes("work"), "the request started");
    const cancel = await post(url, {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 6, reason: "no longer needed" },
    }, { "mcp-session-id": id });
    assert.equal(cancel.status, 202);
    await cancel.body?.cancel();
    const { events, ended } = await readEvents(response.body!);
    assert.ok(ended);
    assert.deepEqual(events, []);
    await assertHealthy(url);
  });
});

Deno.test("http: a timeout option a timer cannot take is refused up front", () => {
  const server = new McpServer({
    handlers: {},
    info: { name: "t", version: "1" },
  });
  for (const bad of [Infinity, NaN, 0, -5, 2 ** 31]) {
    assert.throws(
      () => serveHttp(server, { port: 0, bodyTimeoutMs: bad }),
      (error: Error) =>
        error instanceof RangeError && /bodyTimeoutMs/.test(error.message),
      String(bad),
    );
    assert.throws(
      () => serveHttp(server, { port: 0, sessionIdleTimeoutMs: bad }),
      (error: Error) =>
        error instanceof RangeError &&
        /sessionIdleTimeoutMs/.test(error.message),
      String(bad),
    );
  }
});

/** What `conn` receives within `ms` (or until it ends); whether it ended. */
async function readFor(
  conn: Deno.Conn,
  ms: number,
): Promise<{ text: string; ended: boolean }> {
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(64 * 1024);
  let text = "";
  const timeout = new Promise<"timeout">((resolve) =>
    setTimeout(() => resolve("timeout"), ms)
  );
  while (true) {
    const read = await Promise.race([
      conn.read(buffer).catch(() => null),
      timeout,
    ]);
    if (read === "timeout") return { text, ended: false };
    if (read === null) return { text, ended: true };
    text += decoder.decode(buffer.subarray(0, read), { stream: true });
  }
}

/** A raw GET of the session's stream; the connection is left to the caller. */
async function rawGet(
  url: string,
  session: string,
  extra = "",
): Promise<Deno.TcpConn> {
  const { hostname, port, pathname } = new URL(url);
  const conn = await Deno.connect({ hostname, port: +port });
  await conn.write(
    new TextEncoder().encode(
      `GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\nMcp-Session-Id: ${session}\r\n${extra}\r\n`,
    ),
  );
  return conn;
}

Deno.test("http: answers cut off with their stream are kept within one budget across sessions, the oldest dropped first", async () => {
  const max = 256 * 1024;
  await withServer({ maxKeptBytes: max }, async ({ url, http, gates }) => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const id = await initialize(url);
      ids.push(id);
      const gate = Promise.withResolvers<void>();
      gates.set(`c${i}`, gate.promise);
      // Accepting only an event stream, and hanging up at once.
      const response = await post(url, {
        jsonrpc: "2.0",
        id: 1,
        method: "big",
        params: { size: 64 * 1024, gate: `c${i}` },
      }, { "mcp-session-id": id, accept: "text/event-stream" });
      await response.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 20));
      gate.resolve();
      await eventually(() => http.keptBytes > 0, "the answer was kept");
      assert.ok(http.keptBytes <= max, `${http.keptBytes} bytes kept`);
    }
    // The newest answer is still there to resume; the oldest is not.
    const last = await rawGet(url, ids[11], "Last-Event-ID: 1_0\r\n");
    const resumed = await readFor(last, 2_000);
    last.close();
    assert.match(resumed.text, /"data":"xxxx/);
    const first = await rawGet(url, ids[0], "Last-Event-ID: 1_0\r\n");
    const gone = await readFor(first, 300);
    first.close();
    assert.match(gone.text, /^HTTP\/1\.1 200 /);
    assert.doesNotMatch(gone.text, /"data":"xxxx/);
  });
});

Deno.test("http: a resume of the standalone stream shares its events, and the connection it replaces is cut at once", async () => {
  const max = 1024 * 1024;
  await withServer(
    { maxKeptBytes: max },
    async ({ url, http, sessions }) => {
      const id = await initialize(url);
      // 40 events of 16 KiB on the standalone stream, no client attached.
      for (let i = 0; i < 40; i++) {
        sessions[0].notify("notifications/message", {
          level: "info",
          data: "y".repeat(16 * 1024),
        });
      }
      const kept = http.keptBytes;
      assert.ok(kept > 640 * 1024 && kept <= max, `${kept} bytes kept`);
      let previous: Deno.TcpConn | undefined;
      for (let i = 0; i < 10; i++) {
        const conn = await rawGet(url, id, "Last-Event-ID: 0_0\r\n");
        if (previous !== undefined) {
          // Replaced: closed now, without the end of its stream.
          const old = await readFor(previous, 2_000);
          previous.close();
          assert.ok(old.ended, "the replaced connection was closed");
          assert.ok(!old.text.endsWith("0\r\n\r\n"), "it was not ended");
        }
        assert.ok(http.keptBytes <= max, `${http.keptBytes} bytes kept`);
        previous = conn;
      }
      previous?.close();
    },
  );
});

Deno.test("http: an idle GET stream carries keep-alive comments", async () => {
  await withServer({ keepAliveMs: 50 }, async ({ url }) => {
    const id = await initialize(url);
    const conn = await rawGet(url, id);
    const { text } = await readFor(conn, 400);
    conn.close();
    assert.match(text, /^HTTP\/1\.1 200 /);
    assert.match(text, /\r\n: keep-alive\n\n\r\n/);
  });
});

Deno.test("http: GET streams that read nothing holding every connection do not lock out /health or a new client", async () => {
  await withServer({ maxConnections: 6 }, async ({ url }) => {
    const held: Deno.TcpConn[] = [];
    try {
      for (let i = 0; i < 6; i++) {
        const conn = await rawGet(url, await initialize(url));
        held.push(conn);
        const head = await readUntil(conn, (text) => text.includes("\r\n\r\n"));
        assert.match(head, /^HTTP\/1\.1 200 /);
      }
      const started = performance.now();
      // A client of its own: a new connection.
      const client = Deno.createHttpClient({});
      const health = await fetch(new URL("/health", url), { client });
      assert.equal(health.status, 200);
      await health.body?.cancel();
      client.close();
      await assertHealthy(url);
      const took = performance.now() - started;
      assert.ok(took < 2_000, `a new client waited ${took} ms`);
    } finally {
      for (const conn of held) conn.close();
    }
  });
});
