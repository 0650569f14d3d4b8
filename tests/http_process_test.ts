/**
 * `--http` in a real process, run with the narrowest permissions it needs
 * (`--allow-net` at its own address, `--allow-env` only for a token): it
 * says where it serves, serves a session end to end, shares one watch of
 * the root across sessions, and on SIGTERM finishes the request in flight
 * and exits 0. Without the permission, or without the token's variable, it
 * says what to do.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { permissionFlags, V8_FLAGS_ARG } from "../cli/run_command.ts";
import { PROJECT_ROOT } from "./server_command.ts";

const ROOT = `${PROJECT_ROOT}tests/fixtures/ws`;

/** Start `main.ts` with `args` and the permissions `permissions`. */
function start(
  args: string[],
  permissions: string[],
  env: Record<string, string> = {},
): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...permissions,
      V8_FLAGS_ARG,
      `${PROJECT_ROOT}main.ts`,
      ...args,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", ...env },
  }).spawn();
}

/** Read stderr until it names the URL served; returns it and the reader. */
async function servedUrl(child: Deno.ChildProcess): Promise<{
  url: string;
  stderr: ReadableStreamDefaultReader<string>;
}> {
  const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (true) {
    const match = /serving MCP at (http:\/\/\S+)\n/.exec(text);
    if (match !== null) return { url: match[1], stderr };
    const { value, done } = await stderr.read();
    if (done) throw new Error(`the server exited first; stderr: ${text}`);
    text += value;
  }
}

async function drain(reader: ReadableStreamDefaultReader<string>) {
  let text = "";
  while (true) {
    const { value, done } = await reader.read();
    if (done) return text;
    text += value;
  }
}

const JSON_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

async function initialize(url: string, extra: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...JSON_HEADERS, ...extra },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "test", version: "1" },
      },
    }),
  });
  assert.equal(response.status, 200);
  const id = response.headers.get("mcp-session-id")!;
  await response.body?.cancel();
  const ready = await fetch(url, {
    method: "POST",
    headers: { ...JSON_HEADERS, ...extra, "mcp-session-id": id },
    body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  });
  assert.equal(ready.status, 202);
  await ready.body?.cancel();
  return id;
}

Deno.test("--http: served with --allow-net at its address only; SIGTERM finishes the request in flight and exits 0", async () => {
  const child = start(
    ["--http", "127.0.0.1:0", "--root", ROOT, "--log-level", "info"],
    permissionFlags({ http: "127.0.0.1:0", authTokenEnv: "" }),
  );
  const { url, stderr } = await servedUrl(child);
  assert.match(url, /^http:\/\/127\.0\.0\.1:[0-9]+\/mcp$/);
  const id = await initialize(url);
  const call = (n: number, accept: string) =>
    fetch(url, {
      method: "POST",
      headers: { ...JSON_HEADERS, accept, "mcp-session-id": id },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: n,
        method: "tools/call",
        params: { name: "search_text", arguments: { query: "a" } },
      }),
    });
  const first = await call(1, "application/json");
  assert.equal(first.status, 200);
  const answer = await first.json();
  assert.equal(answer.id, 1);
  assert.equal(answer.result.isError, undefined);
  // An SSE reply's headers come as soon as the server has the request:
  // it is in flight when the signal comes.
  const inFlight = await call(2, "text/event-stream");
  assert.equal(inFlight.status, 200);
  child.kill("SIGTERM");
  const rest = await new Response(inFlight.body).text();
  assert.match(rest, /"id":2,"result":\{"content":/);
  const status = await child.status;
  assert.equal(status.code, 0);
  await drain(stderr);
  await child.stdout.cancel();
});

Deno.test("--http: --auth-token-env reads the token from the variable named (with --allow-env for it alone)", async () => {
  const child = start(
    ["--http", "127.0.0.1:0", "--root", ROOT, "--auth-token-env", "MCP_T"],
    permissionFlags({ http: "127.0.0.1:0", authTokenEnv: "MCP_T" }),
    { MCP_T: "tok3n" },
  );
  const { url, stderr } = await servedUrl(child);
  const refused = await fetch(url, {
    method: "POST",
    headers: JSON_HEADERS,
    body: '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}',
  });
  assert.equal(refused.status, 401);
  assert.match(refused.headers.get("www-authenticate") ?? "", /^Bearer/);
  await refused.body?.cancel();
  await initialize(url, { authorization: "Bearer tok3n" });
  child.kill("SIGTERM");
  assert.equal((await child.status).code, 0);
  await drain(stderr);
  await child.stdout.cancel();
});

Deno.test("--http: without the network permission, or without the token's variable, it says what to do", async () => {
  const noNet = start(["--http", "127.0.0.1:0", "--root", ROOT], [
    "--allow-read",
    "--no-prompt",
  ]);
  const output = await noNet.output();
  assert.equal(output.code, 1);
  assert.match(
    new TextDecoder().decode(output.stderr),
    /cannot listen on 127\.0\.0\.1:0: run deno with --allow-net=127\.0\.0\.1:0/,
  );
  const noToken = start(
    ["--http", "127.0.0.1:0", "--root", ROOT, "--auth-token-env", "MCP_T"],
    permissionFlags({ http: "127.0.0.1:0", authTokenEnv: "MCP_T" }),
  );
  const missing = await noToken.output();
  assert.equal(missing.code, 2);
  assert.match(
    new TextDecoder().decode(missing.stderr),
    /the environment variable MCP_T is not set/,
  );
});

Deno.test("--http: a request for another Host is refused with what to do: connect to the URL, or restart with --allow-hosts", async () => {
  const child = start(
    ["--http", "127.0.0.1:0", "--root", ROOT],
    permissionFlags({ http: "127.0.0.1:0", authTokenEnv: "" }),
  );
  const { url, stderr } = await servedUrl(child);
  try {
    const port = Number(new URL(url).port);
    // fetch sets Host itself: a raw request sends another one.
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await conn.write(
      new TextEncoder().encode(
        `GET /mcp HTTP/1.1\r\nHost: rebound.example:${port}\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n`,
      ),
    );
    let response = "";
    for await (const chunk of conn.readable) {
      response += new TextDecoder().decode(chunk);
    }
    assert.match(response, /^HTTP\/1\.1 403 /);
    const message = response.slice(response.indexOf("\r\n\r\n") + 4);
    assert.ok(
      message.includes(
        `connect to ${url}, or, if this server should answer to that name, restart it with --allow-hosts rebound.example:${port} (comma-separated with any others).`,
      ),
      message,
    );
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await drain(stderr);
    await child.stdout.cancel();
  }
});

Deno.test("--http: a request from another Origin is refused with what to do: restart with --allow-origins", async () => {
  const child = start(
    ["--http", "127.0.0.1:0", "--root", ROOT],
    permissionFlags({ http: "127.0.0.1:0", authTokenEnv: "" }),
  );
  const { url, stderr } = await servedUrl(child);
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        origin: "https://app.example",
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    assert.equal(response.status, 403);
    const message = await response.text();
    assert.ok(
      message.includes(
        "if requests from that page should reach this server, restart it with --allow-origins https://app.example (comma-separated with any others).",
      ),
      message,
    );
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await drain(stderr);
    await child.stdout.cancel();
  }
});
