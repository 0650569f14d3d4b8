/**
 * Workloads: what is sent to every server and what must come back. Adding a
 * workload is one entry in {@linkcode defaultWorkloads}.
 *
 * @module
 */

/** A request id as the bench writes it. */
export type Id = number | string;

/** The lines of one workload run, and the ids whose responses must come back. */
export interface Batch {
  /** Message lines, without line ends. */
  lines: string[];
  /** The id of every request among `lines`; each must get one response. */
  ids: Id[];
}

/** One thing the bench measures on every server that supports it. */
export interface Workload {
  /** Short name used in targets and `--workloads`. */
  key: string;
  /** What it measures, for the table. */
  label: string;
  /**
   * Where the clock starts: at `spawn` (startup: the time to the last
   * response includes starting the process), or at the first write of the
   * batch after the handshake has been answered (`send`).
   */
  clock: "spawn" | "send";
  /** How many times each server runs it; the table shows medians. */
  runs: number;
  /** Sent and answered before the clock starts (`send` clock only). */
  handshake?: Batch;
  /** The measured lines; built once per bench run. */
  build(): Batch;
  /** Check one response (parsed); return what is wrong, or undefined. */
  check?(response: Record<string, unknown>): string | undefined;
  /** Only these servers run it (default: all). */
  servers?: readonly string[];
  /** Stdin is written in slices of this many bytes (default 64 KiB). */
  chunkBytes?: number;
}

/** The workload sizes the command line sets. */
export interface WorkloadOptions {
  /** Runs of the startup workload. */
  startupRuns: number;
  /** Pings in the ping workload. */
  pings: number;
  /** Runs of the ping workload. */
  pingRuns: number;
}

/** The initialize request every bench client sends (id 0). */
export const INITIALIZE_LINE = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "shipcode-bench", version: "1.0.0" },
  },
});

/** initialize, then notifications/initialized: what a real client sends first. */
export const HANDSHAKE: Batch = {
  lines: [
    INITIALIZE_LINE,
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  ],
  ids: [0],
};

function emptyResult(response: Record<string, unknown>): string | undefined {
  const result = response.result;
  return typeof result === "object" && result !== null &&
      Object.keys(result).length === 0
    ? undefined
    : `expected result {}, got ${JSON.stringify(response)}`;
}

/** The workloads of issue 2: startup and a ping flood. */
export function defaultWorkloads(options: WorkloadOptions): Workload[] {
  return [
    {
      key: "startup",
      label: "startup to first response (initialize)",
      clock: "spawn",
      runs: options.startupRuns,
      build: () => ({ lines: [INITIALIZE_LINE], ids: [0] }),
      check: (response) =>
        "result" in response
          ? undefined
          : `expected a result, got ${JSON.stringify(response)}`,
    },
    {
      key: "pings",
      label: `${options.pings.toLocaleString("en-US")} pings`,
      clock: "send",
      runs: options.pingRuns,
      handshake: HANDSHAKE,
      build: () => {
        const lines: string[] = [];
        const ids: Id[] = [];
        for (let id = 1; id <= options.pings; id++) {
          lines.push(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
          ids.push(id);
        }
        return { lines, ids };
      },
      check: emptyResult,
    },
  ];
}
