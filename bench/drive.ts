/**
 * Runs one workload once against one server process and checks every
 * response after the clock has stopped.
 *
 * @module
 */

import { peakRss } from "./measure.ts";
import { type CommandSpec, ServerProcess } from "./process.ts";
import type { RunResult } from "./report.ts";
import type { Batch, Id, Workload } from "./workloads.ts";

export type { RunResult };

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

/** How long a server may take to exit once its stdin is closed. */
const EXIT_TIMEOUT_MS = 10_000;

/**
 * Bytes on stdout of the responses not to `beforeIds` (the handshake and
 * warm-up), line ends included.
 */
function measuredBytes(lines: string[], beforeIds: Id[]): number {
  const before = new Set(beforeIds.map((id) => JSON.stringify(id)));
  const encoder = new TextEncoder();
  let bytes = 0;
  for (const line of lines) {
    if (before.has(JSON.stringify(JSON.parse(line).id))) continue;
    bytes += encoder.encode(line).length + 1;
  }
  return bytes;
}

/**
 * Run `workload` once on the server `spec` starts. `before` is sent and
 * answered before the clock starts (`send` clock only): the handshake, then
 * any warm-up. Throws with the reason (and the server's stderr) when a
 * response is missing, extra or wrong, or when the server does not exit 0
 * at end of input.
 */
export async function runOnce(
  spec: CommandSpec,
  workload: Workload,
  measured: PreparedBatch,
  before: PreparedBatch | undefined,
): Promise<RunResult> {
  const chunk = workload.chunkBytes ?? DEFAULT_CHUNK;
  let start = performance.now();
  const server = new ServerProcess(spec);
  let expected = 0;
  const beforeIds = workload.clock === "send" ? before?.batch.ids ?? [] : [];
  try {
    if (workload.clock === "send" && before !== undefined) {
      expected += before.batch.ids.length;
      await server.write(before.bytes, chunk);
      await server.waitForLines(expected);
      start = performance.now();
    }
    expected += measured.batch.ids.length;
    let end: number;
    const followUps: string[] = [];
    if (workload.next === undefined) {
      [end] = await Promise.all([
        server.waitForLines(expected),
        server.write(measured.bytes, chunk),
      ]);
    } else {
      for (let i = 0; i < beforeIds.length; i++) await server.nextLine();
      end = await follow(server, workload, measured, chunk, followUps);
    }
    const rss = await peakRss(server.pid);
    const code = await server.close(EXIT_TIMEOUT_MS);
    if (server.killed) {
      throw new Error(
        `did not exit within ${
          EXIT_TIMEOUT_MS / 1000
        } s of its stdin closing (all responses had arrived); killed`,
      );
    }
    if (code !== 0) throw new Error(`exited with code ${code}`);
    const ids = [
      ...measured.batch.ids,
      ...followUps.map((line) => JSON.parse(line).id as Id),
    ];
    const lines = server.outputLines();
    const problem = verify(lines, beforeIds, ids, workload);
    if (problem !== undefined) throw new Error(problem);
    const payloadBytes = measured.batch.payloadBytes;
    if (payloadBytes === undefined) return { ms: end - start, rss };
    return {
      ms: end - start,
      rss,
      wireBytes: measuredBytes(lines, beforeIds),
      payloadBytes,
    };
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

/**
 * Send `measured`, then answer each response with what `workload.next`
 * makes of it until nothing is left to send or wait for; the lines sent are
 * pushed to `sent`. Resolves with the arrival time of the last response.
 */
async function follow(
  server: ServerProcess,
  workload: Workload,
  measured: PreparedBatch,
  chunk: number,
  sent: string[],
): Promise<number> {
  const encoder = new TextEncoder();
  const writing = server.write(measured.bytes, chunk);
  let outstanding = measured.batch.ids.length;
  let end = performance.now();
  while (outstanding > 0) {
    const { text, at } = await server.nextLine();
    outstanding--;
    end = at;
    const line = workload.next!(JSON.parse(text));
    if (line === undefined) continue;
    // Follow-ups go after the whole batch: never between two of its slices.
    await writing;
    sent.push(line);
    outstanding++;
    await server.write(encoder.encode(line + "\n"));
  }
  await writing;
  return end;
}

/**
 * Every id answered exactly once, nothing else on stdout, no error before
 * the clock, each measured response checked, then all of them together.
 */
function verify(
  lines: string[],
  beforeIds: Id[],
  ids: Id[],
  workload: Workload,
): string | undefined {
  const total = beforeIds.length + ids.length;
  if (lines.length !== total) {
    return `expected ${total} response lines, got ${lines.length}`;
  }
  const unchecked = new Set(beforeIds.map((id) => JSON.stringify(id)));
  const wanted = new Set(ids.map((id) => JSON.stringify(id)));
  for (const key of unchecked) wanted.add(key);
  const seen = new Set<string>();
  const measured: Record<string, unknown>[] = [];
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
    if (unchecked.has(key)) {
      // The handshake is the startup workload's to check; a warm-up must
      // at least not fail, or the measured state is not the steady one.
      if ("error" in response) {
        return `error before the clock started: ${line.slice(0, 300)}`;
      }
      continue;
    }
    const problem = workload.check?.(response);
    if (problem !== undefined) return problem;
    measured.push(response);
  }
  return workload.checkAll?.(measured);
}
