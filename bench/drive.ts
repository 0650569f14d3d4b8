/**
 * Runs one workload once against one server process and checks every
 * response after the clock has stopped.
 *
 * @module
 */

import { peakRss } from "./measure.ts";
import { type CommandSpec, ServerProcess } from "./process.ts";
import type { Batch, Id, Workload } from "./workloads.ts";

/** What one run measured. */
export interface RunResult {
  /** Milliseconds from the clock's start to the last expected response. */
  ms: number;
  /** Peak RSS in bytes, read before stdin was closed; undefined if unknown. */
  rss: number | undefined;
}

/** A batch encoded once, so encoding is not part of any measurement. */
export interface PreparedBatch {
  /** The batch. */
  batch: Batch;
  /** Its lines, `\n`-terminated, as bytes. */
  bytes: Uint8Array;
}

/** Encode `batch` as the bytes written to stdin. */
export function prepare(batch: Batch): PreparedBatch {
  const text = batch.lines.length === 0 ? "" : batch.lines.join("\n") + "\n";
  return { batch, bytes: new TextEncoder().encode(text) };
}

const DEFAULT_CHUNK = 64 * 1024;

/**
 * Run `workload` once on the server `spec` starts. Throws with the reason
 * (and the server's stderr) when a response is missing, extra or wrong, or
 * when the server does not exit 0 at end of input.
 */
export async function runOnce(
  spec: CommandSpec,
  workload: Workload,
  measured: PreparedBatch,
  handshake: PreparedBatch | undefined,
): Promise<RunResult> {
  const chunk = workload.chunkBytes ?? DEFAULT_CHUNK;
  let start = performance.now();
  const server = new ServerProcess(spec);
  let expected = 0;
  try {
    if (workload.clock === "send" && handshake !== undefined) {
      expected += handshake.batch.ids.length;
      await server.write(handshake.bytes, chunk);
      await server.waitForLines(expected);
      start = performance.now();
    }
    expected += measured.batch.ids.length;
    const [end] = await Promise.all([
      server.waitForLines(expected),
      server.write(measured.bytes, chunk),
    ]);
    const rss = await peakRss(server.pid);
    const code = await server.close();
    if (code !== 0) throw new Error(`exited with code ${code}`);
    const problem = verify(
      server.outputLines(),
      workload.clock === "send" ? handshake?.batch.ids ?? [] : [],
      measured.batch.ids,
      workload,
    );
    if (problem !== undefined) throw new Error(problem);
    return { ms: end - start, rss };
  } catch (error) {
    try {
      server.child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
    const stderr = server.stderrText().trim().slice(0, 2000);
    throw new Error(
      `${(error as Error).message}${
        stderr ? `\nserver stderr:\n${stderr}` : ""
      }`,
    );
  }
}

/** Every id answered exactly once, nothing else on stdout, each response checked. */
function verify(
  lines: string[],
  handshakeIds: Id[],
  ids: Id[],
  workload: Workload,
): string | undefined {
  const total = handshakeIds.length + ids.length;
  if (lines.length !== total) {
    return `expected ${total} response lines, got ${lines.length}`;
  }
  const unchecked = new Set(handshakeIds.map((id) => JSON.stringify(id)));
  const wanted = new Set(ids.map((id) => JSON.stringify(id)));
  for (const key of unchecked) wanted.add(key);
  const seen = new Set<string>();
  for (const line of lines) {
    let response;
    try {
      response = JSON.parse(line);
    } catch {
      return `stdout line is not JSON: ${line.slice(0, 200)}`;
    }
    if (response?.jsonrpc !== "2.0") return `not JSON-RPC 2.0: ${line}`;
    const key = JSON.stringify(response.id);
    if (!wanted.has(key)) return `response to an unknown id: ${line}`;
    if (seen.has(key)) return `second response to id ${key}`;
    seen.add(key);
    // Handshake responses are the startup workload's to check.
    if (unchecked.has(key)) continue;
    const problem = workload.check?.(response);
    if (problem !== undefined) return problem;
  }
  return undefined;
}
