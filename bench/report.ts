/**
 * The bench's report: a table of medians per workload and server, the
 * targets as ratios marked PASS or FAIL, and ratios reported without a
 * target (marked INFO).
 *
 * @module
 */

import { formatBytes, formatMs, median } from "./measure.ts";
import type { RunResult } from "./drive.ts";

/** A measured quantity of a workload. */
export type Metric = "time" | "memory";

/**
 * A ratio the project promises, such as "ours ≤ 1.3 × floor", or, with
 * neither `max` nor `min`, one it only reports.
 */
export interface Target {
  /** The workload it is measured on. */
  workload: string;
  /** Time or peak memory. */
  metric: Metric;
  /** The server in the numerator. */
  numerator: string;
  /** The server in the denominator. */
  denominator: string;
  /** The ratio must be at most this. */
  max?: number;
  /** The ratio must be at least this. */
  min?: number;
}

/** All runs of every (workload, server) pair: `results.get(workload).get(server)`. */
export type Results = Map<string, Map<string, RunResult[]>>;

/** The median of a metric over the runs of one pair, or undefined. */
export function medianOf(
  runs: RunResult[] | undefined,
  metric: Metric,
): number | undefined {
  if (runs === undefined || runs.length === 0) return undefined;
  const values = runs
    .map((run) => metric === "time" ? run.ms : run.rss)
    .filter((value): value is number => value !== undefined);
  return values.length === 0 ? undefined : median(values);
}

function pad(text: string, width: number, right = false): string {
  return right ? text.padStart(width) : text.padEnd(width);
}

/** Render the table of medians (with min–max of times) for every workload. */
export function renderTable(
  workloads: { key: string; label: string; runs: number }[],
  servers: string[],
  results: Results,
): string {
  const out: string[] = [];
  for (const workload of workloads) {
    const byServer = results.get(workload.key);
    if (byServer === undefined || byServer.size === 0) continue;
    out.push(`${workload.label} (median of ${workload.runs})`);
    out.push(
      `  ${pad("server", 10)} ${pad("time", 10, true)} ${
        pad("min..max", 22, true)
      } ${pad("peak RSS", 11, true)}`,
    );
    for (const server of servers) {
      const runs = byServer.get(server);
      if (runs === undefined || runs.length === 0) continue;
      const times = runs.map((run) => run.ms);
      const range = `${formatMs(Math.min(...times))}..${
        formatMs(Math.max(...times))
      }`;
      out.push(
        `  ${pad(server, 10)} ${
          pad(formatMs(medianOf(runs, "time")!), 10, true)
        } ${pad(range, 22, true)} ${
          pad(formatBytes(medianOf(runs, "memory") ?? NaN), 11, true)
        }`,
      );
    }
    out.push("");
  }
  return out.join("\n");
}

/** One evaluated target. */
export interface Verdict {
  /** The target. */
  target: Target;
  /** The measured ratio, or undefined when a side did not run. */
  ratio: number | undefined;
  /**
   * PASS, FAIL, INFO for a ratio without a bound, or SKIP when it could not
   * be measured.
   */
  status: "PASS" | "FAIL" | "INFO" | "SKIP";
}

/** Evaluate every target against the results. */
export function judge(targets: Target[], results: Results): Verdict[] {
  return targets.map((target) => {
    const byServer = results.get(target.workload);
    const a = medianOf(byServer?.get(target.numerator), target.metric);
    const b = medianOf(byServer?.get(target.denominator), target.metric);
    if (a === undefined || b === undefined || b === 0) {
      return { target, ratio: undefined, status: "SKIP" };
    }
    const ratio = a / b;
    if (target.max === undefined && target.min === undefined) {
      return { target, ratio, status: "INFO" };
    }
    const ok = (target.max === undefined || ratio <= target.max) &&
      (target.min === undefined || ratio >= target.min);
    return { target, ratio, status: ok ? "PASS" : "FAIL" };
  });
}

/** Render the verdicts under `title`, one line per target. */
export function renderVerdicts(
  verdicts: Verdict[],
  title = "targets",
): string {
  const out = [title];
  for (const { target, ratio, status } of verdicts) {
    const name =
      `${target.workload} ${target.metric}: ${target.numerator}/${target.denominator}`;
    const value = ratio === undefined ? "-" : ratio.toFixed(2);
    if (status === "INFO") {
      out.push(`  ${pad(name, 36)} ${pad(value, 7, true)}`);
      continue;
    }
    const bound = target.max !== undefined
      ? `<= ${target.max}`
      : `>= ${target.min}`;
    out.push(
      `  ${pad(name, 36)} ${pad(value, 7, true)}  (target ${
        pad(bound, 7)
      })  ${status}`,
    );
  }
  return out.join("\n");
}
