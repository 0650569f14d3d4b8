import { strict as assert } from "node:assert";
import { existsIn } from "../mcp/methods.ts";
import {
  MODERN_PROTOCOL_VERSIONS,
  PROTOCOL_VERSIONS,
} from "../mcp/protocol_versions.ts";
import { capabilitiesOf, specOf } from "../mcp/server.ts";
import {
  completionHandlers,
  handlers,
  loggingHandlers,
  METHODS,
  modernHandlers,
  promptHandlers,
  skillHandlers,
  taskHandlers,
} from "./mod.ts";

const rows = Object.entries(METHODS);
const where = (test: (row: typeof METHODS[string]) => boolean) =>
  rows.filter(([, row]) => test(row)).map(([method]) => method).sort();

Deno.test("methods: the methods 2026-07-28 lacks are those of the handshake alone", () => {
  assert.deepEqual(
    where((row) => !existsIn(row, "2026-07-28")),
    [
      "initialize",
      "logging/setLevel",
      "ping",
      "resources/subscribe",
      "resources/unsubscribe",
    ],
  );
  assert.deepEqual(where((row) => !existsIn(row, "2025-06-18")), [
    "server/discover",
    "subscriptions/listen",
  ]);
  // A method a version lacks says what to do instead there, and its
  // versions are ones the library speaks.
  const known = [...PROTOCOL_VERSIONS, ...MODERN_PROTOCOL_VERSIONS];
  for (const [method, row] of rows) {
    if (row.until !== undefined) assert.ok(row.instead, method);
    for (const version of [row.since, row.until]) {
      if (version !== undefined) assert.ok(known.includes(version), method);
    }
  }
});

Deno.test("methods: input_required, caching hints and answered at once, per row", () => {
  assert.deepEqual(where((row) => row.asksInput === true), [
    "prompts/get",
    "resources/read",
    "tools/call",
  ]);
  assert.deepEqual(
    where((row) => row.cacheHint?.cacheScope === "public"),
    [
      "prompts/list",
      "resources/templates/list",
      "server/discover",
      "skills/get",
      "skills/list",
      "tools/list",
    ],
  );
  assert.deepEqual(where((row) => row.cacheHint?.cacheScope === "private"), [
    "resources/list",
    "resources/read",
  ]);
  assert.deepEqual(where((row) => row.atOnce === true), [
    "initialize",
    "logging/setLevel",
    "notifications/cancelled",
    "notifications/initialized",
    "ping",
  ]);
});

Deno.test("methods: the rows name the fields Mcp-Name mirrors (2026-07-28 and the tasks extension)", () => {
  const nameKeys = Object.fromEntries(
    rows.flatMap(([method, row]) =>
      row.nameKey === undefined ? [] : [[method, row.nameKey]]
    ),
  );
  assert.deepEqual(nameKeys, {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    "tasks/get": "taskId",
    "tasks/update": "taskId",
    "tasks/cancel": "taskId",
  });
});

Deno.test("methods: the maps are the registry's groups, each method in one", () => {
  const maps = [
    handlers,
    modernHandlers,
    promptHandlers,
    completionHandlers,
    loggingHandlers,
    taskHandlers,
    skillHandlers,
  ];
  const listed = maps.flatMap((map) => Object.keys(map));
  assert.deepEqual([...listed].sort(), Object.keys(METHODS).sort());
  assert.equal(new Set(listed).size, listed.length);
  for (const map of maps) {
    for (const [method, entry] of Object.entries(map)) {
      assert.equal(specOf(entry), METHODS[method]);
    }
  }
  assert.equal(
    JSON.stringify(capabilitiesOf(handlers)),
    '{"tools":{},"resources":{}}',
  );
  assert.equal(
    JSON.stringify(capabilitiesOf(Object.assign({}, ...maps))),
    '{"tools":{},"resources":{},"prompts":{},"logging":{},"completions":{}}',
  );
});
