/**
 * The bench's report: a table of medians per workload and server with the
 * number of samples behind each, the targets marked PASS or FAIL, values
 * reported without a target (marked INFO), and the exit code.
 *
 * A run that failed is never silently dropped: its row says how many of the
 * planned samples were taken and why the rest were not, every target that
 * needs it fails, and the bench exits non-zero.
 *
 * @module
 */

import { formatBytes, formatMs, median } from "./measure.ts";

/** What one run measured. */
export interface RunResult {
  /** Milliseconds from the clock's start to the last expected response. */
  ms: number;
  /** Peak RSS in bytes, read before stdin was closed; undefined if unknown. */
  rss: number | undefined;
  /** Bytes of the measured responses on stdout, line ends included. */
  wireBytes?: number;
  /** Bytes of the content those responses carry (say, the file read). */
  payloadBytes?: number;
}

/** The runs of one (workload, server) pair, and why any planned run is missing. */
export interface Samples {
  /** The runs that completed and passed their checks, in order. */
  runs: RunResult[];
  /** How many runs were planned. */
  planned: number;
  /**
   * Why the pair failed (the first failed run's reason; no later run was
   * tried), or undefined when every planned run completed.
   */
  failure?: string;
  /**
   * A value measured by the failed run itself (say, the peak RSS at which
   * it was stopped), shown instead of a median of nothing.
   */
  partial?: RunResult;
  /** What else the runs found, printed after the row (say, files listed). */
  note?: string;
}

/** Every (workload, server) pair: `results.get(workload).get(server)`. */
export type Results = Map<string, Map<string, Samples>>;

/**
 * A measured quantity: time, peak memory, or `wire`: response bytes sent
 * per byte of content carried.
 */
export type Metric = "time" | "memory" | "wire";

/**
 * What the project promises of a measure: with a `denominator`, the ratio
 * of two servers' medians ("ours ≤ 1.3 × floor"); without one, the
 * numerator's own median ("peak RSS ≤ 300 MiB"). With neither `max` nor
 * `min` it is only reported.
 */
export interface Target {
  /** The workload it is measured on. */
  workload: string;
  /** What is measured. */
  metric: Metric;
  /** The server measured (the numerator of a ratio). */
  numerator: string;
  /** The server it is compared with; absent for an absolute bound. */
  denominator?: string;
  /** The value must be at most this (bytes for an absolute memory bound). */
  max?: number;
  /** The value must be at least this. */
  min?: number;
}

/** One evaluated target. */
export interface Verdict {
  /** The target. */
  target: Target;
  /** The measured ratio or value, or undefined when it could not be measured. */
  value: number | undefined;
  /**
   * PASS or FAIL against the bound; INFO for a value without a bound; SKIP
   * when a server it needs was not run at all (not selected, or not
   * available here). A server that ran and failed makes it FAIL, bound or
   * not.
   */
  status: "PASS" | "FAIL" | "INFO" | "SKIP";
  /** Why it failed or was skipped, when the value does not say. */
  note?: string;
}

function metricValue(run: RunResult, metric: Metric): number | undefined {
  const value = rawValue(run, metric);
  return value !== undefined && Number.isFinite(value) ? value : undefined;
}

function rawValue(run: RunResult, metric: Metric): number | undefined {
  switch (metric) {
    case "time":
      return run.ms;
    case "memory":
      return run.rss;
    case "wire":
      return run.wireBytes !== undefined && run.payloadBytes
        ? run.wireBytes / run.payloadBytes
        : undefined;
  }
}

/** The median of a metric over the runs of one pair, or undefined. */
export function medianOf(
  runs: readonly RunResult[] | undefined,
  metric: Metric,
): number | undefined {
  if (runs === undefined) return undefined;
  const values = runs
    .map((run) => metricValue(run, metric))
    .filter((value): value is number => value !== undefined);
  return values.length === 0 ? undefined : median(values);
}

/**
 * The value of a metric for one pair: the median of its completed runs, or
 * what a failed run measured when none completed.
 */
export function valueOf(
  samples: Samples | undefined,
  metric: Metric,
): number | undefined {
  if (samples === undefined) return undefined;
  return medianOf(samples.runs, metric) ??
    (samples.partial ? metricValue(samples.partial, metric) : undefined);
}

/**
 * The sample count of a pair as the table prints it: `3`, or `1 of 3` when
 * runs are missing.
 */
export function sampleCount(samples: Samples): string {
  const taken = samples.runs.length;
  return taken === samples.planned
    ? String(taken)
    : `${taken} of ${samples.planned}`;
}

function pad(text: string, width: number, right = false): string {
  return right ? text.padStart(width) : text.padEnd(width);
}

function formatValue(metric: Metric, value: number | undefined): string {
  if (value === undefined) return "-";
  switch (metric) {
    case "time":
      return formatMs(value);
    case "memory":
      return formatBytes(value);
    case "wire":
      return value.toFixed(2);
  }
}

/**
 * Render a table per workload: for every server that ran it, the number of
 * samples, the median time with min..max, the median peak RSS, the wire
 * ratio where measured, and why runs are missing.
 */
export function renderTable(
  workloads: readonly { key: string; label: string }[],
  servers: readonly string[],
  results: Results,
): string {
  const out: string[] = [];
  for (const workload of workloads) {
    const byServer = results.get(workload.key);
    if (byServer === undefined || byServer.size === 0) continue;
    const rows = servers
      .map((server) => [server, byServer.get(server)] as const)
      .filter((row): row is [string, Samples] => row[1] !== undefined);
    const wire = rows.some(([, samples]) =>
      valueOf(samples, "wire") !== undefined
    );
    out.push(`${workload.label} (medians of n samples)`);
    out.push(
      `  ${pad("server", 10)} ${pad("n", 7, true)} ${pad("time", 10, true)} ${
        pad("min..max", 22, true)
      } ${pad("peak RSS", 11, true)}${
        wire ? ` ${pad("out/in", 7, true)}` : ""
      }`,
    );
    for (const [server, samples] of rows) {
      const shown = samples.runs.length > 0
        ? samples.runs
        : samples.partial
        ? [samples.partial]
        : [];
      const times = shown.map((run) => run.ms).filter(Number.isFinite);
      const range = times.length === 0
        ? "-"
        : `${formatMs(Math.min(...times))}..${formatMs(Math.max(...times))}`;
      let row = `  ${pad(server, 10)} ${pad(sampleCount(samples), 7, true)} ${
        pad(formatValue("time", valueOf(samples, "time")), 10, true)
      } ${pad(range, 22, true)} ${
        pad(formatValue("memory", valueOf(samples, "memory")), 11, true)
      }`;
      if (wire) {
        row += ` ${
          pad(formatValue("wire", valueOf(samples, "wire")), 7, true)
        }`;
      }
      if (samples.note !== undefined) row += `  ${samples.note}`;
      if (samples.failure !== undefined) {
        row += `  FAILED: ${firstLine(samples.failure)}`;
      }
      out.push(row);
    }
    out.push("");
  }
  return out.join("\n");
}

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0];
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}

/** Evaluate every target against the results. */
export function judge(
  targets: readonly Target[],
  results: Results,
): Verdict[] {
  return targets.map((target): Verdict => {
    const byServer = results.get(target.workload);
    const sides = [target.numerator, target.denominator]
      .filter((server): server is string => server !== undefined);
    for (const server of sides) {
      const samples = byServer?.get(server);
      if (samples === undefined) {
        return {
          target,
          value: undefined,
          status: "SKIP",
          note: `${server} did not run`,
        };
      }
    }
    const a = valueOf(byServer!.get(target.numerator), target.metric);
    const b = target.denominator === undefined
      ? 1
      : valueOf(byServer!.get(target.denominator), target.metric);
    const value = a === undefined || b === undefined || b === 0
      ? undefined
      : a / b;
    const failed = sides.find((server) =>
      byServer!.get(server)!.failure !== undefined
    );
    if (failed !== undefined) {
      return {
        target,
        value,
        status: "FAIL",
        note: `${failed} failed: ${firstLine(byServer!.get(failed)!.failure!)}`,
      };
    }
    if (value === undefined) {
      return {
        target,
        value,
        status: "FAIL",
        note: `no ${target.metric} measured`,
      };
    }
    if (target.max === undefined && target.min === undefined) {
      return { target, value, status: "INFO" };
    }
    const ok = (target.max === undefined || value <= target.max) &&
      (target.min === undefined || value >= target.min);
    return { target, value, status: ok ? "PASS" : "FAIL" };
  });
}

function formatVerdictValue(target: Target, value: number | undefined) {
  if (value === undefined) return "-";
  return target.denominator === undefined
    ? formatValue(target.metric, value)
    : value.toFixed(2);
}

/** Render the verdicts under `title`, one line per target. */
export function renderVerdicts(
  verdicts: readonly Verdict[],
  title = "targets",
): string {
  const out = [title];
  for (const { target, value, status, note } of verdicts) {
    const name = target.denominator === undefined
      ? `${target.workload} ${target.metric}: ${target.numerator}`
      : `${target.workload} ${target.metric}: ${target.numerator}/${target.denominator}`;
    const shown = formatVerdictValue(target, value);
    const tail = note === undefined ? "" : `  (${note})`;
    if (target.max === undefined && target.min === undefined) {
      out.push(
        `  ${pad(name, 40)} ${pad(shown, 10, true)}  ${status}${tail}`,
      );
      continue;
    }
    const bound = target.max !== undefined
      ? `<= ${formatVerdictValue(target, target.max)}`
      : `>= ${formatVerdictValue(target, target.min)}`;
    out.push(
      `  ${pad(name, 40)} ${pad(shown, 10, true)}  (target ${
        pad(bound, 12)
      })  ${status}${tail}`,
    );
  }
  return out.join("\n");
}

/**
 * Every pair that failed, as `workload server: reason` lines, for the end of
 * the report (a failure without a target would otherwise pass unnoticed).
 */
export function failures(results: Results): string[] {
  const out: string[] = [];
  for (const [workload, byServer] of results) {
    for (const [server, samples] of byServer) {
      if (samples.failure !== undefined) {
        out.push(`${workload} ${server}: ${firstLine(samples.failure)}`);
      }
    }
  }
  return out;
}

/**
 * The bench's exit code: 1 when a target failed or any run failed (its
 * numbers are missing, so the report cannot stand), 0 otherwise. Targets
 * skipped because a server was not run do not fail the bench.
 */
export function exitCode(
  verdicts: readonly Verdict[],
  results: Results,
): number {
  return verdicts.some((verdict) => verdict.status === "FAIL") ||
      failures(results).length > 0
    ? 1
    : 0;
}
