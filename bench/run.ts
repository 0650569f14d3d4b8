/**
 * `deno task bench`: shipcode-mcp against the floor (a minimal Deno loop)
 * and the official SDK (on Node and on Deno), through real processes with
 * piped stdio. Three sections, all run by default:
 *
 * - `timing`: medians per workload and server, the start-up and ping
 *   targets as ratios to the floor marked PASS or FAIL, and the SDK/ours
 *   time ratios of the tools and resources workloads, which have no target;
 * - `wire`: bytes sent per byte of an ASCII source file that `read_file`
 *   returns (target ≤ 1.3);
 * - `memory`: peak RSS of ours (source and bundle) under floods (a slow
 *   reader, queued searches, distinct missing paths, paging a big
 *   directory); target ≤ 300 MiB each;
 * - `http`: ours over Streamable HTTP against the SDK's
 *   `StreamableHTTPServerTransport`, many sessions calling a tool at once:
 *   throughput, p50 and p99 latency, peak RSS (`http.ts`); targets ≥ 3×
 *   the SDK's throughput and a p99 under the SDK's;
 * - `attacks`: issue 26's attacks on the HTTP transport at full size, each
 *   on a fresh server: peak RSS and fresh clients' latency against targets
 *   (`attacks.ts`).
 *
 * Every row says how many samples it holds. The bench exits 1 when a target
 * fails or any run fails (a run that fails is not retried; its row says why).
 *
 * Runs are interleaved: every round runs each server once, in a shuffled
 * order, so that a noisy neighbour on the machine hits all servers alike.
 *
 * Flags (bench/README.md lists them with their defaults): `--sections`,
 * `--servers`, `--workloads`, `--floods`, `--add`, and the sizes of every
 * workload and flood.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { prepare, type PreparedBatch, runOnce } from "./drive.ts";
import { Fixtures } from "./fixtures.ts";
import { runFlood } from "./flood.ts";
import { defaultFloods, type Flood } from "./floods.ts";
import { runHttpSection } from "./http.ts";
import {
  ATTACKS,
  type AttackSizes,
  FULL_SIZES,
  runAttackSection,
} from "./attacks.ts";
import { formatBytes, shuffled } from "./measure.ts";
import { withUsage } from "./usage.ts";
import type { CommandSpec } from "./process.ts";
import {
  exitCode,
  failures,
  judge,
  renderTable,
  renderVerdicts,
  type Results,
  type Samples,
  type Target,
} from "./report.ts";
import { SERVERS } from "./servers.ts";
import { type Batch, defaultWorkloads, type Workload } from "./workloads.ts";

/** The parts of the report `--sections` chooses from. */
export const SECTIONS = [
  "timing",
  "wire",
  "memory",
  "http",
  "attacks",
] as const;

/** The servers whose memory the floods measure (with any `--add`ed). */
const FLOOD_SERVERS = ["ours", "bundle"];

/** The start-up and ping promises, for our source build and for the bundle. */
function timingTargets(): Target[] {
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

/** Bytes on the wire per byte of file read: at most 1.3 for ours. */
function wireTargets(): Target[] {
  return [
    { workload: "read_wire", metric: "wire", numerator: "ours", max: 1.3 },
    { workload: "read_wire", metric: "wire", numerator: "bundle", max: 1.3 },
  ];
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
  for (const sdk of ["sdk-node", "sdk-deno"]) {
    list.push({ workload: "read_wire", metric: "wire", numerator: sdk });
  }
  return list;
}

/** Peak RSS under every flood, for every server the floods ran on. */
function memoryTargets(
  floods: readonly Flood[],
  servers: readonly string[],
  limitBytes: number,
): Target[] {
  return floods.flatMap((flood) =>
    servers.map((server): Target => ({
      workload: flood.key,
      metric: "memory",
      numerator: server,
      max: limitBytes,
    }))
  );
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

function only<T extends { key: string }>(
  items: readonly T[],
  keys: string[] | undefined,
  flag: string,
): T[] {
  const unknown = keys?.filter((key) =>
    !items.some((item) => item.key === key)
  );
  if (unknown !== undefined && unknown.length > 0) {
    throw new Error(
      `--${flag}: unknown ${unknown.join(", ")}; choose from ${
        items.map((item) => item.key).join(", ")
      }`,
    );
  }
  return items.filter((item) => !keys || keys.includes(item.key));
}

/** What `--help` prints. */
const USAGE = `deno task bench [--sections ${
  SECTIONS.join(",")
}] [--runs N] [--servers A,B] [--add "NAME=PROGRAM ARGS"] …

Runs the servers interleaved and prints medians, ratios and PASS or FAIL per
target; exits 1 when a target fails. bench/README.md ("Flags") lists every
flag with its default.`;

function main(args: string[]): Promise<number> {
  return withUsage("bench", args, USAGE, () => benchmark(args));
}

async function benchmark(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      sections: { type: "string" },
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
      floods: { type: "string" },
      "flood-reads": { type: "string" },
      "flood-read-bytes": { type: "string" },
      "flood-pause": { type: "string" },
      "flood-searches": { type: "string" },
      "flood-missing": { type: "string" },
      "flood-segments": { type: "string" },
      "flood-files": { type: "string" },
      "flood-timeout": { type: "string" },
      "rss-limit": { type: "string" },
      "rss-kill": { type: "string" },
      add: { type: "string", multiple: true },
      "http-sessions": { type: "string" },
      "http-calls": { type: "string" },
      "http-runs": { type: "string" },
      "http-timeout": { type: "string" },
      attacks: { type: "string" },
      "attack-hold": { type: "string" },
      "attack-setup": { type: "string" },
      "attack-kill": { type: "string" },
      "attack-args": { type: "string" },
      "attack-main": { type: "string" },
      "kept-sessions": { type: "string" },
      "kept-posts": { type: "string" },
      "log-sessions": { type: "string" },
      "replay-gets": { type: "string" },
      "idle-streams": { type: "string" },
      "init-posts": { type: "string" },
    },
  });
  const sections = list(values.sections) ?? [...SECTIONS];
  const unknownSection = sections.find((section) =>
    !(SECTIONS as readonly string[]).includes(section)
  );
  if (unknownSection !== undefined) {
    throw new Error(
      `--sections: unknown ${unknownSection}; choose from ${
        SECTIONS.join(", ")
      }`,
    );
  }
  const fixtures = new Fixtures();
  const workloads = defaultWorkloads({
    startupRuns: positive(values.runs, 15, "runs"),
    pings: positive(values.pings, 100_000, "pings"),
    pingRuns: positive(values["ping-runs"], 7, "ping-runs"),
    firstRuns: positive(values["first-runs"], 10, "first-runs"),
    ioRuns: positive(values["io-runs"], 3, "io-runs"),
    readFileCalls: positive(values.calls, 10_000, "calls"),
    searchCalls: positive(values.searches, 100, "searches"),
    listFiles: positive(values.files, 50_000, "files"),
    resourceReads: positive(values.reads, 1_000, "reads"),
    fixtures,
  });
  const floods = defaultFloods({
    reads: positive(values["flood-reads"], 2_000, "flood-reads"),
    readBytes: positive(
      values["flood-read-bytes"],
      1_000_000,
      "flood-read-bytes",
    ),
    pauseMs: positive(values["flood-pause"], 10, "flood-pause") * 1000,
    searches: positive(values["flood-searches"], 10_000, "flood-searches"),
    missing: positive(values["flood-missing"], 12_000, "flood-missing"),
    segments: positive(values["flood-segments"], 60, "flood-segments"),
    listFiles: positive(values["flood-files"], 100_000, "flood-files"),
    fixtures,
  });
  const floodLimits = {
    timeoutMs: positive(values["flood-timeout"], 120, "flood-timeout") * 1000,
    killBytes: positive(values["rss-kill"], 1024, "rss-kill") * 2 ** 20,
    sampleMs: 200,
  };
  const rssLimit = positive(values["rss-limit"], 300, "rss-limit") * 2 ** 20;
  const onlyServers = list(values.servers);

  const stdioSections = sections.some((section) =>
    section !== "http" && section !== "attacks"
  );
  const ready: {
    name: string;
    spec: CommandSpec;
    workloads?: readonly string[];
  }[] = [];
  const added: string[] = [];
  const addedSpecs: { name: string; spec: CommandSpec }[] = [];
  const legend: string[] = [];
  for (const server of stdioSections ? SERVERS : []) {
    if (onlyServers && !onlyServers.includes(server.name)) continue;
    const spec = await server.prepare();
    if (typeof spec === "string") {
      legend.push(`  ${server.name.padEnd(10)} skipped: ${spec}`);
      continue;
    }
    legend.push(`  ${server.name.padEnd(10)} ${server.description}`);
    ready.push({ name: server.name, spec, workloads: server.workloads });
  }
  for (const extra of values.add ?? []) {
    // The name ends at the first "=": the command's own arguments may hold
    // more (--v8-flags=…).
    const eq = extra.indexOf("=");
    const name = eq < 0 ? "" : extra.slice(0, eq).trim();
    const command = extra.slice(eq + 1).split(/ +/).filter((part) => part);
    if (!name || command.length === 0) {
      throw new Error(`--add takes "name=program arg ...", not "${extra}"`);
    }
    const spec = {
      command: command[0],
      args: command.slice(1),
      cwd: Deno.cwd(),
    };
    added.push(name);
    addedSpecs.push({ name, spec });
    if (!stdioSections) continue;
    legend.push(`  ${name.padEnd(10)} ${command.join(" ")}`);
    ready.push({ name, spec });
  }
  if (stdioSections) {
    console.log("servers");
    console.log(legend.join("\n"));
    console.log("");
  }

  const results: Results = new Map();
  const selected = only(workloads, list(values.workloads), "workloads")
    .filter((workload) => sections.includes(workload.section ?? "timing"));
  const selectedFloods = sections.includes("memory")
    ? only(floods, list(values.floods), "floods")
    : [];
  const floodServers = ready.filter((server) =>
    FLOOD_SERVERS.includes(server.name) || added.includes(server.name)
  );
  try {
    for (const workload of selected) {
      await runWorkload(workload, ready, results);
    }
    for (const flood of selectedFloods) {
      await runFloodOn(flood, floodServers, floodLimits, results);
    }
  } finally {
    await fixtures.remove();
  }

  const http = sections.includes("http")
    ? await runHttpSection({
      sessions: positive(values["http-sessions"], 50, "http-sessions"),
      calls: positive(values["http-calls"], 1_000, "http-calls"),
      runs: positive(values["http-runs"], 3, "http-runs"),
      timeoutMs: positive(values["http-timeout"], 120, "http-timeout") * 1000,
      servers: onlyServers,
      extra: addedSpecs,
    }, progress)
    : undefined;

  const attacks = sections.includes("attacks")
    ? await runAttackSection(
      only(ATTACKS, list(values.attacks), "attacks"),
      {
        sizes: attackSizes(values),
        setupMs: positive(values["attack-setup"], 120, "attack-setup") * 1000,
        holdMs: positive(values["attack-hold"], 10, "attack-hold") * 1000,
        killBytes: positive(values["attack-kill"], 2048, "attack-kill") *
          2 ** 20,
        extraArgs: values["attack-args"]?.split(/ +/).filter(Boolean),
        main: values["attack-main"],
      },
      progress,
    )
    : undefined;

  const names = ready.map((server) => server.name);
  if (stdioSections) console.log(renderTable(selected, names, results));
  const verdicts = judge([
    ...timingTargets(),
    ...wireTargets(),
    ...memoryTargets(
      selectedFloods,
      floodServers.map((server) => server.name),
      rssLimit,
    ),
  ], results).filter((verdict) => verdict.status !== "SKIP");
  if (selectedFloods.length > 0) {
    console.log(
      renderTable(
        selectedFloods.map((flood) => ({
          key: flood.key,
          label: `memory: ${flood.label}`,
        })),
        names,
        results,
      ),
    );
  }
  if (verdicts.length > 0) console.log(renderVerdicts(verdicts));
  const ratios = judge(sdkRatios(), results).filter((verdict) =>
    verdict.status !== "SKIP"
  );
  if (ratios.length > 0) {
    console.log("");
    console.log(renderVerdicts(ratios, "SDK measures (no target)"));
  }
  // Start-up through the npm package's launcher (Node, then Deno) against
  // `deno run` of the same bundle, interleaved like every start-up run.
  const launcher = judge([{
    workload: "startup",
    metric: "time",
    numerator: "npm",
    denominator: "bundle",
  }], results).filter((verdict) => verdict.status !== "SKIP");
  if (launcher.length > 0) {
    console.log("");
    console.log(renderVerdicts(launcher, "npm launcher (no target)"));
  }
  const failed = failures(results);
  if (failed.length > 0) {
    console.log("\nfailed runs");
    for (const line of failed) console.log(`  ${line}`);
  }
  if (http !== undefined) console.log(`\n${http.report}`);
  if (attacks !== undefined) console.log(`\n${attacks.report}`);
  console.log(
    "\n(2 shared cores: numbers are noisy; compare ratios from one run.)",
  );
  const code = exitCode([...verdicts, ...ratios], results);
  return code !== 0 ? code : http?.failed || attacks?.failed ? 1 : 0;
}

/** The attacks' sizes: issue 26's, or as the flags say. */
function attackSizes(
  values: Record<string, string | boolean | string[] | undefined>,
): AttackSizes {
  const flag = (name: string, fallback: number) =>
    positive(values[name] as string | undefined, fallback, name);
  return {
    ...FULL_SIZES,
    keptSessions: flag("kept-sessions", FULL_SIZES.keptSessions),
    keptPosts: flag("kept-posts", FULL_SIZES.keptPosts),
    logSessions: flag("log-sessions", FULL_SIZES.logSessions),
    replayGets: flag("replay-gets", FULL_SIZES.replayGets),
    idleStreams: flag("idle-streams", FULL_SIZES.idleStreams),
    initPosts: flag("init-posts", FULL_SIZES.initPosts),
  };
}

function progress(text: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(text));
}

async function runWorkload(
  workload: Workload,
  servers: {
    name: string;
    spec: CommandSpec;
    workloads?: readonly string[];
  }[],
  results: Results,
): Promise<void> {
  progress(`bench: ${workload.label} `);
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
      !workload.exclude?.includes(server.name) &&
      (!server.workloads || server.workloads.includes(workload.key))
    )
    .map((server) => ({
      name: server.name,
      spec: {
        ...server.spec,
        args: [...server.spec.args, ...built.args ?? []],
      },
    }));
  const byServer = new Map<string, Samples>();
  results.set(workload.key, byServer);
  for (const server of eligible) {
    byServer.set(server.name, { runs: [], planned: workload.runs });
  }
  for (let round = 0; round < workload.runs; round++) {
    for (const server of shuffled(eligible)) {
      const samples = byServer.get(server.name)!;
      // A server that failed once is not run again: its row says why.
      if (samples.failure !== undefined) continue;
      try {
        samples.runs.push(
          await runOnce(server.spec, workload, measured, handshake),
        );
      } catch (error) {
        samples.failure = (error as Error).message;
        console.error(
          `\nbench: ${server.name} failed ${workload.key}: ${samples.failure}`,
        );
      }
    }
    progress(".");
  }
  progress("\n");
}

async function runFloodOn(
  flood: Flood,
  servers: { name: string; spec: CommandSpec }[],
  limits: Parameters<typeof runFlood>[2],
  results: Results,
): Promise<void> {
  progress(`bench: memory: ${flood.label} `);
  const built = await flood.build();
  const byServer = new Map<string, Samples>();
  results.set(flood.key, byServer);
  for (const server of shuffled(servers)) {
    const outcome = await runFlood(
      { ...server.spec, args: [...server.spec.args, ...built.args] },
      built.plan(),
      limits,
    );
    const notes = [outcome.note];
    if (outcome.rssAfter !== undefined) {
      notes.push(`RSS at the end ${formatBytes(outcome.rssAfter)}`);
    }
    const samples: Samples = {
      runs: [],
      planned: 1,
      note: notes.filter(Boolean).join("; "),
    };
    if (outcome.failure === undefined) {
      samples.runs.push(outcome.result);
    } else {
      samples.failure = outcome.failure;
      samples.partial = outcome.result;
      console.error(
        `\nbench: ${server.name} failed ${flood.key}: ${outcome.failure}`,
      );
    }
    byServer.set(server.name, samples);
    progress(".");
  }
  progress("\n");
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
