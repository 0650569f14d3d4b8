/**
 * The HTTP load driver: many MCP sessions over Streamable HTTP at once,
 * each a keep-alive client that initializes and then sends its
 * `tools/call`s one after another, as an agent does. It measures each
 * call's latency (request written to response parsed) and the throughput
 * of all sessions together; every response is checked.
 *
 * It speaks only to the URL it is given, and stops at the first failed call
 * or after `timeoutMs`, whichever comes first.
 *
 * @module
 */

/** The size of one load run, and its bound. */
export interface LoadPlan {
  /** The server's MCP endpoint, say `http://127.0.0.1:PORT/mcp`. */
  url: string;
  /** Sessions open at once. */
  sessions: number;
  /** Requests each session sends, one after another. */
  callsPerSession: number;
  /**
   * The tool each request calls, with its arguments; undefined: every
   * request is a `ping` (the transport and dispatch alone).
   */
  tool?: { name: string; arguments: Record<string, unknown> };
  /** Judge one call's result: a reason when it is wrong, else undefined. */
  check(result: Record<string, unknown>): string | undefined;
  /** The whole run fails after this many milliseconds. */
  timeoutMs: number;
}

/** What one load run measured. */
export interface LoadResult {
  /** Calls answered and checked. */
  calls: number;
  /** Milliseconds from the first call to the last answer (all sessions). */
  elapsedMs: number;
  /** Calls per second over `elapsedMs`. */
  throughput: number;
  /** Median call latency, in milliseconds. */
  p50: number;
  /** 99th-percentile call latency, in milliseconds. */
  p99: number;
}

/** The protocol version the driver asks for. */
export const PROTOCOL_VERSION = "2025-06-18";

/** The `p`-th percentile (0–100) of ascending `sorted`, nearest rank. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/**
 * The JSON-RPC message answering `id` in a response body: the body itself
 * (`application/json`) or one `data:` line of an SSE stream.
 */
export function findAnswer(
  body: string,
  contentType: string,
  id: number,
): Record<string, unknown> | undefined {
  const candidates = contentType.includes("text/event-stream")
    ? body.split(/\r?\n/).filter((line) => line.startsWith("data:")).map((
      line,
    ) => line.slice(5).trim())
    : [body];
  for (const text of candidates) {
    if (text === "") continue;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      continue;
    }
    const found = (Array.isArray(message) ? message : [message]).find((m) =>
      m !== null && typeof m === "object" && (m as { id?: unknown }).id === id
    );
    if (found) return found as Record<string, unknown>;
  }
  return undefined;
}

/** One HTTP response, as the driver needs it. */
interface Reply {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/**
 * A keep-alive HTTP/1.1 connection written by hand: a request is one
 * write, a response is read by its `Content-Length`, its chunks, or to the
 * end of the connection. Much cheaper than `fetch` per request, so that
 * the client on the same two cores leaves the server its share.
 */
class HttpConnection {
  readonly #host: string;
  readonly #port: number;
  readonly #signal: AbortSignal;
  #conn: Deno.TcpConn | undefined;
  #buffer = new Uint8Array(64 * 1024);
  #start = 0;
  #end = 0;
  #eof = false;
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder();

  constructor(url: URL, signal: AbortSignal) {
    this.#host = url.hostname;
    this.#port = Number(url.port);
    this.#signal = signal;
    signal.addEventListener("abort", () => this.close(), { once: true });
  }

  close(): void {
    try {
      this.#conn?.close();
    } catch { /* closed already */ }
    this.#conn = undefined;
  }

  async #fill(): Promise<boolean> {
    if (this.#end === this.#buffer.length) {
      if (this.#start > 0) {
        this.#buffer.copyWithin(0, this.#start, this.#end);
        this.#end -= this.#start;
        this.#start = 0;
      } else {
        const bigger = new Uint8Array(this.#buffer.length * 2);
        bigger.set(this.#buffer);
        this.#buffer = bigger;
      }
    }
    const n = await this.#conn!.read(this.#buffer.subarray(this.#end));
    if (n === null) {
      this.#eof = true;
      return false;
    }
    this.#end += n;
    return true;
  }

  async #take(length: number): Promise<Uint8Array> {
    while (this.#end - this.#start < length) {
      if (!await this.#fill()) throw new Error("the connection closed early");
    }
    const bytes = this.#buffer.slice(this.#start, this.#start + length);
    this.#start += length;
    return bytes;
  }

  async #line(): Promise<string> {
    for (;;) {
      const at = this.#buffer.subarray(this.#start, this.#end).indexOf(10);
      if (at >= 0) {
        const line = this.#decoder.decode(
          this.#buffer.subarray(this.#start, this.#start + at),
        );
        this.#start += at + 1;
        return line.replace(/\r$/, "");
      }
      if (!await this.#fill()) throw new Error("the connection closed early");
    }
  }

  async request(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string,
  ): Promise<Reply> {
    if (this.#signal.aborted) throw this.#signal.reason;
    if (this.#conn === undefined) {
      this.#conn = await Deno.connect({
        hostname: this.#host,
        port: this.#port,
      });
      this.#start = this.#end = 0;
      this.#eof = false;
    }
    const payload = this.#encoder.encode(body);
    let head =
      `${method} ${path} HTTP/1.1\r\nhost: ${this.#host}:${this.#port}\r\n`;
    for (const [name, value] of Object.entries(headers)) {
      head += `${name}: ${value}\r\n`;
    }
    head += `content-length: ${payload.length}\r\n\r\n`;
    const bytes = new Uint8Array(head.length + payload.length);
    this.#encoder.encodeInto(head, bytes);
    bytes.set(payload, head.length);
    for (let written = 0; written < bytes.length;) {
      written += await this.#conn.write(bytes.subarray(written));
    }
    const status = Number((await this.#line()).split(" ")[1]);
    const replyHeaders = new Map<string, string>();
    for (
      let line = await this.#line();
      line !== "";
      line = await this.#line()
    ) {
      const colon = line.indexOf(":");
      replyHeaders.set(
        line.slice(0, colon).trim().toLowerCase(),
        line.slice(colon + 1).trim(),
      );
    }
    let text: string;
    const length = replyHeaders.get("content-length");
    if (length !== undefined) {
      text = this.#decoder.decode(await this.#take(Number(length)));
    } else if (replyHeaders.get("transfer-encoding")?.includes("chunked")) {
      const parts: Uint8Array[] = [];
      for (;;) {
        const size = parseInt(await this.#line(), 16);
        if (size === 0) {
          while ((await this.#line()) !== "");
          break;
        }
        parts.push(await this.#take(size));
        await this.#line();
      }
      text = parts.map((part) => this.#decoder.decode(part)).join("");
    } else if (status === 202 || status === 204 || status === 304) {
      text = "";
    } else {
      while (await this.#fill());
      text = this.#decoder.decode(
        this.#buffer.subarray(this.#start, this.#end),
      );
      this.#start = this.#end;
    }
    if (this.#eof || replyHeaders.get("connection") === "close") this.close();
    return { status, headers: replyHeaders, body: text };
  }
}

class Session {
  readonly #path: string;
  readonly #http: HttpConnection;
  #id: string | undefined;
  #next = 1;

  constructor(url: string, signal: AbortSignal) {
    const parsed = new URL(url);
    this.#path = parsed.pathname;
    this.#http = new HttpConnection(parsed, signal);
  }

  #headers(): Record<string, string> {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "accept": "application/json, text/event-stream",
    };
    if (this.#id !== undefined) {
      headers["mcp-session-id"] = this.#id;
      headers["mcp-protocol-version"] = PROTOCOL_VERSION;
    }
    return headers;
  }

  /** Send a request; its answer's `result`, or a thrown reason. */
  async request(
    method: string,
    params: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const id = this.#next++;
    const reply = await this.#http.request(
      "POST",
      this.#path,
      this.#headers(),
      JSON.stringify({ jsonrpc: "2.0", id, method, params }),
    );
    if (reply.status !== 200) {
      throw new Error(`${method}: HTTP ${reply.status}: ${reply.body}`);
    }
    this.#id ??= reply.headers.get("mcp-session-id");
    const answer = findAnswer(
      reply.body,
      reply.headers.get("content-type") ?? "",
      id,
    );
    if (answer === undefined) {
      throw new Error(`${method}: no answer to id ${id} in: ${reply.body}`);
    }
    if (answer.error !== undefined) {
      throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
    }
    return answer.result as Record<string, unknown>;
  }

  /** Send a notification (answered 202, no body). */
  async notify(method: string): Promise<void> {
    const reply = await this.#http.request(
      "POST",
      this.#path,
      this.#headers(),
      JSON.stringify({ jsonrpc: "2.0", method }),
    );
    if (reply.status !== 202 && reply.status !== 200) {
      throw new Error(`${method}: HTTP ${reply.status}: ${reply.body}`);
    }
  }

  /** End the session (DELETE) and the connection. */
  async close(): Promise<void> {
    try {
      if (this.#id !== undefined) {
        await this.#http.request("DELETE", this.#path, this.#headers(), "");
      }
    } catch { /* the run is over either way */ }
    this.#http.close();
  }
}

/**
 * Run `plan` against its URL: open every session and send one request on
 * each (not timed), then send every session's calls at once and time them. Throws, saying why, on the
 * first failed call or when `timeoutMs` passes.
 */
export async function runLoad(plan: LoadPlan): Promise<LoadResult> {
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(
        new Error(`the load run took longer than ${plan.timeoutMs} ms`),
      ),
    plan.timeoutMs,
  );
  const sessions = Array.from(
    { length: plan.sessions },
    () => new Session(plan.url, controller.signal),
  );
  try {
    const latencies = new Float64Array(plan.sessions * plan.callsPerSession);
    let filled = 0;
    const method = plan.tool === undefined ? "ping" : "tools/call";
    const params = plan.tool === undefined
      ? {}
      : { name: plan.tool.name, arguments: plan.tool.arguments };
    // Not timed: the handshake, and one request per session, so that code
    // loaded or compiled on first use is not counted.
    await Promise.all(sessions.map(async (session) => {
      await session.request("initialize", {
        protocolVersion: PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: "shipcode-bench", version: "1.0.0" },
      });
      await session.notify("notifications/initialized");
      await session.request(method, params);
    }));
    const start = performance.now();
    await Promise.all(sessions.map(async (session) => {
      for (let i = 0; i < plan.callsPerSession; i++) {
        const sent = performance.now();
        const result = await session.request(method, params);
        latencies[filled++] = performance.now() - sent;
        const wrong = result.isError === true
          ? `the tool failed: ${JSON.stringify(result.content)}`
          : plan.check(result);
        if (wrong !== undefined) {
          throw new Error(`${method} ${plan.tool?.name ?? ""}: ${wrong}`);
        }
      }
    }));
    const elapsedMs = performance.now() - start;
    latencies.sort();
    return {
      calls: filled,
      elapsedMs,
      throughput: filled / (elapsedMs / 1000),
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
    };
  } catch (error) {
    controller.abort(error);
    throw controller.signal.reason ?? error;
  } finally {
    clearTimeout(timer);
    if (!controller.signal.aborted) {
      await Promise.all(sessions.map((session) => session.close()));
    }
    controller.abort();
  }
}
