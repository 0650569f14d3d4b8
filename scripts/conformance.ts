/**
 * `deno task conformance`: the official MCP conformance suite
 * (`@modelcontextprotocol/conformance`, pinned below and locked in
 * `scripts/conformance.lock`) against the fixture server
 * `examples/conformance_server.ts` served over Streamable HTTP, at every
 * protocol version the suite tests servers at.
 *
 * It starts the fixture server on a free port of 127.0.0.1 (or uses
 * `--url` of a server already running), runs every server scenario of each
 * version (`--suite all`: the pending ones too) in one run of the suite, reads each scenario's `checks.json`, and
 * prints passed, failed and skipped checks per scenario and a total; then
 * it runs the scenarios of the extensions the fixture implements (tasks and
 * skills; the suite runs those only when named, at 2026-07-28), one by one. It
 * exits 1 when any check fails, when a scenario that was not skipped had no
 * check pass or fail (say, only informational ones, because what it tests
 * did not happen), or when the suite ran fewer scenarios than it announced.
 *
 * ```sh
 * deno task conformance                                # start the fixture, every version
 * deno task conformance --spec-version 2025-11-25      # one version
 * deno task conformance --spec-version extensions      # the extension scenarios
 * deno task conformance --url http://127.0.0.1:3001/mcp  # a server already running
 * ```
 *
 * @module
 */

import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { type ListeningProcess, startListening } from "../tests/process.ts";

/** The pinned suite, as `deno run` takes it. */
export const SUITE = "npm:@modelcontextprotocol/conformance@0.2.0-alpha.12";

/** The protocol versions whose server scenarios are run, in order. */
export const VERSIONS: readonly string[] = [
  "2025-06-18",
  "2025-11-25",
  "2026-07-28",
];

/** The pseudo-version under which the extension scenarios are reported. */
export const EXTENSIONS = "extensions";

/**
 * The extension scenarios run (by name: `--suite all` leaves them out):
 * the tasks extension (`io.modelcontextprotocol/tasks`) and the skills
 * extension (`io.modelcontextprotocol/skills`).
 */
export const EXTENSION_SCENARIOS: readonly string[] = [
  "tasks-lifecycle",
  "tasks-capability-negotiation",
  "tasks-wire-fields",
  "tasks-request-state-removal",
  "tasks-mrtr-input",
  "tasks-request-headers",
  "tasks-dispatch-and-envelope",
  "tasks-status-notifications",
  "tasks-required-task-error",
  "tasks-mrtr-composition",
  "sep-2640-skills-directory",
  "sep-2640-skills-enumeration",
  "sep-2640-skills-manifest",
];

/**
 * Scenarios the pinned suite does not exercise yet, whatever the server:
 * it reports their one check as skipped (`tasks-status-notifications`
 * waits for the suite to watch `subscriptions/listen`, where the extension
 * sends `notifications/tasks`). Such a scenario with no check passed is not
 * a problem; every other one is.
 */
export const SUITE_SKIPPED: ReadonlySet<string> = new Set([
  "tasks-status-notifications",
]);

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const LOCK = `${ROOT}scripts/conformance.lock`;
const FIXTURE = `${ROOT}examples/conformance_server.ts`;

/** How long the fixture server may take to print its URL. */
const STARTUP_MS = 60_000;
/** How long one version's run of the suite may take in all. */
const SUITE_MS = 10 * 60_000;
/** How long one scenario may take (the suite's `--timeout`). */
const SCENARIO_MS = 30_000;

/** One check's outcome, as the suite writes it to `checks.json`. */
export interface Check {
  /** The check's id. */
  id: string;
  /** What it checks. */
  description?: string;
  /** `SUCCESS`, `FAILURE`, `WARNING`, `SKIPPED` or `INFO`. */
  status: string;
  /** Why it failed, when it did. */
  errorMessage?: string;
  /** What the check saw. */
  details?: unknown;
}

/** What one scenario of one run gave. */
export interface ScenarioResult {
  /** The scenario's name, say `tools-call-image`. */
  scenario: string;
  /** Its checks (none when the suite skipped the scenario). */
  checks: Check[];
  /** The suite skipped the whole scenario (not applicable at this version). */
  skipped: boolean;
}

/** What one run of the suite (one version) gave. */
export interface SuiteRun {
  /** How many scenarios the suite said it would run, if it said. */
  announced?: number;
  /** Each scenario, in the order run. */
  scenarios: ScenarioResult[];
}

/** Passed, failed, skipped and other checks of a scenario or a run. */
export interface Tally {
  /** Checks with status SUCCESS. */
  passed: number;
  /** Checks with status FAILURE. */
  failed: number;
  /** Checks with status SKIPPED, plus one per scenario skipped whole. */
  skipped: number;
  /** Checks with status WARNING. */
  warnings: number;
}

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

/**
 * Read the suite's stdout: which scenario each "Results saved to DIR" line
 * belongs to, which scenarios it skipped, and how many it announced.
 * `readChecks` reads a results directory's `checks.json`.
 */
export async function parseSuiteOutput(
  stdout: string,
  readChecks: (dir: string) => Promise<Check[]>,
): Promise<SuiteRun> {
  const run: SuiteRun = { scenarios: [] };
  let current: ScenarioResult | undefined;
  // Whether the current scenario's "Running client scenario" line was seen.
  let named = false;
  for (const raw of stdout.split("\n")) {
    const line = raw.replace(ANSI, "").trim();
    const announced = line.match(/^Running .* \((\d+) scenarios\) against /);
    if (announced) run.announced = Number(announced[1]);
    // A run of several scenarios heads each with "=== Running scenario";
    // a run of one names it only in the line that follows such a heading.
    const start = line.match(/^=== Running scenario: (\S+) ===$/) ??
      line.match(/^Running client scenario '([^']+)' against /);
    if (start && current?.scenario === start[1] && !named) {
      named = true;
      continue;
    }
    if (start) {
      current = { scenario: start[1], checks: [], skipped: false };
      named = start[0].startsWith("Running");
      run.scenarios.push(current);
      continue;
    }
    if (current === undefined) continue;
    if (line.startsWith("SKIPPED: scenario ")) current.skipped = true;
    const saved = line.match(/^Results saved to (.+)$/);
    if (saved) current.checks = await readChecks(saved[1]);
  }
  return run;
}

/** The tally of some checks; a scenario skipped whole counts one skipped. */
export function tally(results: readonly ScenarioResult[]): Tally {
  const sum: Tally = { passed: 0, failed: 0, skipped: 0, warnings: 0 };
  for (const result of results) {
    if (result.skipped) sum.skipped++;
    for (const check of result.checks) {
      if (check.status === "SUCCESS") sum.passed++;
      else if (check.status === "FAILURE") sum.failed++;
      else if (check.status === "SKIPPED") sum.skipped++;
      else if (check.status === "WARNING") sum.warnings++;
    }
  }
  return sum;
}

/**
 * What is wrong with a run, one line each: failed checks, scenarios that
 * ran no check, scenarios announced but not run, a suite that exited
 * non-zero. Empty when the run passed.
 */
export function problems(run: SuiteRun, exitCode: number): string[] {
  const found: string[] = [];
  for (const result of run.scenarios) {
    for (const check of result.checks) {
      if (check.status !== "FAILURE") continue;
      found.push(
        `${result.scenario}: ${check.id} failed: ${
          check.errorMessage ?? check.description ?? "no reason given"
        }`,
      );
    }
    const counted = tally([result]);
    const suiteSkipped = SUITE_SKIPPED.has(result.scenario) &&
      result.checks.length > 0 &&
      result.checks.every((check) => check.status === "SKIPPED");
    if (
      !result.skipped && !suiteSkipped && counted.passed + counted.failed === 0
    ) {
      const info = result.checks.find((check) =>
        check.status === "INFO" &&
        /not applicable/i.test(JSON.stringify(check))
      );
      found.push(
        `${result.scenario}: no check passed or failed${
          info
            ? ` (${info.description}: ${JSON.stringify(info.details)})`
            : " (see the suite's output)"
        }`,
      );
    }
  }
  if (run.scenarios.length === 0) {
    found.push("the suite ran no scenario (see its output)");
  } else if (
    run.announced !== undefined && run.scenarios.length < run.announced
  ) {
    found.push(
      `the suite announced ${run.announced} scenarios but ran ${run.scenarios.length}`,
    );
  }
  if (exitCode !== 0 && found.length === 0) {
    found.push(`the suite exited with ${exitCode} (see its output)`);
  }
  return found;
}

/** The per-scenario table of one version, with its total. */
export function renderRun(version: string, run: SuiteRun): string {
  const width = Math.max(
    24,
    ...run.scenarios.map((result) => result.scenario.length + 2),
  );
  const row = (name: string, t: Tally, note = "") =>
    `  ${name.padEnd(width)}${String(t.passed).padStart(4)} passed ${
      String(t.failed).padStart(3)
    } failed ${String(t.skipped).padStart(3)} skipped${
      t.warnings > 0 ? `  ${t.warnings} warning(s)` : ""
    }${note}`;
  const lines = [`${version}`];
  for (const result of run.scenarios) {
    lines.push(
      row(
        result.scenario,
        tally([result]),
        result.skipped
          ? "  (not applicable)"
          : SUITE_SKIPPED.has(result.scenario)
          ? "  (the suite does not exercise it yet)"
          : "",
      ),
    );
  }
  lines.push(
    row(
      "total",
      tally(run.scenarios),
      `  (${run.scenarios.length} scenarios)`,
    ),
  );
  return lines.join("\n");
}

/** A running fixture server: its URL, and how to stop it. */
function startFixture(): Promise<ListeningProcess> {
  return startListening({
    command: Deno.execPath(),
    args: [
      "run",
      // The library loads its handlers when first called: read access.
      "--allow-read",
      "--allow-net=127.0.0.1",
      "--no-prompt",
      FIXTURE,
      "--http",
      "127.0.0.1:0",
    ],
    cwd: ROOT,
  }, STARTUP_MS);
}

/** What one run of the suite gave, with its exit code and output. */
interface SuiteOutcome {
  run: SuiteRun;
  exitCode: number;
  output: string;
}

/**
 * The suite's arguments that pick the scenarios of `version`: every server
 * scenario of a protocol version, or the extension scenarios.
 */
function selection(version: string): string[][] {
  if (version === EXTENSIONS) {
    return EXTENSION_SCENARIOS.map((scenario) => ["--scenario", scenario]);
  }
  return [[
    "--spec-version",
    version,
    // "all": the active scenarios and the pending ones (JSON Schema
    // 2020-12, SSE polling), which the suite does not run by default.
    "--suite",
    "all",
  ]];
}

/** Run the scenarios of `version` against `url`, one run of the suite per selection. */
async function runVersion(url: string, version: string): Promise<SuiteOutcome> {
  const outcome: SuiteOutcome = {
    run: { scenarios: [] },
    exitCode: 0,
    output: "",
  };
  for (const args of selection(version)) {
    const one = await runSuite(url, args);
    outcome.run.scenarios.push(...one.run.scenarios);
    if (one.run.announced !== undefined) {
      outcome.run.announced = (outcome.run.announced ?? 0) + one.run.announced;
    }
    if (outcome.exitCode === 0) outcome.exitCode = one.exitCode;
    outcome.output += one.output;
  }
  return outcome;
}

/** Run the suite once, with `select` picking the scenarios, against `url`. */
async function runSuite(
  url: string,
  select: string[],
): Promise<SuiteOutcome> {
  const outDir = await Deno.makeTempDir({ prefix: "conformance-" });
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--no-config",
        `--lock=${LOCK}`,
        "--frozen",
        SUITE,
        "server",
        "--url",
        url,
        ...select,
        "--timeout",
        String(SCENARIO_MS),
        "-o",
        outDir,
      ],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      cwd: ROOT,
      env: { NO_COLOR: "1" },
    }).spawn();
    const timer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
    }, SUITE_MS);
    const out = await child.output();
    clearTimeout(timer);
    const decoder = new TextDecoder();
    const stdout = decoder.decode(out.stdout);
    const output = `${stdout}${decoder.decode(out.stderr)}`;
    const run = await parseSuiteOutput(
      stdout,
      async (dir) =>
        JSON.parse(await Deno.readTextFile(`${dir}/checks.json`)) as Check[],
    );
    const exitCode = out.signal !== null ? 128 : out.code;
    return { run, exitCode, output };
  } finally {
    await Deno.remove(outDir, { recursive: true }).catch(() => {});
  }
}

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      url: { type: "string" },
      "spec-version": { type: "string", multiple: true },
      verbose: { type: "boolean" },
    },
  });
  const versions = values["spec-version"] ?? [...VERSIONS, EXTENSIONS];
  const fixture = values.url === undefined ? await startFixture() : undefined;
  const url = values.url ?? fixture!.url;
  console.log(`conformance: ${SUITE.slice(4)} against ${url}\n`);
  let failed = false;
  const totals: string[] = [];
  try {
    for (const version of versions) {
      const { run, exitCode, output } = await runVersion(url, version);
      if (values.verbose) console.log(output);
      console.log(renderRun(version, run));
      const found = problems(run, exitCode);
      const sum = tally(run.scenarios);
      totals.push(
        `  ${version}: ${sum.passed} passed, ${sum.failed} failed, ${sum.skipped} skipped (${run.scenarios.length} scenarios)`,
      );
      if (found.length > 0) {
        failed = true;
        console.log(`\n  ${version} FAILED:`);
        for (const line of found) console.log(`    ${line}`);
        if (!values.verbose) {
          console.log(`\n  the suite's output:\n${output}`);
        }
      }
      console.log("");
    }
  } finally {
    if (fixture !== undefined) {
      await fixture.stop();
      if (failed) {
        console.log(`the fixture server's stderr:\n${fixture.stderr()}`);
      }
    }
  }
  console.log(`conformance totals\n${totals.join("\n")}`);
  console.log(failed ? "conformance: FAILED" : "conformance: all passed");
  return failed ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
