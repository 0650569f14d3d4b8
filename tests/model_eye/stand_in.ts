/**
 * A local HTTP server that stands in for a model's API: each API module
 * gives a handler over a {@linkcode Script}; this serves it on loopback
 * and keeps every request body for diagnosis.
 *
 * @module
 */

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
