/**
 * The probes that judge an attack: what a fresh client sees while it runs.
 * A `GET /health` on a new connection every 50 ms, and a new session
 * (`initialize`, `notifications/initialized`, `tools/list`, then DELETE)
 * every 200 ms, retried after a refusal until it is served.
 *
 * They run in a process of their own ({@linkcode spawnProbes}), as a real
 * new client does: in the attacker's process their timings would include
 * the attacker's own work (its sockets and event loop), which is not the
 * server's latency.
 *
 * ```sh
 * deno run --allow-net=127.0.0.1 bench/attack_probes.ts HOST PORT PATH
 * ```
 *
 * prints `ready` once warmed up, probes until its stdin closes, then
 * prints its {@linkcode ProbeResults} as JSON.
 *
 * @module
 */

import {
  openSession,
  rpc,
  sessionHeaders,
  sleep,
  type Target,
  within,
} from "./attack_client.ts";
import { type Address, RawConnection } from "./raw_http.ts";

/** `/health` on a new connection: its latency, Infinity unless 200. */
export async function probeHealth(
  address: Address,
  timeoutMs: number,
  unserved: (why: string) => void = () => {},
) {
  const signal = AbortSignal.timeout(timeoutMs);
  const start = performance.now();
  let conn: RawConnection | undefined;
  try {
    conn = await RawConnection.open(address, signal);
    const reply = await within(
      conn.request("GET", "/health", address, { connection: "close" }),
      signal,
    );
    if (reply.status === 200) return performance.now() - start;
    unserved(`/health HTTP ${reply.status}`);
    return Infinity;
  } catch (error) {
    unserved(`/health ${reason(error, signal)}`);
    return Infinity;
  } finally {
    conn?.close();
  }
}

/**
 * A new client: a new connection, `initialize`, `notifications/initialized`
 * and `tools/list` (checked), then DELETE. Retried 100 ms after a refusal
 * or failure, until `timeoutMs`. `first`: the first try's time (Infinity
 * when it failed); `served`: until a try succeeded (Infinity: none did).
 */
export async function probeSession(
  address: Address,
  path: string,
  timeoutMs: number,
  unserved: (why: string) => void = () => {},
): Promise<{ first: number; served: number }> {
  const start = performance.now();
  let first: number | undefined;
  for (;;) {
    const attempt = performance.now();
    const left = timeoutMs - (attempt - start);
    if (left <= 0) return { first: first ?? Infinity, served: Infinity };
    const signal = AbortSignal.timeout(left);
    let conn: RawConnection | undefined;
    try {
      conn = await RawConnection.open(address, signal);
      const context = { address, path };
      const sid = await within(openSession(conn, context), signal);
      const { result } = await within(
        rpc(conn, context, sid, "tools/list", {}),
        signal,
      );
      if (!Array.isArray(result.tools) || result.tools.length === 0) {
        throw new Error("tools/list: no tools");
      }
      const now = performance.now();
      first ??= now - attempt;
      // Not timed: the probe's session is ended so that probes add none.
      await within(
        conn.request("DELETE", path, address, sessionHeaders(sid)),
        signal,
      ).catch(() => {});
      return { first, served: now - start };
    } catch (error) {
      unserved(`session ${reason(error, signal)}`);
      first ??= Infinity;
      await sleep(100, signal);
    } finally {
      conn?.close();
    }
  }
}

/** Why a probe failed, in a few words (an HTTP status, a timeout). */
function reason(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return "timeout";
  const text = (error as Error).message ?? String(error);
  return /HTTP \d+/.exec(text)?.[0] ?? text.split("\n")[0].slice(0, 60);
}

/** How long a probe may wait before it counts as not served. */
export const PROBE_TIMEOUT_MS = 5_000;
const HEALTH_EVERY_MS = 50;
const SESSION_EVERY_MS = 200;

/** What the probes saw: latencies in ms (Infinity: not served). */
export interface ProbeResults {
  /** Every `/health` probe. */
  health: number[];
  /** A new session's first try. */
  sessionFirst: number[];
  /** Until a new client was served, retries included. */
  served: number[];
  /** Why probes (and retries) were not served, with how often. */
  unserved: Map<string, number>;
}

/** Probe `target` until `signal` aborts. */
export async function runProbes(
  target: Target,
  signal: AbortSignal,
): Promise<ProbeResults> {
  const results: ProbeResults = {
    health: [],
    sessionFirst: [],
    served: [],
    unserved: new Map(),
  };
  const count = (why: string) =>
    results.unserved.set(why, (results.unserved.get(why) ?? 0) + 1);
  const { address, path } = target;
  await Promise.all([
    (async () => {
      while (!signal.aborted) {
        results.health.push(
          await probeHealth(address, PROBE_TIMEOUT_MS, count),
        );
        await sleep(HEALTH_EVERY_MS, signal);
      }
    })(),
    (async () => {
      while (!signal.aborted) {
        const { first, served } = await probeSession(
          address,
          path,
          PROBE_TIMEOUT_MS,
          count,
        );
        results.sessionFirst.push(first);
        results.served.push(served);
        await sleep(SESSION_EVERY_MS, signal);
      }
    })(),
  ]);
  return results;
}

// Infinity as JSON's null, and back.
const finite = (values: number[]) =>
  values.map((value) => Number.isFinite(value) ? value : null);
const infinite = (values: (number | null)[]) =>
  values.map((value) => value ?? Infinity);

/** Probes running in a process of their own; see the module doc. */
export interface ProbeProcess {
  /** Stop probing: what the probes saw. */
  stop(): Promise<ProbeResults>;
}

/**
 * Start probing `target` from a new process; resolves once its probes are
 * warmed up and counting.
 */
export async function spawnProbes(target: Target): Promise<ProbeProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1",
      "--no-prompt",
      new URL(import.meta.url).pathname,
      target.address.hostname,
      String(target.address.port),
      target.path,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  // Its first line says it is ready; its last holds the results.
  let text = "";
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  while (!text.includes("\n")) {
    const { value, done } = await lines.read();
    if (done) throw new Error("the probe process ended before it was ready");
    text += value;
  }
  return {
    async stop() {
      await child.stdin.close().catch(() => {});
      for (;;) {
        const { value, done } = await lines.read();
        if (done) break;
        text += value;
      }
      const { code } = await child.status;
      if (code !== 0) throw new Error(`the probe process exited with ${code}`);
      const raw = JSON.parse(text.slice(text.indexOf("\n") + 1));
      return {
        health: infinite(raw.health),
        sessionFirst: infinite(raw.sessionFirst),
        served: infinite(raw.served),
        unserved: new Map(raw.unserved),
      };
    },
  };
}

if (import.meta.main) {
  const [hostname, port, path] = Deno.args;
  const stop = new AbortController();
  // Probe until the bench closes stdin.
  (async () => {
    for await (const _ of Deno.stdin.readable) { /* nothing is sent */ }
    stop.abort();
  })();
  const target = { address: { hostname, port: Number(port) }, path };
  // Warm up, not counted: this process's own code compiles on first use.
  await probeHealth(target.address, PROBE_TIMEOUT_MS);
  await probeSession(target.address, path, PROBE_TIMEOUT_MS);
  console.log("ready");
  const results = await runProbes(target, stop.signal);
  console.log(JSON.stringify({
    health: finite(results.health),
    sessionFirst: finite(results.sessionFirst),
    served: finite(results.served),
    unserved: [...results.unserved],
  }));
}
