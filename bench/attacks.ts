/**
 * The bench's `attacks` section: issue 26's attacks on the Streamable HTTP
 * transport, full size, each against a fresh server process
 * (`main.ts --root DIR --http 127.0.0.1:0`). While an attack runs, the
 * server's memory is sampled from `/proc/PID/status` and fresh clients
 * probe it from a process of their own (`attack_probes.ts`): a
 * `GET /health` on a new connection every 50 ms, and a new session
 * (`initialize`, `notifications/initialized`, `tools/list`, then DELETE)
 * every 200 ms, which retries after a refusal until it is served.
 *
 * - `kept_streams`: sessions that each send POSTs reading a 1 MB file
 *   (`resources/read`: `read_file` answers 20,000 bytes a call), accepting
 *   only `text/event-stream`, and hang up at once (the answers are kept for
 *   a resume);
 * - `log_broadcast`: `--features logging`, many sessions at
 *   `logging/setLevel debug`, then a notification with a 3.5 MB method
 *   name (a debug record "ignored notification <method>");
 * - `replays`: `--features logging`, one session's stream filled with
 *   records of its long notification names, then GETs with
 *   `Last-Event-ID: 0_0` from clients that never read;
 * - `idle_streams`: thousands of sessions, each with a GET stream that
 *   reads nothing;
 * - `sessions`: ~10,000 `initialize` POSTs;
 *
 * and first a `baseline`: no attack, the probes alone.
 *
 * Targets per attack: peak RSS (`VmHWM`) ≤ 400 MiB, `/health` p99 and a new
 * session's p99 (first try, `initialize` to `tools/list` answered) ≤ 100
 * ms, and every new client served within 2 s.
 *
 * Traffic goes to 127.0.0.1 only. Every loop is bounded in count and time:
 * an attack's setup stops at its count or after `setupMs`, then holds what
 * it opened for `holdMs` while the probes go on, then closes everything;
 * the server is killed once its RSS passes `killBytes`.
 *
 * @module
 */

import { dirname } from "node:path";
import { DENO_RUN_FLAGS } from "../cli/run_command.ts";
import { type ListeningProcess, startListening } from "../tests/process.ts";
import { PROJECT_ROOT } from "../tests/server_command.ts";
import { sourceText } from "./fixtures.ts";
import {
  nextId,
  notify,
  openSession,
  rpc,
  sessionHeaders,
  sleep,
  within,
} from "./attack_client.ts";
import {
  PROBE_TIMEOUT_MS,
  probeHealth,
  probeSession,
  spawnProbes,
} from "./attack_probes.ts";
import { percentile } from "./http_load.ts";
import { formatBytes, memoryStatus } from "./measure.ts";
import type { CommandSpec } from "./process.ts";
import {
  type Address,
  addressOf,
  RawConnection,
  requestBytes,
} from "./raw_http.ts";

/** The sizes of the attacks. */
export interface AttackSizes {
  /** `kept_streams`: sessions. */
  keptSessions: number;
  /** `kept_streams`: POSTs per session that hang up at once. */
  keptPosts: number;
  /** `kept_streams`: bytes of the file each POST reads. */
  fileBytes: number;
  /** `log_broadcast`: sessions at `logging/setLevel debug`. */
  logSessions: number;
  /** `log_broadcast`: characters of the notification's method name. */
  methodBytes: number;
  /** `log_broadcast`: how many such notifications. */
  notifications: number;
  /** `replays`: GETs with `Last-Event-ID: 0_0` that never read. */
  replayGets: number;
  /** `replays`: characters of notification names that fill the stream. */
  replayFillBytes: number;
  /** `idle_streams`: sessions, each with a GET stream that reads nothing. */
  idleStreams: number;
  /** `sessions`: `initialize` POSTs. */
  initPosts: number;
}

/** The full sizes, as issue 26 ran them. */
export const FULL_SIZES: AttackSizes = {
  keptSessions: 40,
  keptPosts: 64,
  fileBytes: 1_000_000,
  logSessions: 150,
  methodBytes: 3_500_000,
  notifications: 1,
  replayGets: 400,
  replayFillBytes: 3_600_000,
  idleStreams: 4_100,
  initPosts: 10_000,
};

/** The targets every attack is judged by. */
export interface AttackTargets {
  /** Peak RSS of the server, bytes. */
  rssBytes: number;
  /** p99 of `/health` and of a new session's first try, ms. */
  p99Ms: number;
  /** Longest a new client may wait to be served, ms. */
  servedMs: number;
}

/** Issue 26's targets. */
export const TARGETS: AttackTargets = {
  rssBytes: 400 * 2 ** 20,
  p99Ms: 100,
  servedMs: 2000,
};

/** What an attack's setup gets. */
export interface AttackContext {
  /** The server's host and port. */
  address: Address;
  /** The MCP endpoint's path, `/mcp`. */
  path: string;
  /** The directory served (its real path). */
  root: string;
  /** The attack's sizes. */
  sizes: AttackSizes;
  /** Aborts when the setup must stop (its time bound, or the server died). */
  until: AbortSignal;
  /** Aborts at the end of the hold: connections opened with it close. */
  hold: AbortSignal;
}

/** One attack. */
export interface Attack {
  /** Its name in `--attacks` and the table. */
  key: string;
  /** What it does, for the legend. */
  label: string;
  /** Server flags besides `--root DIR --http 127.0.0.1:0`. */
  args: string[];
  /** Make files in the served root. */
  prepare?(root: string, sizes: AttackSizes): Promise<void>;
  /**
   * Open what the attack holds (connections opened with `context.hold`
   * stay open until the hold ends); resolves with a note on what it did.
   */
  setup(context: AttackContext): Promise<string>;
}

/** Options of one section run. */
export interface AttackOptions {
  /** The attacks' sizes. */
  sizes: AttackSizes;
  /** Milliseconds an attack's setup may take. */
  setupMs: number;
  /** Milliseconds the attack is held (and probed) after its setup. */
  holdMs: number;
  /** The server is killed when its RSS passes this many bytes. */
  killBytes: number;
  /** More server flags, for every attack (say a memory budget). */
  extraArgs?: string[];
  /**
   * The `main.ts` to serve (default this checkout's): another checkout's,
   * say the last commit's, for numbers before and after a change.
   */
  main?: string;
}

/** What one attack measured. */
export interface AttackResult {
  /** The attack's key. */
  key: string;
  /** What its setup did. */
  note: string;
  /** Peak RSS (`VmHWM`), bytes; undefined when never read. */
  peak: number | undefined;
  /** Whether the bench killed the server for passing `killBytes`. */
  killed: boolean;
  /** Whether the server exited by itself during the attack. */
  died: boolean;
  /** Latency of every `/health` probe, ms (Infinity: not answered 200). */
  health: number[];
  /** A new session's first try, ms (Infinity: refused or failed). */
  sessionFirst: number[];
  /** Time until a new client was served, retries included, ms. */
  served: number[];
  /** Why probes (and retries) were not served, with how often. */
  unserved?: Map<string, number>;
  /** Why the run could not measure (the server did not start, say). */
  failure?: string;
}

/** How a batch of attack steps went. */
interface Tally {
  done: number;
  failed: number;
  firstError?: string;
}

/**
 * Run `step(i, worker)` for i in [0, count), `concurrency` at a time, until
 * `until` aborts; a step that throws is counted, not fatal.
 */
async function steps(
  count: number,
  concurrency: number,
  until: AbortSignal,
  step: (i: number, worker: number) => Promise<void>,
): Promise<Tally> {
  const tally: Tally = { done: 0, failed: 0 };
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async (_, worker) => {
      while (next < count && !until.aborted) {
        const i = next++;
        try {
          await within(step(i, worker), until);
          tally.done++;
        } catch (error) {
          if (until.aborted) return;
          tally.failed++;
          tally.firstError ??= (error as Error).message.split("\n")[0];
        }
      }
    }),
  );
  return tally;
}

function describe(tally: Tally, count: number, what: string): string {
  let text = `${tally.done} of ${count} ${what}`;
  if (tally.failed > 0) {
    text += `, ${tally.failed} failed (${tally.firstError?.slice(0, 120)})`;
  }
  return text;
}

const MiB = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/**
 * The five attacks of issue 26, in its order, after a baseline: the probes
 * alone on an idle server, judged by the same targets, so that a table
 * taken on a busy machine says how much of the latency is the machine's.
 */
export const ATTACKS: readonly Attack[] = [
  {
    key: "baseline",
    label: "no attack: the probes alone, for the machine's own noise",
    args: [],
    setup: () => Promise.resolve("nothing sent"),
  },
  {
    key: "kept_streams",
    label:
      "sessions × POSTs of resources/read (1 MB file), Accept: text/event-stream only, hung up at once",
    args: [],
    async prepare(root, sizes) {
      await Deno.writeTextFile(
        `${root}/big.txt`,
        sourceText(sizes.fileBytes, 0, 10),
      );
    },
    async setup(context) {
      const { sizes, address, path } = context;
      // `read_file` answers at most 20,000 bytes a call now; a resource
      // read answers the whole file.
      const read = { uri: `file://${context.root}/big.txt` };
      let posts = 0;
      const tally = await steps(
        sizes.keptSessions,
        1,
        context.until,
        async () => {
          const conn = await RawConnection.open(address, context.until);
          try {
            const sid = await openSession(conn, context);
            await Promise.all(
              Array.from({ length: sizes.keptPosts }, async () => {
                const hangUp = await RawConnection.open(address, context.until);
                try {
                  await hangUp.write(requestBytes(
                    "POST",
                    path,
                    address,
                    sessionHeaders(sid, "text/event-stream"),
                    JSON.stringify({
                      jsonrpc: "2.0",
                      id: nextId(),
                      method: "resources/read",
                      params: read,
                    }),
                  ));
                  posts++;
                } finally {
                  hangUp.close();
                }
              }),
            );
            // Paced by the server: the next session starts once this one's
            // reads are in hand (one more read, answered, on the session).
            await rpc(conn, context, sid, "resources/read", read);
          } finally {
            conn.close();
          }
        },
      );
      return `${
        describe(tally, sizes.keptSessions, "sessions")
      }; ${posts} POSTs hung up`;
    },
  },
  {
    key: "log_broadcast",
    label:
      "--features logging: sessions at logging/setLevel debug, then notifications with a 3.5 MB method name",
    args: ["--features", "logging"],
    async setup(context) {
      const { sizes, address } = context;
      const ids: string[] = [];
      const tally = await steps(
        sizes.logSessions,
        8,
        context.until,
        async () => {
          const conn = await RawConnection.open(address, context.until);
          try {
            const sid = await openSession(conn, context);
            await rpc(conn, context, sid, "logging/setLevel", {
              level: "debug",
            });
            ids.push(sid);
          } finally {
            conn.close();
          }
        },
      );
      const statuses: number[] = [];
      const sent = await steps(
        ids.length > 0 ? sizes.notifications : 0,
        1,
        context.until,
        async () => {
          const conn = await RawConnection.open(address, context.until);
          try {
            statuses.push(
              await notify(
                conn,
                context,
                ids[0],
                "x".repeat(sizes.methodBytes),
              ),
            );
          } finally {
            conn.close();
          }
        },
      );
      return `${describe(tally, sizes.logSessions, "logging sessions")}; ${
        describe(sent, sizes.notifications, "notifications")
      } of ${MiB(sizes.methodBytes)} (HTTP ${statuses.join(", ") || "-"})`;
    },
  },
  {
    key: "replays",
    label:
      "--features logging: one session's stream filled, then GETs with Last-Event-ID: 0_0 that never read",
    args: ["--features", "logging"],
    async setup(context) {
      const { sizes, address, path } = context;
      const conn = await RawConnection.open(address, context.until);
      let sid: string;
      const fills = Math.max(1, Math.ceil(sizes.replayFillBytes / 1_200_000));
      try {
        sid = await within(openSession(conn, context), context.until);
        await within(
          rpc(conn, context, sid, "logging/setLevel", { level: "debug" }),
          context.until,
        );
        for (let i = 0; i < fills && !context.until.aborted; i++) {
          await within(
            notify(
              conn,
              context,
              sid,
              `${i}`.repeat(Math.ceil(sizes.replayFillBytes / fills)),
            ),
            context.until,
          );
        }
      } finally {
        conn.close();
      }
      const tally = await steps(
        sizes.replayGets,
        4,
        context.until,
        async () => {
          const get = await RawConnection.open(address, context.hold);
          await get.write(
            requestBytes("GET", path, address, {
              ...sessionHeaders(sid, "text/event-stream"),
              "last-event-id": "0_0",
            }),
          );
          // Never read: the bytes stay where the server put them.
        },
      );
      return `stream filled with ${fills} records of ${
        MiB(sizes.replayFillBytes / fills)
      }; ${describe(tally, sizes.replayGets, "GETs")}`;
    },
  },
  {
    key: "idle_streams",
    label: "sessions each holding a GET stream that reads nothing",
    args: [],
    async setup(context) {
      const { sizes, address, path } = context;
      const tally = await steps(
        sizes.idleStreams,
        32,
        context.until,
        async () => {
          const conn = await RawConnection.open(address, context.hold);
          try {
            const sid = await openSession(conn, context);
            await conn.write(
              requestBytes(
                "GET",
                path,
                address,
                sessionHeaders(sid, "text/event-stream"),
              ),
            );
            // Never read: the connection is held until the hold ends.
          } catch (error) {
            conn.close();
            throw error;
          }
        },
      );
      return describe(tally, sizes.idleStreams, "GET streams");
    },
  },
  {
    key: "sessions",
    label: "initialize POSTs, never ended",
    args: [],
    async setup(context) {
      const { sizes, address } = context;
      const conns: (RawConnection | undefined)[] = [];
      try {
        const tally = await steps(
          sizes.initPosts,
          16,
          context.until,
          async (_, worker) => {
            let conn = conns[worker];
            if (conn === undefined || conn.closed) {
              conn = conns[worker] = await RawConnection.open(
                address,
                context.until,
              );
            }
            await openSession(conn, context, false);
          },
        );
        return describe(tally, sizes.initPosts, "initialize POSTs");
      } finally {
        for (const conn of conns) conn?.close();
      }
    },
  },
];

const SAMPLE_EVERY_MS = 100;

/** The command that serves `root` for `attack`. */
function commandFor(
  attack: Attack,
  root: string,
  options: AttackOptions,
): CommandSpec {
  const tail = [
    ...attack.args,
    ...options.extraArgs ?? [],
    "--root",
    root,
    "--http",
    "127.0.0.1:0",
  ];
  const main = options.main ?? `${PROJECT_ROOT}main.ts`;
  return {
    command: Deno.execPath(),
    args: [
      "run",
      "--allow-net=127.0.0.1",
      ...DENO_RUN_FLAGS,
      main,
      ...tail,
    ],
    cwd: dirname(main),
  };
}

/** Run `attack` on a fresh server, probing and sampling throughout. */
export async function runAttack(
  attack: Attack,
  options: AttackOptions,
): Promise<AttackResult> {
  const result: AttackResult = {
    key: attack.key,
    note: "",
    peak: undefined,
    killed: false,
    died: false,
    health: [],
    sessionFirst: [],
    served: [],
  };
  const root = await Deno.makeTempDir({ prefix: "shipcode_attack_" });
  let server: ListeningProcess | undefined;
  const hold = new AbortController();
  const gone = new AbortController();
  try {
    await attack.prepare?.(root, options.sizes);
    server = await startListening(commandFor(attack, root, options));
    const address = addressOf(server.url);
    const path = new URL(server.url).pathname;
    // Warm up, not counted: code loaded on first use.
    await probeHealth(address, PROBE_TIMEOUT_MS);
    await probeSession(address, path, PROBE_TIMEOUT_MS);

    const pid = server.pid;
    const running = server;
    const sampling = (async () => {
      while (!hold.signal.aborted) {
        const status = await memoryStatus(pid);
        if (status === undefined) {
          if (!result.killed) result.died = true;
          gone.abort(new Error("the server is gone"));
          return;
        }
        result.peak = Math.max(result.peak ?? 0, status.peak);
        if (status.rss > options.killBytes) {
          result.killed = true;
          result.peak = Math.max(result.peak, status.rss);
          await running.kill("SIGKILL");
          gone.abort(new Error("the server was killed"));
          return;
        }
        await sleep(SAMPLE_EVERY_MS, hold.signal);
      }
    })();
    const probes = await spawnProbes({ address, path });
    let probesStopped: Promise<void> | undefined;
    const stopProbes = () =>
      probesStopped ??= probes.stop().then((seen) => {
        result.health = seen.health;
        result.sessionFirst = seen.sessionFirst;
        result.served = seen.served;
        result.unserved = seen.unserved;
      });
    gone.signal.addEventListener("abort", () => stopProbes(), { once: true });
    const until = AbortSignal.any([
      AbortSignal.timeout(options.setupMs),
      gone.signal,
    ]);
    const started = performance.now();
    try {
      result.note = await attack.setup({
        address,
        path,
        root: await Deno.realPath(root),
        sizes: options.sizes,
        until,
        hold: AbortSignal.any([hold.signal, gone.signal]),
      });
    } catch (error) {
      result.note = `setup stopped: ${(error as Error).message.split("\n")[0]}`;
    }
    if (until.aborted && !gone.signal.aborted) {
      result.note += ` (setup stopped at its bound, ${
        options.setupMs / 1000
      } s)`;
    }
    result.note += `; setup ${
      ((performance.now() - started) / 1000).toFixed(1)
    } s`;
    await sleep(options.holdMs, gone.signal);
    hold.abort();
    await Promise.all([sampling, stopProbes()]);
    if (!gone.signal.aborted) {
      const status = await memoryStatus(pid);
      if (status !== undefined) {
        result.peak = Math.max(result.peak ?? 0, status.peak);
      }
    }
    if (result.killed) {
      result.note += `; killed at ${formatBytes(result.peak ?? 0)} RSS`;
    } else if (result.died) {
      const tail = server.stderr().trim().split("\n").slice(-1)[0] ?? "";
      result.note += `; the server exited by itself: ${tail.slice(0, 160)}`;
    }
  } catch (error) {
    result.failure = (error as Error).message.split("\n")[0];
  } finally {
    hold.abort();
    await server?.stop();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
  return result;
}

/** An attack's verdicts: which targets failed (none: it passed). */
export function failedTargets(
  result: AttackResult,
  targets: AttackTargets = TARGETS,
): string[] {
  const failed: string[] = [];
  if (result.failure !== undefined) return ["run failed"];
  if (
    result.killed || result.died || result.peak === undefined ||
    result.peak > targets.rssBytes
  ) failed.push("RSS");
  if (!(p99(result.health) <= targets.p99Ms)) failed.push("/health p99");
  if (!(p99(result.sessionFirst) <= targets.p99Ms)) {
    failed.push("session p99");
  }
  if (!(worst(result.served) <= targets.servedMs)) failed.push("new client");
  return failed;
}

function p99(values: number[]): number {
  return percentile(Float64Array.from(values).sort(), 99);
}

function worst(values: number[]): number {
  return values.length === 0 ? NaN : Math.max(...values);
}

function ms(value: number): string {
  if (Number.isNaN(value)) return "-";
  if (value === Infinity) return "never";
  return value >= 1000
    ? `${(value / 1000).toFixed(2)} s`
    : `${value.toFixed(1)} ms`;
}

function refused(values: number[]): string {
  const bad = values.filter((value) => value === Infinity).length;
  return `${values.length - bad}/${values.length}`;
}

/** The section's table, notes and verdicts; `failed` when any target failed. */
export function renderAttacks(
  results: readonly AttackResult[],
  options: Pick<
    AttackOptions,
    "holdMs" | "killBytes" | "extraArgs" | "main"
  >,
  targets: AttackTargets = TARGETS,
): { report: string; failed: boolean } {
  const header = [
    "attack".padEnd(15),
    "peak RSS".padStart(16),
    "/health p99".padStart(12),
    "ok".padStart(10),
    "session p99".padStart(12),
    "ok".padStart(8),
    "new client".padStart(11),
    "  verdict",
  ].join("");
  const lines = [
    `attacks: issue 26 at full size, each on a fresh server (${
      options.main ?? "main.ts"
    } --http 127.0.0.1:0${
      options.extraArgs?.length ? ` ${options.extraArgs.join(" ")}` : ""
    }), held ${options.holdMs / 1000} s after setup; killed past ${
      formatBytes(options.killBytes)
    }`,
    `targets: peak RSS ≤ ${
      formatBytes(targets.rssBytes)
    }; /health and a new session's first try (initialize + tools/list) p99 ≤ ${targets.p99Ms} ms; every new client served within ${
      targets.servedMs / 1000
    } s (retrying after refusals)`,
    "",
    `  ${header}`,
  ];
  let failed = false;
  for (const result of results) {
    const verdict = failedTargets(result, targets);
    if (verdict.length > 0) failed = true;
    const peak = result.peak === undefined
      ? "-"
      : `${result.killed ? ">" : ""}${formatBytes(result.peak)}${
        result.killed ? " kill" : result.died ? " died" : ""
      }`;
    lines.push(
      `  ${
        [
          result.key.padEnd(15),
          peak.padStart(16),
          ms(p99(result.health)).padStart(12),
          refused(result.health).padStart(10),
          ms(p99(result.sessionFirst)).padStart(12),
          refused(result.sessionFirst).padStart(8),
          ms(worst(result.served)).padStart(11),
          `  ${verdict.length === 0 ? "PASS" : `FAIL (${verdict.join(", ")})`}`,
        ].join("")
      }`,
    );
  }
  lines.push("", "  what each attack did (ok: probes answered / sent)");
  for (const result of results) {
    let text = result.failure ?? result.note;
    if (result.unserved !== undefined && result.unserved.size > 0) {
      text += `; probes not served: ${
        [...result.unserved].map(([why, n]) => `${n} × ${why}`).join(", ")
      }`;
    }
    lines.push(`  ${result.key.padEnd(15)}${text}`);
  }
  return { report: lines.join("\n"), failed };
}

/** Run `attacks` one after another and render the section. */
export async function runAttackSection(
  attacks: readonly Attack[],
  options: AttackOptions,
  progress: (text: string) => void,
): Promise<{ report: string; failed: boolean; results: AttackResult[] }> {
  const results: AttackResult[] = [];
  for (const attack of attacks) {
    progress(`bench: attack ${attack.key} `);
    const result = await runAttack(attack, options);
    results.push(result);
    progress(
      `${result.failure ?? formatBytes(result.peak ?? NaN)} ${
        failedTargets(result).length === 0 ? "PASS" : "FAIL"
      }\n`,
    );
  }
  return { ...renderAttacks(results, options), results };
}
