/**
 * The official SDK client 2.x over Streamable HTTP in MCP 2026-07-28 mode
 * (`pin`), against `main.ts --http` and the library's client-requests
 * server: the whole workspace suite (as on stdio), stateless requests with
 * no session, `subscriptions/listen` on its own stream, a request's log
 * records on that request's stream, and sampling, elicitation and roots as
 * input_required rounds. In `auto` mode it falls back to `initialize`
 * where the server does not offer 2026-07-28 (the default).
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { DENO_RUN_FLAGS } from "../cli/run_command.ts";
import type { ListeningProcess } from "./process.ts";
import { Client, StreamableHTTPClientTransport } from "./sdk2.ts";
import {
  checkClientRequests,
  checkWorkspace,
  CLIENT_REQUEST_CAPABILITIES,
  texts,
} from "./sdk2_workspace.ts";
import { httpCommand, startHttpServer } from "./sdk_connect.ts";
import { PROJECT_ROOT, serverCommand } from "./server_command.ts";
import { workspaceToolNames } from "./tool_names.ts";

const ROOT = `${PROJECT_ROOT}tests/fixtures/ws`;
const MODERN = ["--protocol-versions", "2026-07-28,2025-06-18"];

type Options = ConstructorParameters<typeof Client>[1];

const PIN: Options = { versionNegotiation: { mode: { pin: "2026-07-28" } } };

/** A client connected over HTTP to a server it started, and how to end both. */
async function connect(
  spec: { command: string; args: string[] },
  options: Options,
): Promise<
  { client: Client; server: ListeningProcess; close(): Promise<void> }
> {
  const server = await startHttpServer(spec);
  const client = new Client({ name: "shipcode-tests", version: "0.0.1" }, {
    ...options,
  });
  const transport = new StreamableHTTPClientTransport(new URL(server.url));
  try {
    await client.connect(transport);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return {
    client,
    server,
    async close() {
      await client.close();
      await server.stop();
    },
  };
}

Deno.test("SDK 2.x over HTTP pinned to 2026-07-28: tools, resources, prompts and completion, with no session", async () => {
  const c = await connect(
    httpCommand(
      serverCommand([...MODERN, "--features", "all", "--root", ROOT]),
    ),
    PIN,
  );
  try {
    assert.equal(c.client.getProtocolEra(), "modern");
    await checkWorkspace(c.client);
    // Stateless: the server issued no session id.
    const response = await fetch(c.server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "server/discover",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "server/discover",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("mcp-session-id"), null);
    await response.body?.cancel();
  } finally {
    await c.close();
  }
});

Deno.test("SDK 2.x over HTTP in auto mode: initialize against the default server, 2026-07-28 where offered", async () => {
  const legacy = await connect(httpCommand(serverCommand(["--root", ROOT])), {
    versionNegotiation: { mode: "auto" },
  });
  try {
    assert.equal(legacy.client.getProtocolEra(), "legacy");
    assert.equal(legacy.client.getNegotiatedProtocolVersion(), "2025-06-18");
    const listed = await legacy.client.listTools();
    assert.deepEqual(
      listed.tools.map((tool) => tool.name),
      await workspaceToolNames(),
    );
  } finally {
    await legacy.close();
  }
  const modern = await connect(
    httpCommand(serverCommand([...MODERN, "--root", ROOT])),
    { versionNegotiation: { mode: "auto" } },
  );
  try {
    assert.equal(modern.client.getProtocolEra(), "modern");
    assert.equal(modern.client.getNegotiatedProtocolVersion(), "2026-07-28");
    const found = await modern.client.callTool({
      name: "find_files",
      arguments: { pattern: "*.ts" },
    });
    assert.equal(texts(found), "src/lib/util.ts\nsrc/main.ts");
  } finally {
    await modern.close();
  }
});

Deno.test("SDK 2.x over HTTP pinned: subscriptions/listen holds its stream; other requests are served meanwhile", async () => {
  const c = await connect(
    httpCommand(
      serverCommand([...MODERN, "--features", "all", "--root", ROOT]),
    ),
    PIN,
  );
  try {
    const subscription = await c.client.listen({
      toolsListChanged: true,
      promptsListChanged: true,
    });
    assert.deepEqual(subscription.honoredFilter, {
      toolsListChanged: true,
      promptsListChanged: true,
    });
    const listed = await c.client.listTools();
    assert.equal(
      listed.tools.length,
      (await workspaceToolNames()).length,
    );
    await subscription.close();
    assert.equal(await subscription.closed, "local");
  } finally {
    await c.close();
  }
});

const CLIENT_REQUESTS = {
  command: Deno.execPath(),
  args: [
    "run",
    ...DENO_RUN_FLAGS,
    "--allow-net=127.0.0.1",
    `${PROJECT_ROOT}tests/client_requests_server.ts`,
    "--http",
    "127.0.0.1:0",
  ],
};

Deno.test("SDK 2.x over HTTP pinned: sampling, elicitation and roots are input_required rounds", async () => {
  const c = await connect(CLIENT_REQUESTS, {
    ...PIN,
    capabilities: CLIENT_REQUEST_CAPABILITIES,
  });
  try {
    await checkClientRequests(c.client);
  } finally {
    await c.close();
  }
});

Deno.test("SDK 2.x over HTTP pinned: log records only for a request that set a level, on its own stream", async () => {
  const c = await connect(CLIENT_REQUESTS, PIN);
  const records: unknown[] = [];
  c.client.setNotificationHandler("notifications/message", (notification) => {
    records.push(notification.params);
  });
  try {
    await c.client.callTool({ name: "log", arguments: {} });
    assert.deepEqual(records, []);
    await c.client.callTool({
      name: "log",
      arguments: {},
      _meta: { "io.modelcontextprotocol/logLevel": "warning" },
    });
    // The records came on the call's stream, before its answer.
    assert.deepEqual(records, [
      { level: "warning", logger: "test", data: { level: "warning" } },
      { level: "error", logger: "test", data: { level: "error" } },
    ]);
  } finally {
    await c.close();
  }
});
