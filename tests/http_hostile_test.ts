/**
 * A seeded stream of hostile HTTP requests against the workspace server
 * over Streamable HTTP: random methods, headers, session ids, versions and
 * bodies (broken JSON, wrong shapes, random bytes, batches). Every answer
 * is a known status with a JSON-RPC error body when it is an error, and the
 * server still serves a fresh session end to end afterwards.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { DEFAULTS } from "../cli/flags.ts";
import { createServer } from "../main.ts";
import { serveHttp } from "../mcp/transports/http.ts";
import { prng } from "./prng.ts";
import { PROJECT_ROOT } from "./server_command.ts";

const ROOT = `${PROJECT_ROOT}tests/fixtures/ws`;

const BODIES = [
  "",
  "{",
  "null",
  "[]",
  "[1,2]",
  '"text"',
  '{"jsonrpc":"2.0"}',
  '{"jsonrpc":"2.0","id":{},"method":"ping"}',
  '{"jsonrpc":"2.0","id":1,"method":7}',
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}',
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"../../etc/passwd"}}}',
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
  '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"ping"}]',
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}',
  '{"jsonrpc":"2.0","id":"s1","result":{}}',
  '{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///etc/passwd"}}',
  "[".repeat(5000) + "]".repeat(5000),
];

const STATUSES = new Set([200, 202, 400, 403, 404, 405, 406, 409, 413, 415]);

Deno.test("http: a seeded stream of hostile requests gets known statuses, errors as JSON-RPC, and the server stays healthy", async () => {
  const server = createServer({
    ...DEFAULTS,
    root: [ROOT],
    logLevel: "silent",
  });
  const http = serveHttp(server, { port: 0, maxBodyBytes: 64 * 1024 });
  const url = http.url;
  const port = new URL(url).port;
  const random = prng(13);
  const pick = <T>(items: readonly T[]): T =>
    items[Math.floor(random() * items.length)];
  try {
    // A real session, so that some requests reach the server's handlers.
    const open = async (accept: string) => {
      const json = { "content-type": "application/json", accept };
      const init = await fetch(url, {
        method: "POST",
        headers: json,
        body: BODIES[11],
      });
      assert.equal(init.status, 200);
      const id = init.headers.get("mcp-session-id")!;
      await init.body?.cancel();
      const ready = await fetch(url, {
        method: "POST",
        headers: { ...json, "mcp-session-id": id },
        body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      });
      assert.equal(ready.status, 202);
      await ready.body?.cancel();
      return id;
    };
    let session = await open("application/json, text/event-stream");
    for (let i = 0; i < 300; i++) {
      const headers: Record<string, string> = {};
      headers["content-type"] = pick([
        "application/json",
        "application/json; charset=utf-8",
        "text/plain",
        "",
      ]);
      headers.accept = pick([
        "application/json, text/event-stream",
        "application/json",
        "text/event-stream",
        "text/html",
        "*/*",
      ]);
      const sessionId = pick([
        session,
        session,
        "",
        "bogus",
        "\x7e".repeat(40),
      ]);
      if (sessionId !== "") headers["mcp-session-id"] = sessionId;
      const version = pick(["", "2025-06-18", "2025-11-25", "junk"]);
      if (version !== "") headers["mcp-protocol-version"] = version;
      if (random() < 0.1) {
        headers.origin = pick([
          "http://evil.example",
          `http://localhost:${port}`,
        ]);
      }
      if (random() < 0.1) headers["last-event-id"] = pick(["0_1", "9_9", "x"]);
      const method = pick(["POST", "POST", "POST", "GET", "DELETE", "PUT"]);
      let body: BodyInit | undefined;
      if (method === "POST" || method === "PUT") {
        body = random() < 0.15
          ? crypto.getRandomValues(new Uint8Array(Math.floor(random() * 200)))
          : pick(BODIES);
      }
      const controller = new AbortController();
      const response = await fetch(url, {
        method,
        headers,
        body,
        signal: controller.signal,
      });
      assert.ok(STATUSES.has(response.status), `status ${response.status}`);
      const type = response.headers.get("content-type") ?? "";
      if (response.status >= 400) {
        const error = await response.json();
        assert.equal(error.jsonrpc, "2.0");
        assert.equal(typeof error.error.message, "string");
      } else if (type === "text/event-stream") {
        // A GET's stream stays open: read no further.
        controller.abort();
        await response.body?.cancel().catch(() => {});
      } else {
        await response.body?.cancel();
      }
      // A DELETE of the real session ends it: start another.
      if (method === "DELETE" && sessionId === session) {
        session = await open("application/json, text/event-stream");
      }
    }
    // Healthy: a fresh session is served end to end.
    const id = await open("application/json");
    const call = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        "mcp-session-id": id,
      },
      body:
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_directory","arguments":{}}}',
    });
    assert.equal(call.status, 200);
    const answer = await call.json();
    assert.equal(answer.id, 2);
    assert.ok(Array.isArray(answer.result.content));
  } finally {
    await http.shutdown();
  }
});
