/**
 * The health path of the Streamable HTTP transport: 200 `ok` while the
 * server serves, 503 once it shuts down, whatever the `Host`, `Origin` and
 * token, and no path at all when turned off.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { McpServer } from "../server.ts";
import { type HttpOptions, type HttpServer, serveHttp } from "./http.ts";

/** A server whose `initialize` waits for `gate`, served with `options`. */
function start(
  options: Partial<HttpOptions>,
  gate: Promise<void> = Promise.resolve(),
): HttpServer {
  const server = new McpServer({
    handlers: {
      initialize: async () => {
        await gate;
        return { protocolVersion: "2025-06-18" };
      },
    },
    info: { name: "health-test", version: "1.0.0" },
    logger: { level: "silent", log: () => {} },
  });
  return serveHttp(server, { port: 0, ...options });
}

function healthUrl(http: HttpServer, path = "/health"): string {
  return new URL(path, http.url).href;
}

Deno.test("http health: GET and HEAD /health are 200 ok without the token; other methods 405", async () => {
  const http = start({ bearerToken: "secret" });
  try {
    const got = await fetch(healthUrl(http));
    assert.equal(got.status, 200);
    assert.equal(got.headers.get("content-type"), "text/plain; charset=utf-8");
    assert.equal(got.headers.get("cache-control"), "no-store");
    assert.equal(await got.text(), "ok\n");
    const head = await fetch(healthUrl(http), { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");
    const posted = await fetch(healthUrl(http), { method: "POST", body: "{}" });
    assert.equal(posted.status, 405);
    assert.equal(posted.headers.get("allow"), "GET, HEAD");
    assert.match((await posted.json()).error.message, /GET and HEAD/);
    // The endpoint itself still wants the token.
    const mcp = await fetch(http.url, { method: "GET" });
    assert.equal(mcp.status, 401);
    await mcp.body?.cancel();
  } finally {
    await http.shutdown();
  }
});

Deno.test("http health: any Host and Origin get it; the endpoint still refuses them", async () => {
  const http = start({});
  try {
    const port = Number(new URL(http.url).port);
    // fetch sets Host itself; a raw request sends the one given.
    assert.match(
      await rawGet(port, "/health", "10.1.2.3:8080"),
      /^HTTP\/1\.1 200 [^]*\r\n\r\nok\n$/,
    );
    assert.match(
      await rawGet(port, "/mcp", "10.1.2.3:8080"),
      /^HTTP\/1\.1 403 [^]*DNS-rebinding protection/,
    );
    const origin = await fetch(healthUrl(http), {
      headers: { origin: "https://elsewhere.example" },
    });
    assert.equal(origin.status, 200);
    assert.equal(await origin.text(), "ok\n");
    // A query string does not hide it.
    const query = await fetch(`${healthUrl(http)}?probe=1`);
    assert.equal(query.status, 200);
    await query.body?.cancel();
  } finally {
    await http.shutdown();
  }
});

/** GET `path` with `host` as the Host header; what came back, whole. */
async function rawGet(port: number, path: string, host: string) {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(
    new TextEncoder().encode(
      `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
    ),
  );
  return await new Response(conn.readable).text();
}

Deno.test("http health: 503 once the server shuts down, while it finishes what is in flight", async () => {
  const gate = Promise.withResolvers<void>();
  const http = start({}, gate.promise);
  let inFlight: Promise<Response> | undefined;
  try {
    inFlight = fetch(http.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "t", version: "1" },
        },
      }),
    });
    assert.equal((await fetch(healthUrl(http))).status, 200);
    const stopped = http.shutdown();
    const draining = await fetch(healthUrl(http));
    assert.equal(draining.status, 503);
    await draining.body?.cancel();
    gate.resolve();
    const answered = await inFlight;
    assert.equal(answered.status, 200);
    await answered.body?.cancel();
    await stopped;
  } finally {
    gate.resolve();
    await http.shutdown();
  }
});

Deno.test('http health: another path, or none with healthPath ""', async () => {
  const moved = start({ healthPath: "/healthz" });
  const off = start({ healthPath: "" });
  try {
    assert.equal((await fetch(healthUrl(moved, "/healthz"))).status, 200);
    const old = await fetch(healthUrl(moved));
    assert.equal(old.status, 404);
    await old.body?.cancel();
    const none = await fetch(healthUrl(off));
    assert.equal(none.status, 404);
    await none.body?.cancel();
  } finally {
    await moved.shutdown();
    await off.shutdown();
  }
});
