import { strict as assert } from "node:assert";
import { fileURLToPath } from "node:url";
import { serveDenoArgs } from "./serve.ts";
import { permissionFlags, V8_FLAGS_ARG } from "../cli/run_command.ts";
import { startListening } from "../tests/process.ts";

const MAIN = "/src/shipcode/main.ts";

Deno.test("serveDenoArgs: --http gets the network at its address, a token its variable, the arguments unchanged", () => {
  const args = ["--http", "8080", "--auth-token-env", "MCP_TOKEN"];
  assert.deepEqual(serveDenoArgs(args, MAIN, "/"), [
    "run",
    ...permissionFlags({ http: "127.0.0.1:8080", authTokenEnv: "MCP_TOKEN" }),
    V8_FLAGS_ARG,
    MAIN,
    ...args,
  ]);
  assert.deepEqual(
    serveDenoArgs(["--http", "[::1]:0"], MAIN, "/").slice(1, 5),
    ["--allow-read", "--allow-net=[::1]:0", "--allow-sys=uid", "--no-prompt"],
  );
});

Deno.test("serveDenoArgs: stdio, config, and flags that do not parse read files (and know their user) only", () => {
  for (
    const args of [
      [],
      ["--root", "/tmp"],
      ["config", "cursor", "--http", "127.0.0.1:8080"],
      ["--http", "nowhere"],
      ["--bogus"],
    ]
  ) {
    assert.deepEqual(serveDenoArgs(args, MAIN, "/"), [
      "run",
      "--allow-read",
      "--allow-sys=uid",
      "--no-prompt",
      V8_FLAGS_ARG,
      MAIN,
      ...args,
    ], JSON.stringify(args));
  }
});

Deno.test("serve.ts: starts the server with its flags' permissions, passes SIGTERM on and exits with its status", async () => {
  const server = await startListening({
    command: Deno.execPath(),
    args: [
      "run",
      "--allow-read",
      "--allow-run",
      "--no-prompt",
      fileURLToPath(new URL("serve.ts", import.meta.url)),
      "--http",
      "127.0.0.1:0",
      "--root",
      fileURLToPath(new URL("../tests/fixtures/ws", import.meta.url)),
    ],
  });
  // The server is listening, so it was granted the network there.
  const response = await fetch(server.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping" }),
  });
  // No session yet: the server answers, and refuses it.
  assert.equal(response.status, 400);
  await response.body?.cancel();
  // The server's own graceful stop exits 0; killed, it would not.
  assert.equal((await server.kill("SIGTERM")).code, 0);
});
