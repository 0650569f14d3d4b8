import { strict as assert } from "node:assert";
import { serve } from "./connection.ts";
import type { JsonObject } from "./jsonrpc.ts";
import { declaresListChanged, notifyListChanged } from "./list_changed.ts";
import { capabilitiesOf, type HandlerMap, McpServer } from "./server.ts";
import { Session } from "./session.ts";
import { defineTool } from "./tool.ts";
import type { InputEnd, Receiver, Transport } from "./transport.ts";

class MemoryTransport implements Transport {
  readonly sent: string[] = [];
  receiver: Receiver | undefined;
  backlog = 0;
  progress = 0;
  broken = false;
  readonly #end = Promise.withResolvers<InputEnd>();
  start(receiver: Receiver): Promise<InputEnd> {
    this.receiver = receiver;
    return this.#end.promise;
  }
  feed(...messages: JsonObject[]): void {
    for (const m of messages) this.receiver!.receive(JSON.stringify(m));
  }
  end(): void {
    this.#end.resolve("ended");
  }
  stop(): void {
    this.#end.resolve("stopped");
  }
  send(text: string): void {
    this.sent.push(text);
    this.progress++;
  }
  drop(): boolean {
    return false;
  }
  flush(): Promise<void> {
    return Promise.resolve();
  }
  close(): void {}
  notifications(): string[] {
    return this.sent.map((t) => JSON.parse(t)).filter((m) => m.id === undefined)
      .map((m) => m.method);
  }
}

const tick = () => new Promise((r) => setTimeout(r, 0));

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "t", version: "1" },
  },
};
// The few methods these tests need, standing in for handlers/mod.ts's.
const handlers: HandlerMap = {
  "initialize": {
    handler: (_params, { session }) => {
      session.state = "initializing";
      return {};
    },
    atOnce: true,
  },
  "notifications/initialized": {
    handler: (_params, { session }) => {
      if (session.state === "initializing") session.state = "ready";
    },
    atOnce: true,
  },
  "tools/list": { handler: () => ({ tools: [] }), capability: "tools" },
  "resources/list": {
    handler: () => ({ resources: [] }),
    capability: "resources",
  },
};

const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };

function tool(name: string) {
  return defineTool({
    name,
    description: "A test tool.",
    inputSchema: { type: "object" },
    run: () => ({ content: [] }),
  });
}

Deno.test("capabilitiesOf: listChanged on the lists only when asked", () => {
  const map: HandlerMap = {
    ...handlers,
    "prompts/list": { handler: () => ({ prompts: [] }), capability: "prompts" },
  };
  assert.equal(
    JSON.stringify(capabilitiesOf(map)),
    '{"tools":{},"resources":{},"prompts":{}}',
  );
  assert.equal(
    JSON.stringify(capabilitiesOf(map, { listChanged: true })),
    '{"tools":{"listChanged":true},"resources":{"listChanged":true},"prompts":{"listChanged":true}}',
  );
  const withLogging: HandlerMap = {
    ...handlers,
    "logging/setLevel": { handler: () => ({}), capability: "logging" },
  };
  assert.deepEqual(
    capabilitiesOf(withLogging, { listChanged: true }).logging,
    {},
  );
});

Deno.test("notifyListChanged: only when declared and the session is ready", () => {
  const sent: string[] = [];
  const session = new Session((line) => sent.push(line));
  const declared = { tools: { listChanged: true }, resources: {} };
  assert.equal(declaresListChanged(declared, "tools"), true);
  assert.equal(declaresListChanged(declared, "resources"), false);
  assert.equal(declaresListChanged(declared, "prompts"), false);
  assert.equal(notifyListChanged(declared, session, "tools"), false);
  session.state = "ready";
  assert.equal(notifyListChanged(declared, session, "resources"), false);
  assert.equal(notifyListChanged(declared, session, "tools"), true);
  assert.deepEqual(sent, [
    '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}',
  ]);
});

Deno.test("list changes reach initialized sessions whose server declared them", async () => {
  const server = new McpServer({
    handlers,
    info: { name: "example-mcp", version: "1.0.0" },
    capabilities: capabilitiesOf(handlers, { listChanged: true }),
  });
  const transport = new MemoryTransport();
  const served = serve(server, transport);
  // Not initialized yet: nothing is sent.
  server.tools.register(tool("early"));
  transport.feed(INITIALIZE);
  await tick();
  server.tools.register(tool("before_initialized"));
  assert.deepEqual(transport.notifications(), []);
  transport.feed(INITIALIZED);
  await tick();
  server.tools.register(tool("late"));
  server.listChanged("resources");
  server.listChanged("prompts"); // Not declared: not sent.
  assert.equal(server.tools.unregister("late"), true);
  assert.equal(server.tools.unregister("late"), false);
  assert.deepEqual(transport.notifications(), [
    "notifications/tools/list_changed",
    "notifications/resources/list_changed",
    "notifications/tools/list_changed",
  ]);
  transport.end();
  await served;
  // The connection stopped listening when it ended.
  server.tools.register(tool("after_end"));
  assert.equal(transport.notifications().length, 3);
});

Deno.test("a prompt registered or unregistered at run time is announced", async () => {
  const server = new McpServer({
    handlers: { ...handlers, "prompts/list": () => ({ prompts: [] }) },
    info: { name: "example-mcp", version: "1.0.0" },
    capabilities: { prompts: { listChanged: true } },
  });
  const transport = new MemoryTransport();
  const served = serve(server, transport);
  transport.feed(INITIALIZE, INITIALIZED);
  await tick();
  const prompt = { name: "late", get: () => ({ messages: [] }) };
  server.prompts.register(prompt);
  assert.equal(server.prompts.unregister("late"), true);
  assert.equal(server.prompts.unregister("late"), false);
  assert.equal(server.prompts.get("late"), undefined);
  assert.deepEqual(transport.notifications(), [
    "notifications/prompts/list_changed",
    "notifications/prompts/list_changed",
  ]);
  transport.end();
  await served;
});

Deno.test("list changes: nothing without the capability, nothing for the setup's own", async () => {
  let setupRan = false;
  for (const listChanged of [false, true]) {
    const server = new McpServer({
      handlers,
      info: { name: "example-mcp", version: "1.0.0" },
      capabilities: capabilitiesOf(handlers, { listChanged }),
      setup: (s) => {
        s.tools.register(tool("from_setup"));
        setupRan = true;
        return Promise.resolve();
      },
    });
    const transport = new MemoryTransport();
    const served = serve(server, transport);
    transport.feed(INITIALIZE, INITIALIZED);
    await tick();
    await server.ready();
    assert.ok(setupRan);
    assert.deepEqual(transport.notifications(), []);
    server.tools.register(tool("later"));
    assert.deepEqual(
      transport.notifications(),
      listChanged ? ["notifications/tools/list_changed"] : [],
    );
    transport.end();
    await served;
  }
});
