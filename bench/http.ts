/**
 * The bench's `http` section: shipcode-mcp over Streamable HTTP
 * (`main.ts --http 127.0.0.1:0`) against the official SDK's
 * `StreamableHTTPServerTransport` (`sdk_server.mjs --http 0`, on Node and
 * on Deno), under the same load: `sessions` concurrent sessions, each
 * sending `calls` `tools/call` of `read_file` on a small file, one after
 * another (`http_load.ts`). Runs are interleaved: every round starts each
 * server afresh, in a shuffled order.
 *
 * Reported per server: throughput (calls per second), p50 and p99 call
 * latency, and peak RSS (`VmHWM`), medians over the runs. Targets, against
 * every SDK server that ran: ours ≥ 3 × its throughput, and ours' p99 under
 * its p99. The same load of `ping`s follows on the same server, reported
 * without a target: what the transport and dispatch cost without a tool.
 *
 * Traffic goes to 127.0.0.1 only; every run is bounded by `timeoutMs`.
 *
 * @module
 */

import { DENO_RUN_FLAGS } from "../cli/run_command.ts";
import { startListening } from "../tests/process.ts";
import { PROJECT_ROOT } from "../tests/server_command.ts";
import { type LoadResult, runLoad } from "./http_load.ts";
import {
  cpuTimeMs,
  formatBytes,
  median,
  peakRss,
  shuffled,
} from "./measure.ts";
import type { CommandSpec } from "./process.ts";
import { SDK_VERSION, sdkOnDeno, sdkOnNode } from "./servers.ts";

/** The sizes and bounds of the section. */
export interface HttpOptions {
  /** Concurrent sessions. */
  sessions: number;
  /** `tools/call`s per session. */
  calls: number;
  /** Runs of each server (interleaved rounds). */
  runs: number;
  /** Milliseconds one run may take, start-up included. */
  timeoutMs: number;
  /** Only these servers, when given. */
  servers?: string[];
  /**
   * More servers (`--add`, say ours from another checkout, for an A/B
   * comparison in the same run): each command gets `--root DIR --http
   * 127.0.0.1:0` appended, and must print its URL as ours does.
   */
  extra?: { name: string; spec: CommandSpec }[];
}

/** How the section ended: what to print and whether a target failed. */
export interface HttpOutcome {
  /** The table and the verdicts. */
  report: string;
  /** True when a target failed or a run failed. */
  failed: boolean;
}

/** The content of the file every call reads: a few short lines. */
export const SMALL_FILE = Array.from(
  { length: 8 },
  (_, i) => `line ${i + 1}: shipcode-mcp bench`,
).join("\n") + "\n";

/** How much faster ours must serve than each SDK server. */
export const MIN_THROUGHPUT_RATIO = 3;

interface HttpServer {
  name: string;
  description: string;
  /** The command for `root`, or why it cannot run here. */
  prepare(root: string): Promise<CommandSpec | string>;
}

const HTTP_SERVERS: readonly HttpServer[] = [
  {
    name: "ours",
    description:
      "shipcode-mcp: deno run <DENO_RUN_FLAGS> --allow-net=127.0.0.1 main.ts --http 127.0.0.1:0",
    prepare: (root) =>
      Promise.resolve({
        command: Deno.execPath(),
        args: [
          "run",
          "--allow-net=127.0.0.1",
          ...DENO_RUN_FLAGS,
          `${PROJECT_ROOT}main.ts`,
          "--root",
          root,
          "--http",
          "127.0.0.1:0",
        ],
        cwd: PROJECT_ROOT,
      }),
  },
  {
    name: "sdk-node",
    description:
      `official SDK ${SDK_VERSION} (McpServer + StreamableHTTPServerTransport per session, node:http) on Node`,
    prepare: (root) => sdkOnNode(["--root", root, "--http", "0"]),
  },
  {
    name: "sdk-deno",
    description:
      `official SDK ${SDK_VERSION} (McpServer + StreamableHTTPServerTransport per session, node:http) on Deno`,
    prepare: (root) =>
      Promise.resolve(
        sdkOnDeno(["--root", root, "--http", "0"], ["--allow-net=127.0.0.1"]),
      ),
  },
];

/**
 * The SDK servers ours is held against, with the throughput ratio each must
 * reach. The SDK is a Node package and runs on Node wherever it is deployed,
 * so the issue's 3× is held against that; the SDK run on Deno (a faster
 * runtime for it) is a second, stricter reference whose ratio is printed
 * and whose p99 ours must still beat.
 */
const SDK_TARGETS: ReadonlyMap<string, number | undefined> = new Map([
  ["sdk-node", MIN_THROUGHPUT_RATIO],
  ["sdk-deno", undefined],
]);

interface Measured extends LoadResult {
  /** Peak RSS after the `tools/call` load. */
  rss: number | undefined;
  /**
   * Calls per second of the server's own CPU time during the `tools/call`
   * load: what one core of it can serve, whatever the load client (on the
   * same cores) takes.
   */
  capacity: number | undefined;
  /** The same load of `ping`s, sent next to the same server. */
  pings: LoadResult;
}

/** Start `spec`, wait for the URL it prints, run the load, stop it. */
async function runOnce(
  spec: CommandSpec,
  options: HttpOptions,
): Promise<Measured> {
  const server = await startListening(spec, options.timeoutMs);
  try {
    const cpuBefore = await cpuTimeMs(server.pid);
    const result = await runLoad({
      url: server.url,
      sessions: options.sessions,
      callsPerSession: options.calls,
      tool: { name: "read_file", arguments: { path: "small.txt" } },
      check: (result) =>
        JSON.stringify(result.content).includes("shipcode-mcp bench")
          ? undefined
          : `not the file's text: ${JSON.stringify(result.content)}`,
      timeoutMs: options.timeoutMs,
    });
    const cpuAfter = await cpuTimeMs(server.pid);
    const cpu = cpuBefore !== undefined && cpuAfter !== undefined
      ? cpuAfter - cpuBefore
      : undefined;
    const capacity = cpu !== undefined && cpu > 0
      ? (options.sessions * options.calls) / (cpu / 1000)
      : undefined;
    const rss = await peakRss(server.pid);
    // The transport and dispatch alone, for reference: no tool runs.
    const pings = await runLoad({
      url: server.url,
      sessions: options.sessions,
      callsPerSession: options.calls,
      check: () => undefined,
      timeoutMs: options.timeoutMs,
    });
    return { ...result, rss, capacity, pings };
  } finally {
    await server.stop();
  }
}

interface Row {
  name: string;
  runs: Measured[];
  failure?: string;
}

function medianOf(runs: Measured[], pick: (run: Measured) => number) {
  const values = runs.map(pick).filter(Number.isFinite);
  return values.length === 0 ? undefined : median(values);
}

const ms = (value: number | undefined) =>
  value === undefined ? "-" : `${value.toFixed(2)} ms`;

/** Run the section and render its table and verdicts. */
export async function runHttpSection(
  options: HttpOptions,
  progress: (text: string) => void,
): Promise<HttpOutcome> {
  const root = await Deno.makeTempDir({ prefix: "shipcode_http_bench_" });
  await Deno.writeTextFile(`${root}/small.txt`, SMALL_FILE);
  const legend: string[] = [];
  const ready: { name: string; spec: CommandSpec; row: Row }[] = [];
  try {
    for (const server of HTTP_SERVERS) {
      if (options.servers && !options.servers.includes(server.name)) continue;
      const spec = await server.prepare(root);
      if (typeof spec === "string") {
        legend.push(`  ${server.name.padEnd(10)} skipped: ${spec}`);
        continue;
      }
      legend.push(`  ${server.name.padEnd(10)} ${server.description}`);
      ready.push({
        name: server.name,
        spec,
        row: { name: server.name, runs: [] },
      });
    }
    for (const { name, spec } of options.extra ?? []) {
      legend.push(
        `  ${name.padEnd(10)} ${[spec.command, ...spec.args].join(" ")}`,
      );
      ready.push({
        name,
        spec: {
          ...spec,
          args: [...spec.args, "--root", root, "--http", "127.0.0.1:0"],
        },
        row: { name, runs: [] },
      });
    }
    progress(
      `bench: http: ${options.sessions} sessions × ${options.calls} tools/call `,
    );
    for (let round = 0; round < options.runs; round++) {
      for (const server of shuffled(ready)) {
        if (server.row.failure !== undefined) continue;
        try {
          server.row.runs.push(await runOnce(server.spec, options));
        } catch (error) {
          server.row.failure = (error as Error).message.trim();
          console.error(
            `\nbench: ${server.name} failed the http load: ${server.row.failure}`,
          );
        }
      }
      progress(".");
    }
    progress("\n");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
  return render(options, legend, ready.map((server) => server.row));
}

/** The table, the verdicts and whether any failed. */
export function render(
  options: Pick<HttpOptions, "sessions" | "calls" | "runs">,
  legend: string[],
  rows: Row[],
): HttpOutcome {
  const lines = [
    `http: ${options.sessions} sessions × ${options.calls} tools/call read_file (a ${SMALL_FILE.length}-byte file), ${options.runs} interleaved runs; medians`,
    ...legend,
    "",
    `  ${"server".padEnd(10)}${"n".padStart(8)}${"calls/s".padStart(10)}${
      "p50".padStart(11)
    }${"p99".padStart(11)}${"peak RSS".padStart(11)}${
      "calls/CPU-s".padStart(13)
    }`,
  ];
  let failed = false;
  for (const row of rows) {
    const n = row.runs.length === options.runs
      ? String(row.runs.length)
      : `${row.runs.length} of ${options.runs}`;
    const throughput = medianOf(row.runs, (run) => run.throughput);
    const rss = medianOf(row.runs, (run) => run.rss ?? NaN);
    const capacity = medianOf(row.runs, (run) => run.capacity ?? NaN);
    lines.push(
      `  ${row.name.padEnd(10)}${n.padStart(8)}${
        (throughput === undefined ? "-" : Math.round(throughput).toString())
          .padStart(10)
      }${ms(medianOf(row.runs, (run) => run.p50)).padStart(11)}${
        ms(medianOf(row.runs, (run) => run.p99)).padStart(11)
      }${(rss === undefined ? "-" : formatBytes(rss)).padStart(11)}${
        (capacity === undefined ? "-" : Math.round(capacity).toString())
          .padStart(13)
      }${row.failure === undefined ? "" : `  FAILED: ${row.failure}`}`,
    );
    if (row.failure !== undefined) failed = true;
  }
  lines.push(
    "",
    `  the same load of pings, for reference (no tool runs; no target)`,
  );
  for (const row of rows) {
    const throughput = medianOf(row.runs, (run) => run.pings.throughput);
    lines.push(
      `  ${row.name.padEnd(10)}${String(row.runs.length).padStart(8)}${
        (throughput === undefined ? "-" : Math.round(throughput).toString())
          .padStart(10)
      }${ms(medianOf(row.runs, (run) => run.pings.p50)).padStart(11)}${
        ms(medianOf(row.runs, (run) => run.pings.p99)).padStart(11)
      }`,
    );
  }
  const ours = rows.find((row) => row.name === "ours");
  const verdicts: string[] = [];
  for (const sdk of rows.filter((row) => SDK_TARGETS.has(row.name))) {
    if (ours === undefined) break;
    const target = SDK_TARGETS.get(sdk.name);
    const ourRate = medianOf(ours.runs, (run) => run.throughput);
    const sdkRate = medianOf(sdk.runs, (run) => run.throughput);
    const ratio = ourRate !== undefined && sdkRate !== undefined
      ? ourRate / sdkRate
      : undefined;
    const ran = ratio !== undefined && ours.failure === undefined &&
      sdk.failure === undefined;
    const rateOk = ran && (target === undefined || ratio >= target);
    verdicts.push(
      `  ${
        rateOk ? (target === undefined ? "INFO" : "PASS") : "FAIL"
      }  throughput ours / ${sdk.name} ${
        ratio === undefined ? "-" : `${ratio.toFixed(2)}×`
      } (${target === undefined ? "no target" : `target ≥ ${target}×`})`,
    );
    const ourP99 = medianOf(ours.runs, (run) => run.p99);
    const sdkP99 = medianOf(sdk.runs, (run) => run.p99);
    const p99Ok = ourP99 !== undefined && sdkP99 !== undefined &&
      ourP99 < sdkP99 && ours.failure === undefined &&
      sdk.failure === undefined;
    verdicts.push(
      `  ${p99Ok ? "PASS" : "FAIL"}  p99 ours ${ms(ourP99)} < ${sdk.name} ${
        ms(sdkP99)
      }`,
    );
    if (!rateOk || !p99Ok) failed = true;
  }
  if (verdicts.length > 0) lines.push("", "http targets", ...verdicts);
  return { report: lines.join("\n"), failed };
}
