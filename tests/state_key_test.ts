/**
 * `--state-key-env`: a `requestState` one server process issued (an
 * input_required round of MCP 2026-07-28) is accepted by another process
 * started with the same key, and refused (-32602) by one with another key
 * or with none (each process then signs with a random key of its own).
 * Each leg of the round goes to a process of its own over stdio, as a
 * load balancer would spread them.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { permissionFlags, V8_FLAGS_ARG } from "../cli/run_command.ts";
import { PROJECT_ROOT } from "./server_command.ts";

const ROOT = `${PROJECT_ROOT}tests/fixtures/ws`;
const KEY_VARIABLE = "SHIPCODE_TEST_STATE_KEY";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { roots: {} },
};

/** The request of both legs: without `--root`, it needs the client's roots. */
const CALL = { name: "find_files", arguments: { pattern: "*.ts" } };

/**
 * Send `params` as one `tools/call` to a new server process whose key is
 * `key` (none: no `--state-key-env`), and return the answer.
 */
async function callOnce(
  key: string | undefined,
  params: Record<string, unknown>,
): Promise<
  {
    result?: Record<string, unknown>;
    error?: { code: number; message: string };
  }
> {
  const args = [
    "run",
    ...permissionFlags({
      http: "",
      authTokenEnv: "",
      stateKeyEnv: key === undefined ? "" : KEY_VARIABLE,
    }),
    V8_FLAGS_ARG,
    `${PROJECT_ROOT}main.ts`,
    "--protocol-versions",
    "2026-07-28,2025-06-18",
    ...(key === undefined ? [] : ["--state-key-env", KEY_VARIABLE]),
  ];
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: key === undefined ? { NO_COLOR: "1" } : { [KEY_VARIABLE]: key },
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(
    new TextEncoder().encode(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { ...params, _meta: META },
      }) + "\n",
    ),
  );
  await writer.close();
  const output = await child.output();
  const stdout = new TextDecoder().decode(output.stdout);
  assert.equal(
    output.code,
    0,
    `exit ${output.code}: ${new TextDecoder().decode(output.stderr)}`,
  );
  const lines = stdout.trim().split("\n");
  assert.equal(lines.length, 1, stdout);
  return JSON.parse(lines[0]);
}

/** The first leg on one process, the retry with the roots on another. */
async function roundTrip(firstKey?: string, secondKey?: string) {
  const first = await callOnce(firstKey, CALL);
  assert.equal(first.result?.resultType, "input_required");
  assert.deepEqual(first.result?.inputRequests, {
    roots_1: { method: "roots/list" },
  });
  assert.equal(typeof first.result?.requestState, "string");
  return await callOnce(secondKey, {
    ...CALL,
    requestState: first.result?.requestState,
    inputResponses: {
      roots_1: { roots: [{ uri: `file://${ROOT}` }] },
    },
  });
}

function randomKey(): string {
  return btoa(
    String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))),
  );
}

Deno.test("--state-key-env: a process accepts the requestState another one with the same key issued", async () => {
  const key = randomKey();
  const answer = await roundTrip(key, key);
  assert.equal(answer.error, undefined, JSON.stringify(answer));
  assert.equal(answer.result?.resultType, "complete");
  assert.deepEqual(answer.result?.content, [
    { type: "text", text: "src/lib/util.ts\nsrc/main.ts" },
  ]);
});

Deno.test("--state-key-env: a process with another key, or with none, refuses the state with -32602", async () => {
  for (
    const [first, second] of [
      [randomKey(), randomKey()],
      [undefined, undefined],
    ]
  ) {
    const answer = await roundTrip(first, second);
    assert.equal(answer.result, undefined, JSON.stringify(answer));
    assert.equal(answer.error?.code, -32602);
    assert.match(answer.error?.message ?? "", /failed verification/);
  }
});

Deno.test("--state-key-env: a key too short stops the server with exit 2 and the fix", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...permissionFlags({
        http: "",
        authTokenEnv: "",
        stateKeyEnv: KEY_VARIABLE,
      }),
      `${PROJECT_ROOT}main.ts`,
      "--state-key-env",
      KEY_VARIABLE,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { [KEY_VARIABLE]: "too short" },
  }).output();
  assert.equal(output.code, 2);
  assert.equal(output.stdout.length, 0);
  assert.match(
    new TextDecoder().decode(output.stderr),
    /^shipcode-mcp: --state-key-env SHIPCODE_TEST_STATE_KEY: the key in SHIPCODE_TEST_STATE_KEY has 9 bytes, too few to sign with; use 32 or more/,
  );
});
