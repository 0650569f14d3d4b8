/**
 * `deno task bench`: shipcode-mcp against the floor (a minimal Deno loop)
 * and the official SDK (on Node and on Deno), through real processes with
 * piped stdio. Prints medians per workload and server, then the targets of
 * issue 2 as ratios marked PASS or FAIL, then the SDK/ours time ratios of
 * the tools and resources workloads (issues 3 and 4), which have no target.
 *
 * Runs are interleaved: every round runs each server once, in a shuffled
 * order, so that a noisy neighbour on the machine hits all servers alike.
 *
 * Flags: `--runs N` (startup runs, default 15), `--pings N` (default
 * 100000), `--ping-runs N` (default 3), `--first-runs N` (runs of the first
 * tools/list, default 10), `--io-runs N` (runs of each tools and resources
 * workload, default 3), `--calls N` (read_file calls, default 10000),
 * `--searches N` (search_text calls, default 100), `--files N` (files
 * listed, default 50000), `--reads N` (resources/read, default 1000),
 * `--servers a,b`, `--workloads a,b`,
 * `--check` (exit 1 when a target fails; otherwise the bench always exits 0:
 * it is a report), `--add "name=program arg ..."` (one more server, say a
 * variant of ours in another checkout, for an A/B comparison; repeatable).
 *
 * @module
 */

import { parseArgs } from "node:util";
import {
  prepare,
  type PreparedBatch,
  runOnce,
  type RunResult,
} from "./drive.ts";
import { Fixtures } from "./fixtures.ts";
import { shuffled } from "./measure.ts";
import type { CommandSpec } from "./process.ts";
import {
  judge,
  renderTable,
  renderVerdicts,
  type Results,
  type Target,
} from "./report.ts";
import { SERVERS } from "./servers.ts";
import { type Batch, defaultWorkloads, type Workload } from "./workloads.ts";

/** The promises of issue 2, for our source build and for the bundle. */
function targets(): Target[] {
  const list: Target[] = [];
  for (const ours of ["ours", "bundle"]) {
    list.push(
      {
        workload: "startup",
        metric: "time",
        numerator: ours,
        denominator: "floor",
        max: 1.3,
      },
      {
        workload: "pings",
        metric: "time",
        numerator: ours,
        denominator: "floor",
        max: 1.5,
      },
      {
        workload: "pings",
        metric: "memory",
        numerator: ours,
        denominator: "floor",
        max: 1.3,
      },
    );
  }
  for (const sdk of ["sdk-node", "sdk-deno"]) {
    list.push({
      workload: "pings",
      metric: "time",
      numerator: sdk,
      denominator: "ours",
      min: 10,
    });
  }
  return list;
}

/** SDK/ours time ratios of the tools and resources workloads: no target. */
function sdkRatios(): Target[] {
  const list: Target[] = [];
  for (
    const workload of [
      "tools_first",
      "read_file",
      "search_text",
      "resources_list",
      "resources_read",
    ]
  ) {
    for (const sdk of ["sdk-node", "sdk-deno"]) {
      list.push({
        workload,
        metric: "time",
        numerator: sdk,
        denominator: "ours",
      });
    }
  }
  return list;
}

function positive(value: string | undefined, fallback: number, flag: string) {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new Error(`--${flag} must be a positive integer, not "${value}"`);
  }
  return n;
}

function list(value: string | undefined): string[] | undefined {
  return value?.split(",").map((item) => item.trim()).filter(Boolean);
}

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      runs: { type: "string" },
      pings: { type: "string" },
      "ping-runs": { type: "string" },
      "first-runs": { type: "string" },
      "io-runs": { type: "string" },
      calls: { type: "string" },
      searches: { type: "string" },
      files: { type: "string" },
      reads: { type: "string" },
      servers: { type: "string" },
      workloads: { type: "string" },
      check: { type: "boolean", default: false },
      add: { type: "string", multiple: true },
    },
  });
  const fixtures = new Fixtures();
  const workloads = defaultWorkloads({
    startupRuns: positive(values.runs, 15, "runs"),
    pings: positive(values.pings, 100_000, "pings"),
    pingRuns: positive(values["ping-runs"], 3, "ping-runs"),
    firstRuns: positive(values["first-runs"], 10, "first-runs"),
    ioRuns: positive(values["io-runs"], 3, "io-runs"),
    readFileCalls: positive(values.calls, 10_000, "calls"),
    searchCalls: positive(values.searches, 100, "searches"),
    listFiles: positive(values.files, 50_000, "files"),
    resourceReads: positive(values.reads, 1_000, "reads"),
    fixtures,
  });
  const onlyServers = list(values.servers);
  const onlyWorkloads = list(values.workloads);

  const ready: { name: string; spec: CommandSpec }[] = [];
  const legend: string[] = [];
  for (const server of SERVERS) {
    if (onlyServers && !onlyServers.includes(server.name)) continue;
    const spec = await server.prepare();
    if (typeof spec === "string") {
      legend.push(`  ${server.name.padEnd(10)} skipped: ${spec}`);
      continue;
    }
    legend.push(`  ${server.name.padEnd(10)} ${server.description}`);
    ready.push({ name: server.name, spec });
  }
  for (const extra of values.add ?? []) {
    const [name, ...command] = extra.split(/[= ]+/);
    if (!name || command.length === 0) {
      throw new Error(`--add takes "name=program arg ...", not "${extra}"`);
    }
    legend.push(`  ${name.padEnd(10)} ${command.join(" ")}`);
    ready.push({
      name,
      spec: { command: command[0], args: command.slice(1), cwd: Deno.cwd() },
    });
  }
  console.log("servers");
  console.log(legend.join("\n"));
  console.log("");

  const results: Results = new Map();
  const selected = workloads.filter((workload) =>
    !onlyWorkloads || onlyWorkloads.includes(workload.key)
  );
  try {
    for (const workload of selected) {
      await runWorkload(workload, ready, results);
    }
  } finally {
    await fixtures.remove();
  }

  console.log(
    renderTable(selected, ready.map((server) => server.name), results),
  );
  const verdicts = judge(targets(), results).filter((verdict) =>
    verdict.status !== "SKIP"
  );
  if (verdicts.length > 0) console.log(renderVerdicts(verdicts));
  const ratios = judge(sdkRatios(), results).filter((verdict) =>
    verdict.status !== "SKIP"
  );
  if (ratios.length > 0) {
    console.log("");
    console.log(renderVerdicts(ratios, "ratios (SDK/ours, no target)"));
  }
  console.log(
    "\n(2 shared cores: numbers are noisy; compare ratios from one run.)",
  );
  const failed = verdicts.some((verdict) => verdict.status === "FAIL");
  return values.check && failed ? 1 : 0;
}

async function runWorkload(
  workload: Workload,
  servers: { name: string; spec: CommandSpec }[],
  results: Results,
): Promise<void> {
  Deno.stderr.writeSync(new TextEncoder().encode(`bench: ${workload.label} `));
  const built = await workload.build();
  const measured: PreparedBatch = prepare(built);
  const before = [workload.handshake, built.warmUp]
    .filter((batch): batch is Batch => batch !== undefined);
  const handshake = before.length === 0 ? undefined : prepare({
    lines: before.flatMap((batch) => batch.lines),
    ids: before.flatMap((batch) => batch.ids),
  });
  const eligible = servers
    .filter((server) =>
      (!workload.servers || workload.servers.includes(server.name)) &&
      !workload.exclude?.includes(server.name)
    )
    .map((server) => ({
      name: server.name,
      spec: {
        ...server.spec,
        args: [...server.spec.args, ...built.args ?? []],
      },
    }));
  const byServer = new Map<string, RunResult[]>();
  results.set(workload.key, byServer);
  const failed = new Set<string>();
  for (let round = 0; round < workload.runs; round++) {
    for (const server of shuffled(eligible)) {
      if (failed.has(server.name)) continue;
      try {
        const result = await runOnce(
          server.spec,
          workload,
          measured,
          handshake,
        );
        const runs = byServer.get(server.name) ?? [];
        runs.push(result);
        byServer.set(server.name, runs);
      } catch (error) {
        failed.add(server.name);
        console.error(
          `\nbench: ${server.name} failed ${workload.key}: ${
            (error as Error).message
          }`,
        );
      }
    }
    Deno.stderr.writeSync(new TextEncoder().encode("."));
  }
  Deno.stderr.writeSync(new TextEncoder().encode("\n"));
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
