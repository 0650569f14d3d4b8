/**
 * Requests from the server to the official SDK client, which answers
 * them: sampling, a form (elicitation, with 2025-11-25's titled and
 * multi-select enums and defaults) and roots, through the tools of a test
 * server built with the library (`client_requests_server.ts`); a client
 * error reaches the tool as a rejection it handles; a client without the
 * capability gets nothing sent, and the tool a clear error.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import {
  Client,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from "./sdk.ts";
import { DENO_RUN_FLAGS } from "../cli/run_command.ts";
import { PROJECT_ROOT } from "./server_command.ts";
import {
  type Connection,
  connectSdk,
  httpCommand,
  type ServerSpec,
  type Wire,
} from "./sdk_connect.ts";

type Capabilities = ConstructorParameters<typeof Client>[1];

const SERVER: ServerSpec = {
  command: Deno.execPath(),
  args: [
    "run",
    ...DENO_RUN_FLAGS,
    `${PROJECT_ROOT}tests/client_requests_server.ts`,
  ],
};

function connect(wire: Wire, capabilities: Capabilities) {
  const client = new Client(
    { name: "shipcode-tests", version: "0.0.1" },
    capabilities,
  );
  const received: { method: string; params: unknown }[] = [];
  const record = (request: { method: string; params?: unknown }) =>
    received.push({ method: request.method, params: request.params });
  /** Connect, once the client's handlers are set. */
  const start = (): Promise<Connection> =>
    connectSdk(client, wire, wire === "http" ? httpCommand(SERVER) : SERVER);
  return { client, start, received, record };
}

function text(result: { content: unknown }): string {
  return (result.content as { text: string }[])[0].text;
}

for (const wire of ["stdio", "http"] as const) {
  const tag = wire === "stdio" ? "" : " [http]";
  Deno.test(`sdk client requests${tag}: sampling, a form and roots, answered by the client`, async () => {
    const { client, start, received, record } = connect(wire, {
      capabilities: { sampling: {}, elicitation: { form: {} }, roots: {} },
    });
    client.setRequestHandler(
      CreateMessageRequestSchema,
      (
        request: {
          method: string;
          params: { messages: { content: { text: string } }[] };
        },
      ) => {
        record(request);
        return {
          role: "assistant",
          content: {
            type: "text",
            text: `echo ${request.params.messages[0].content.text}`,
          },
          model: "test-model",
        };
      },
    );
    client.setRequestHandler(
      ElicitRequestSchema,
      (request: { method: string; params: unknown }) => {
        record(request);
        return {
          action: "accept",
          content: { name: "Grace", size: "l", tags: ["y", "z"] },
        };
      },
    );
    client.setRequestHandler(
      ListRootsRequestSchema,
      (request: { method: string; params?: unknown }) => {
        record(request);
        return {
          roots: [{ uri: "file:///work/a", name: "a" }, { uri: "file:///b" }],
        };
      },
    );
    const { close } = await start();
    try {
      assert.equal(
        text(
          await client.callTool({
            name: "ask_model",
            arguments: { question: "hi" },
          }),
        ),
        "test-model: echo hi",
      );
      assert.equal(
        text(await client.callTool({ name: "ask_user", arguments: {} })),
        '{"action":"accept","content":{"name":"Grace","size":"l","tags":["y","z"]}}',
      );
      assert.equal(
        text(await client.callTool({ name: "list_roots", arguments: {} })),
        "file:///work/a\nfile:///b",
      );
      assert.deepEqual(received.map((r) => r.method), [
        "sampling/createMessage",
        "elicitation/create",
        "roots/list",
      ]);
      const form = received[1].params as {
        requestedSchema: { properties: Record<string, unknown> };
      };
      assert.deepEqual(form.requestedSchema.properties.size, {
        type: "string",
        oneOf: [{ const: "s", title: "Small" }, { const: "l", title: "Large" }],
        default: "s",
      });
    } finally {
      await close();
    }
  });

  Deno.test(`sdk client requests${tag}: a client error is a rejection the tool handles; the session goes on`, async () => {
    const { client, start } = connect(wire, {
      capabilities: { sampling: {}, roots: {} },
    });
    client.setRequestHandler(CreateMessageRequestSchema, () => {
      throw new Error("the user declined");
    });
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [] }));
    const { close } = await start();
    try {
      assert.match(
        text(
          await client.callTool({
            name: "ask_model",
            arguments: { question: "hi" },
          }),
        ),
        /^error -32603: the user declined$/,
      );
      // Declared sampling and roots, not elicitation: nothing is sent.
      assert.match(
        text(await client.callTool({ name: "ask_user", arguments: {} })),
        /^error -32600: The client did not declare the "elicitation" capability/,
      );
      assert.equal(
        text(await client.callTool({ name: "list_roots", arguments: {} })),
        "",
      );
    } finally {
      await close();
    }
  });

  Deno.test(`sdk client requests${tag}: an unanswered request times out, is cancelled, and the tool gets -32001`, async () => {
    const { client, start } = connect(wire, { capabilities: { roots: {} } });
    const never = Promise.withResolvers<never>();
    let cancelled = false;
    client.setRequestHandler(
      ListRootsRequestSchema,
      (_request: unknown, extra: { signal: AbortSignal }) => {
        extra.signal.addEventListener("abort", () => cancelled = true);
        return never.promise;
      },
    );
    const { close } = await start();
    try {
      assert.match(
        text(
          await client.callTool({
            name: "list_roots",
            arguments: { timeoutMs: 200 },
          }),
        ),
        /^error -32001: Request timed out: the client did not answer roots\/list within 200 ms/,
      );
      assert.equal(cancelled, true, "the client was told to stop");
      await client.ping();
    } finally {
      await close();
    }
  });
}
