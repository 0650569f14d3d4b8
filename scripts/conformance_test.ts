import { strict as assert } from "node:assert";
import {
  type Check,
  EXTENSION_SCENARIOS,
  EXTENSIONS,
  parseSuiteOutput,
  problems,
  renderRun,
  SUITE_SKIPPED,
  tally,
} from "./conformance.ts";

// The suite's stdout, as 0.2.0-alpha.12 prints it (colours and all).
const STDOUT = [
  "Running all suite (3 scenarios) against http://127.0.0.1:1/mcp",
  "",
  "=== Running scenario: ping ===",
  "Running client scenario 'ping' against server: http://127.0.0.1:1/mcp",
  "Results saved to /tmp/out/server-ping-2026",
  "Checks:",
  "\x1b[90m2026\x1b[0m [ping] \x1b[32mSUCCESS\x1b[0m Server responds",
  "",
  "=== Running scenario: server-sse-polling ===",
  "Results saved to /tmp/out/server-server-sse-polling-2026",
  "=== Running scenario: tools-call-error ===",
  "Results saved to /tmp/out/server-tools-call-error-2026",
].join("\n");

const CHECKS: Record<string, Check[]> = {
  "/tmp/out/server-ping-2026": [
    { id: "ping", status: "SUCCESS" },
    { id: "wire-schema-valid", status: "SUCCESS" },
  ],
  "/tmp/out/server-server-sse-polling-2026": [
    { id: "outgoing-request", status: "INFO" },
    {
      id: "server-sse-content-type",
      description: "Server returns text/event-stream for POST request",
      status: "INFO",
      details: { message: "priming event tests not applicable" },
    },
  ],
  "/tmp/out/server-tools-call-error-2026": [
    { id: "tool-error", status: "FAILURE", errorMessage: "isError missing" },
    { id: "wire-schema-valid", status: "SUCCESS" },
    { id: "later", status: "SKIPPED" },
    { id: "style", status: "WARNING" },
  ],
};

const read = (dir: string) => Promise.resolve(CHECKS[dir]);

Deno.test("conformance: each scenario's checks are read from the directory the suite names", async () => {
  const run = await parseSuiteOutput(STDOUT, read);
  assert.equal(run.announced, 3);
  assert.deepEqual(run.scenarios.map((s) => s.scenario), [
    "ping",
    "server-sse-polling",
    "tools-call-error",
  ]);
  assert.deepEqual(tally(run.scenarios.slice(0, 1)), {
    passed: 2,
    failed: 0,
    skipped: 0,
    warnings: 0,
  });
  assert.deepEqual(tally(run.scenarios), {
    passed: 3,
    failed: 1,
    skipped: 1,
    warnings: 1,
  });
  const table = renderRun("2025-11-25", run);
  assert.match(table, /^ {2}ping +2 passed +0 failed +0 skipped$/m);
  assert.match(
    table,
    /^ {2}total +3 passed +1 failed +1 skipped {2}1 warning\(s\) {2}\(3 scenarios\)$/m,
  );
});

Deno.test("conformance: a failed check, a scenario with only informational checks and a missing scenario are problems", async () => {
  const run = await parseSuiteOutput(STDOUT, read);
  const found = problems(run, 1);
  assert.equal(found.length, 2);
  assert.match(found[0], /^server-sse-polling: no check passed or failed \(/);
  assert.match(found[0], /not applicable/);
  assert.equal(
    found[1],
    "tools-call-error: tool-error failed: isError missing",
  );

  const cut = await parseSuiteOutput(
    STDOUT.replace(/=== Running scenario: tools-call-error[^]*$/, ""),
    read,
  );
  assert.ok(
    problems(cut, 0).includes(
      "the suite announced 3 scenarios but ran 2",
    ),
  );
  assert.deepEqual(
    problems(await parseSuiteOutput("", read), 0),
    ["the suite ran no scenario (see its output)"],
  );
});

Deno.test("conformance: a scenario the suite skips whole is skipped, not a problem", async () => {
  const run = await parseSuiteOutput(
    [
      "=== Running scenario: json-schema-2020-12 ===",
      "SKIPPED: scenario 'json-schema-2020-12' is not applicable at spec version 2025-06-18",
      "=== Running scenario: ping ===",
      "Results saved to /tmp/out/server-ping-2026",
    ].join("\n"),
    read,
  );
  assert.equal(run.scenarios[0].skipped, true);
  assert.equal(tally(run.scenarios).skipped, 1);
  assert.deepEqual(problems(run, 0), []);
  assert.deepEqual(problems(run, 1), [
    "the suite exited with 1 (see its output)",
  ]);
});

Deno.test("conformance: a run of one named scenario is read as that scenario, once", async () => {
  const run = await parseSuiteOutput(
    [
      "Running client scenario 'ping' against server: http://127.0.0.1:1/mcp",
      "Results saved to /tmp/out/server-ping-2026",
      "Checks:",
    ].join("\n"),
    read,
  );
  assert.deepEqual(run.scenarios.map((s) => s.scenario), ["ping"]);
  assert.equal(tally(run.scenarios).passed, 2);
});

Deno.test("conformance: only a scenario the suite does not exercise may skip every check", async () => {
  const skippedChecks: Record<string, Check[]> = {
    "/tmp/out/a": [{ id: "tasks-status-notifications", status: "SKIPPED" }],
    "/tmp/out/b": [{ id: "sep-2640-skillmd-mimetype", status: "SKIPPED" }],
  };
  const run = await parseSuiteOutput(
    [
      "Running client scenario 'tasks-status-notifications' against server: x",
      "Results saved to /tmp/out/a",
      "Running client scenario 'sep-2640-skills-manifest' against server: x",
      "Results saved to /tmp/out/b",
    ].join("\n"),
    (dir) => Promise.resolve(skippedChecks[dir]),
  );
  assert.equal(SUITE_SKIPPED.has("tasks-status-notifications"), true);
  assert.deepEqual(problems(run, 0), [
    "sep-2640-skills-manifest: no check passed or failed (see the suite's output)",
  ]);
  assert.match(
    renderRun(EXTENSIONS, run),
    /tasks-status-notifications .*\(the suite does not exercise it yet\)/,
  );
});

Deno.test("conformance: every extension scenario is run", () => {
  for (const name of EXTENSION_SCENARIOS) {
    assert.match(name, /^(tasks-|sep-2640-skills-)/);
  }
  assert.equal(EXTENSION_SCENARIOS.length, 13);
  assert.equal(new Set(EXTENSION_SCENARIOS).size, 13);
});
