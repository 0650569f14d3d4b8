/**
 * A local HTTP server that stands in for a model's API: each API module
 * gives a handler over a {@linkcode Script}; this serves it on loopback
 * and keeps every request body for diagnosis.
 *
 * @module
 */

import type { SessionOutcome } from "./agents.ts";

/** A running stand-in. */
export interface StandIn {
  /** Its base URL, `http://127.0.0.1:PORT`. */
  url: string;
  /** Every request seen: method, path and body (the first 4 KiB). */
  requests: string[];
  /** Stop serving. */
  close(): Promise<void>;
}

/** Serve `handler` on 127.0.0.1 at a free port. */
export function serveStandIn(
  handler: (request: Request, body: string) => Response | Promise<Response>,
): StandIn {
  const requests: string[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const body = await request.text();
      const path = new URL(request.url).pathname;
      requests.push(`${request.method} ${path} ${body.slice(0, 4096)}`);
      try {
        return await handler(request, body);
      } catch (error) {
        return new Response(String(error), { status: 500 });
      }
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    requests,
    close: () => server.shutdown(),
  };
}

/** A `text/event-stream` response of `events` (each `[event?, data]`). */
export function sse(
  events: readonly [string | undefined, unknown][],
): Response {
  const body = events.map(([event, data]) =>
    `${event === undefined ? "" : `event: ${event}\n`}data: ${
      typeof data === "string" ? data : JSON.stringify(data)
    }\n\n`
  ).join("");
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
    },
  });
}

/** Most characters of a CLI's output kept for diagnosis (its end). */
const OUTPUT_KEPT = 64 * 1024;

/**
 * Wait for a CLI run against `standIn` (killed with SIGKILL after
 * `timeoutMs`) and give its session outcome: what the model read, the
 * exit code, and for diagnosis the requests the stand-in saw, stdout and
 * stderr.
 */
export async function cliOutcome(
  child: Deno.ChildProcess,
  standIn: StandIn,
  readings: SessionOutcome["readings"],
  timeoutMs: number,
): Promise<SessionOutcome> {
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  }, timeoutMs);
  try {
    const output = await child.output();
    const decoder = new TextDecoder();
    const requests = standIn.requests.map((r) =>
      r.slice(0, r.indexOf(" ", r.indexOf(" ") + 1))
    );
    const text = `stand-in requests: ${requests.join(", ")}\n${
      decoder.decode(output.stdout)
    }\n--- stderr ---\n${decoder.decode(output.stderr)}${
      timedOut ? `\n--- killed after ${timeoutMs} ms ---` : ""
    }`;
    return { readings, code: output.code, output: text.slice(-OUTPUT_KEPT) };
  } finally {
    clearTimeout(timer);
  }
}
