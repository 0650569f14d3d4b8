/**
 * The checks the Streamable HTTP transport makes before it serves anything:
 * `Host` and `Origin` against allow-lists (DNS-rebinding protection), the
 * bearer token (compared in constant time), and reading a request body
 * within a size limit and a time limit (a client that sends slowly cannot
 * hold the server's resources for ever).
 *
 * @module
 */

/** The host names a server on loopback is reached by. */
export const LOOPBACK_NAMES: readonly string[] = [
  "localhost",
  "127.0.0.1",
  "[::1]",
];

/** How a host name is written in a `Host` header or URL (IPv6 bracketed). */
export function hostForUrl(hostname: string): string {
  return hostname.includes(":") && !hostname.startsWith("[")
    ? `[${hostname}]`
    : hostname;
}

/**
 * The `Host` values accepted by default for a server listening on
 * `hostname`:`port`: the loopback names and the listening name, each with
 * the port.
 */
export function defaultAllowedHosts(hostname: string, port: number): string[] {
  const names = new Set(LOOPBACK_NAMES);
  if (hostname !== "0.0.0.0" && hostname !== "::" && hostname !== "[::]") {
    names.add(hostForUrl(hostname).toLowerCase());
  }
  return [...names].map((name) => `${name}:${port}`);
}

/** The `Origin` values accepted by default: the default hosts over http. */
export function defaultAllowedOrigins(
  hostname: string,
  port: number,
): string[] {
  return defaultAllowedHosts(hostname, port).map((host) => `http://${host}`);
}

/**
 * Whether the `Host` header value `host` is allowed: it equals an entry of
 * `allowed` (`name:port`), or an entry without a port names its host.
 */
export function hostAllowed(
  host: string | null,
  allowed: readonly string[],
): boolean {
  if (host === null || host === "") return false;
  const value = host.toLowerCase();
  for (const entry of allowed) {
    const want = entry.toLowerCase();
    if (value === want) return true;
    if (!/:[0-9]+$/.test(want) && value.replace(/:[0-9]+$/, "") === want) {
      return true;
    }
  }
  return false;
}

/**
 * Whether the `Origin` header value `origin` is allowed: absent (not a
 * browser), or equal to an entry of `allowed` (`scheme://host[:port]`).
 */
export function originAllowed(
  origin: string | null,
  allowed: readonly string[],
): boolean {
  if (origin === null) return true;
  const value = origin.toLowerCase().replace(/\/+$/, "");
  return allowed.some((entry) =>
    entry.toLowerCase().replace(/\/+$/, "") === value
  );
}

const encoder = new TextEncoder();
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Whether the `Authorization` header carries `Bearer <token>`. The
 * comparison takes the same time wherever the values differ, so timing
 * tells an attacker nothing about the token.
 */
export function bearerMatches(
  authorization: string | null,
  token: string,
): boolean {
  const match = /^Bearer[ ]+(.*)$/i.exec(authorization?.trim() ?? "");
  const given = encoder.encode(match?.[1] ?? "");
  const want = encoder.encode(token);
  let differ = given.length ^ want.length;
  for (let i = 0; i < want.length; i++) {
    differ |= want[i] ^ (given[i % Math.max(1, given.length)] ?? 0);
  }
  return match !== null && differ === 0;
}

/** A body being read, and what to do when it is late. */
interface PendingRead {
  deadline: number;
  expire: () => void;
}

/**
 * The body reads under way with one timeout, oldest first, and one timer
 * for the oldest: a timer per request (set, then cleared) cost several
 * microseconds of each POST. The timer keeps the process alive only while
 * reads are pending (it is unref'd, not cleared, when none are: re-arming
 * costs more).
 */
class Deadlines {
  readonly #ms: number;
  // Insertion order is deadline order: every read gets the same timeout.
  readonly #pending = new Set<PendingRead>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(ms: number) {
    this.#ms = ms;
  }

  add(expire: () => void): PendingRead {
    const read = { deadline: performance.now() + this.#ms, expire };
    this.#pending.add(read);
    if (this.#timer === undefined) this.#arm(this.#ms);
    else if (this.#pending.size === 1) Deno.refTimer(this.#timer);
    return read;
  }

  delete(read: PendingRead): void {
    if (
      this.#pending.delete(read) && this.#pending.size === 0 &&
      this.#timer !== undefined
    ) Deno.unrefTimer(this.#timer);
  }

  #arm(delay: number): void {
    this.#timer = setTimeout(() => this.#fire(), Math.max(1, delay));
    if (this.#pending.size === 0) Deno.unrefTimer(this.#timer);
  }

  #fire(): void {
    this.#timer = undefined;
    const now = performance.now();
    for (const read of this.#pending) {
      if (read.deadline > now) {
        this.#arm(read.deadline - now);
        return;
      }
      this.#pending.delete(read);
      read.expire();
    }
  }
}

const deadlinesByTimeout = new Map<number, Deadlines>();

function deadlinesOf(timeoutMs: number): Deadlines {
  let deadlines = deadlinesByTimeout.get(timeoutMs);
  if (deadlines === undefined) {
    deadlines = new Deadlines(timeoutMs);
    deadlinesByTimeout.set(timeoutMs, deadlines);
  }
  return deadlines;
}

/** Why a body could not be read; see {@linkcode readBody}. */
export type BodyProblem = "too large" | "too slow" | "failed" | "not UTF-8";

/**
 * Read `request`'s body as UTF-8 text, at most `maxBytes` of it and within
 * `timeoutMs`; a longer body, a slower one, a broken connection or bytes
 * that are not UTF-8 give the problem instead (the rest is not read).
 */
export async function readBody(
  request: Request,
  maxBytes: number,
  timeoutMs: number,
): Promise<string | BodyProblem> {
  const length = request.headers.get("content-length");
  if (length !== null && Number(length) > maxBytes) return "too large";
  if (length !== null && /^\d+$/.test(length)) {
    // The framing holds the body to its stated length, within the limit:
    // read it whole, without a stream (and its promise per chunk).
    return await readWhole(request, timeoutMs);
  }
  const body = request.body;
  if (body === null) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let late = false;
  const deadlines = deadlinesOf(timeoutMs);
  const pending = deadlines.add(() => {
    late = true;
    reader.cancel().catch(() => {});
  });
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        reader.cancel().catch(() => {});
        return "too large";
      }
      chunks.push(value);
    }
  } catch {
    return late ? "too slow" : "failed";
  } finally {
    deadlines.delete(pending);
  }
  if (late) return "too slow";
  let all = chunks[0] ?? new Uint8Array(0);
  if (chunks.length > 1) {
    all = new Uint8Array(size);
    let at = 0;
    for (const chunk of chunks) {
      all.set(chunk, at);
      at += chunk.byteLength;
    }
  }
  try {
    return utf8.decode(all);
  } catch {
    return "not UTF-8";
  }
}

async function readWhole(
  request: Request,
  timeoutMs: number,
): Promise<string | BodyProblem> {
  let expire: (late: "too slow") => void = () => {};
  const late = new Promise<"too slow">((resolve) => expire = resolve);
  const deadlines = deadlinesOf(timeoutMs);
  const pending = deadlines.add(() => expire("too slow"));
  const reading = request.bytes();
  // Past the deadline it is left to end with the connection.
  reading.catch(() => {});
  let bytes: Uint8Array | "too slow";
  try {
    bytes = await Promise.race([reading, late]);
  } catch {
    return "failed";
  } finally {
    deadlines.delete(pending);
  }
  if (bytes === "too slow") return bytes;
  try {
    return utf8.decode(bytes);
  } catch {
    return "not UTF-8";
  }
}

/**
 * Whether `accept` (an `Accept` header) admits the media type `type`
 * (`application/json`, `text/event-stream`), directly or by a wildcard.
 */
export function accepts(accept: string | null, type: string): boolean {
  if (accept === null || accept.trim() === "") return true;
  const [major] = type.split("/");
  for (const part of accept.split(",")) {
    const [range, ...params] = part.trim().toLowerCase().split(";");
    if (params.some((param) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(param))) {
      continue;
    }
    const media = range.trim();
    if (media === type || media === "*/*" || media === `${major}/*`) {
      return true;
    }
  }
  return false;
}
