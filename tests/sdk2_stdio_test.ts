/**
 * The official SDK client 2.x over stdio in MCP 2026-07-28 mode (`pin`),
 * against the workspace server and against the library's client-requests
 * server: every tool, resources, prompts and completion, the per-request
 * log level, `subscriptions/listen`, and sampling, elicitation and roots
 * as input_required rounds. In `auto` mode it probes with
 * `server/discover` and falls back to `initialize` where the server does
 * not offer 2026-07-28 (the default).
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { DENO_RUN_FLAGS } from "../cli/run_command.ts";
import { Client, StdioClientTransport } from "./sdk2.ts";
import { PROJECT_ROOT, serverCommand } from "./server_command.ts";
import {
  checkClientRequests,
  checkWorkspace,
  CLIENT_REQUEST_CAPABILITIES,
  texts,
} from "./sdk2_workspace.ts";
import { workspaceToolNames } from "./tool_names.ts";

const ROOT = `${PROJECT_ROOT}tests/fixtures/ws`;
const MODERN = ["--protocol-versions", "2026-07-28,2025-06-18"];

type Options = ConstructorParameters<typeof Client>[1];

async function connect(
  command: { command: string; args: string[] },
  options: Options,
): Promise<Client> {
  const client = new Client({ name: "shipcode-tests", version: "0.0.1" }, {
    ...options,
  });
  await client.connect(
    new StdioClientTransport({
      ...command,
      stderr: "ignore",
      env: { NO_COLOR: "1" },
    }),
  );
  return client;
}

const PIN: Options = { versionNegotiation: { mode: { pin: "2026-07-28" } } };

Deno.test("SDK 2.x pinned to 2026-07-28: tools, resources, prompts and completion on stdio", async () => {
  const client = await connect(
    serverCommand([...MODERN, "--features", "all", "--root", ROOT]),
    PIN,
  );
  try {
    await checkWorkspace(client);
  } finally {
    await client.close();
  }
});

Deno.test("SDK 2.x in auto mode falls back to initialize against the default server", async () => {
  const client = await connect(serverCommand(["--root", ROOT]), {
    versionNegotiation: { mode: "auto" },
  });
  try {
    assert.equal(client.getProtocolEra(), "legacy");
    assert.equal(client.getNegotiatedProtocolVersion(), "2025-06-18");
    const listed = await client.listTools();
    assert.deepEqual(
      listed.tools.map((tool) => tool.name),
      await workspaceToolNames(),
    );
  } finally {
    await client.close();
  }
});

Deno.test("SDK 2.x in auto mode chooses 2026-07-28 where it is offered", async () => {
  const client = await connect(serverCommand([...MODERN, "--root", ROOT]), {
    versionNegotiation: { mode: "auto" },
  });
  try {
    assert.equal(client.getProtocolEra(), "modern");
    assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
    const found = await client.callTool({
      name: "find_files",
      arguments: { pattern: "*.ts" },
    });
    assert.equal(texts(found), "src/lib/util.ts\nsrc/main.ts");
  } finally {
    await client.close();
  }
});

Deno.test("SDK 2.x pinned: subscriptions/listen is acknowledged with what the server honours", async () => {
  const client = await connect(
    serverCommand([...MODERN, "--features", "all", "--root", ROOT]),
    PIN,
  );
  try {
    const subscription = await client.listen({
      toolsListChanged: true,
      promptsListChanged: true,
    });
    assert.deepEqual(subscription.honoredFilter, {
      toolsListChanged: true,
      promptsListChanged: true,
    });
    // The listen request holds no answer back.
    const listed = await client.listTools();
    assert.equal(listed.tools.length, (await workspaceToolNames()).length);
    await subscription.close();
    assert.equal(await subscription.closed, "local");
  } finally {
    await client.close();
  }
});

const CLIENT_REQUESTS = {
  command: Deno.execPath(),
  args: [
    "run",
    ...DENO_RUN_FLAGS,
    `${PROJECT_ROOT}tests/client_requests_server.ts`,
  ],
};

Deno.test("SDK 2.x pinned: sampling, elicitation and roots are input_required rounds", async () => {
  const client = await connect(CLIENT_REQUESTS, {
    ...PIN,
    capabilities: CLIENT_REQUEST_CAPABILITIES,
  });
  try {
    await checkClientRequests(client);
  } finally {
    await client.close();
  }
});

Deno.test("SDK 2.x pinned: a capability the request did not declare is -32021", async () => {
  const client = await connect(CLIENT_REQUESTS, PIN);
  try {
    const sampled = await client.callTool({
      name: "ask_model",
      arguments: { question: "Capital of France?" },
    });
    // The tool reports the failure of its request as text.
    assert.match(
      texts(sampled),
      /^error -32021: Missing required client capability/,
    );
  } finally {
    await client.close();
  }
});

Deno.test("SDK 2.x pinned: log records only for a request that set a level", async () => {
  const client = await connect(CLIENT_REQUESTS, PIN);
  const records: unknown[] = [];
  client.setNotificationHandler("notifications/message", (notification) => {
    records.push(notification.params);
  });
  try {
    await client.callTool({ name: "log", arguments: {} });
    // The log tool's answer follows its records: none came.
    assert.deepEqual(records, []);
    await client.callTool({
      name: "log",
      arguments: {},
      _meta: { "io.modelcontextprotocol/logLevel": "warning" },
    });
    assert.deepEqual(records, [
      { level: "warning", logger: "test", data: { level: "warning" } },
      { level: "error", logger: "test", data: { level: "error" } },
    ]);
  } finally {
    await client.close();
  }
});

Deno.test("SDK 2.x pinned: without --root, a request is served the roots its client gives", async () => {
  const transport = new StdioClientTransport({
    ...serverCommand(MODERN),
    cwd: `${PROJECT_ROOT}tests/fixtures/resources`,
    stderr: "ignore",
    env: { NO_COLOR: "1" },
  });
  const client = new Client({ name: "shipcode-tests", version: "0.0.1" }, {
    ...PIN,
    capabilities: { roots: {} },
  });
  let listed = 0;
  client.setRequestHandler("roots/list", () => {
    listed++;
    return { roots: [{ uri: new URL(`file://${ROOT}`).href }] };
  });
  await client.connect(transport);
  try {
    const listing = await client.callTool({
      name: "list_directory",
      arguments: {},
    });
    assert.match(texts(listing), /^images\/$/m);
    assert.doesNotMatch(texts(listing), /^notes\.txt /m);
    assert.ok(listed >= 1, "the roots were asked for");
  } finally {
    await client.close();
  }
  // A client without the roots capability is served the server's own.
  const plain = await connect(
    {
      ...serverCommand(MODERN),
      cwd: `${PROJECT_ROOT}tests/fixtures/resources`,
    } as { command: string; args: string[] },
    PIN,
  );
  try {
    const listing = await plain.callTool({
      name: "list_directory",
      arguments: {},
    });
    assert.doesNotMatch(texts(listing), /^images\/$/m);
    assert.match(texts(listing), /^notes\.txt /m);
  } finally {
    await plain.close();
  }
});
