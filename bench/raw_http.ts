/**
 * A minimal HTTP/1.1 client over one TCP connection, for the bench's
 * attacks (`attacks.ts`): it can send a request and read its whole answer
 * (by `Content-Length`, chunks, or to the end), read only the head of an
 * answer and then stop reading (a client that never reads its stream), or
 * write a request and hang up at once. Nothing is buffered beyond what a
 * read asks for, so a client that stops reading leaves the bytes in the
 * kernel's socket buffers, as a real one does.
 *
 * Every operation is bounded: a connection is closed when its `signal`
 * aborts, which fails whatever waits on it.
 *
 * @module
 */

/** A response: status, lower-case header names, body as text. */
export interface Reply {
  /** The status code. */
  status: number;
  /** The headers, names in lower case. */
  headers: Map<string, string>;
  /** The body (empty when only the head was read). */
  body: string;
}

/** Where a server listens, from its URL. */
export interface Address {
  /** Host name or address, say `127.0.0.1`. */
  hostname: string;
  /** Port. */
  port: number;
}

/** The host and port of `url`. */
export function addressOf(url: string): Address {
  const parsed = new URL(url);
  return { hostname: parsed.hostname, port: Number(parsed.port) };
}

const encoder = new TextEncoder();

/** The bytes of one request: head, `content-length` when there is a body. */
export function requestBytes(
  method: string,
  path: string,
  address: Address,
  headers: Record<string, string>,
  body = "",
): Uint8Array {
  const payload = encoder.encode(body);
  let head =
    `${method} ${path} HTTP/1.1\r\nhost: ${address.hostname}:${address.port}\r\n`;
  for (const [name, value] of Object.entries(headers)) {
    head += `${name}: ${value}\r\n`;
  }
  if (method === "POST" || payload.length > 0) {
    head += `content-length: ${payload.length}\r\n`;
  }
  head += "\r\n";
  const bytes = new Uint8Array(head.length + payload.length);
  encoder.encodeInto(head, bytes);
  bytes.set(payload, head.length);
  return bytes;
}

/** One keep-alive connection; see the module documentation. */
export class RawConnection {
  readonly #conn: Deno.TcpConn;
  #buffer = new Uint8Array(16 * 1024);
  #start = 0;
  #end = 0;
  #closed = false;
  readonly #decoder = new TextDecoder();
  readonly #onAbort = () => this.close();
  readonly #signal: AbortSignal | undefined;

  private constructor(conn: Deno.TcpConn, signal?: AbortSignal) {
    this.#conn = conn;
    this.#signal = signal;
    signal?.addEventListener("abort", this.#onAbort, { once: true });
  }

  /** Connect to `address`; closed when `signal` aborts. */
  static async open(
    address: Address,
    signal?: AbortSignal,
  ): Promise<RawConnection> {
    signal?.throwIfAborted();
    const conn = await Deno.connect(address);
    if (signal?.aborted) {
      conn.close();
      signal.throwIfAborted();
    }
    return new RawConnection(conn, signal);
  }

  /** Whether the connection was closed (by us or by an abort). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Close the connection (again is harmless). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#signal?.removeEventListener("abort", this.#onAbort);
    try {
      this.#conn.close();
    } catch { /* closed already */ }
  }

  /** Write all of `bytes`. */
  async write(bytes: Uint8Array): Promise<void> {
    for (let written = 0; written < bytes.length;) {
      written += await this.#conn.write(bytes.subarray(written));
    }
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
    const n = await this.#conn.read(this.#buffer.subarray(this.#end));
    if (n === null) return false;
    this.#end += n;
    return true;
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

  async #take(length: number): Promise<Uint8Array> {
    while (this.#end - this.#start < length) {
      if (!await this.#fill()) throw new Error("the connection closed early");
    }
    const bytes = this.#buffer.slice(this.#start, this.#start + length);
    this.#start += length;
    return bytes;
  }

  /** Read a response's status line and headers (not its body). */
  async readHead(): Promise<Reply> {
    const status = Number((await this.#line()).split(" ")[1]);
    const headers = new Map<string, string>();
    for (
      let line = await this.#line();
      line !== "";
      line = await this.#line()
    ) {
      const colon = line.indexOf(":");
      headers.set(
        line.slice(0, colon).trim().toLowerCase(),
        line.slice(colon + 1).trim(),
      );
    }
    return { status, headers, body: "" };
  }

  /** Read the body that `head` announces, to its end. */
  async readBody(head: Reply): Promise<string> {
    const length = head.headers.get("content-length");
    if (length !== undefined) {
      return this.#decoder.decode(await this.#take(Number(length)));
    }
    if (head.headers.get("transfer-encoding")?.includes("chunked")) {
      const parts: string[] = [];
      for (;;) {
        const size = parseInt(await this.#line(), 16);
        if (!(size > 0)) {
          while ((await this.#line()) !== "");
          return parts.join("");
        }
        parts.push(this.#decoder.decode(await this.#take(size)));
        await this.#line();
      }
    }
    if ([204, 304].includes(head.status) || head.status < 200) return "";
    while (await this.#fill());
    const text = this.#decoder.decode(
      this.#buffer.subarray(this.#start, this.#end),
    );
    this.#start = this.#end;
    return text;
  }

  /** Send a request and read its whole answer. */
  async request(
    method: string,
    path: string,
    address: Address,
    headers: Record<string, string>,
    body = "",
  ): Promise<Reply> {
    await this.write(requestBytes(method, path, address, headers, body));
    const head = await this.readHead();
    head.body = await this.readBody(head);
    if (head.headers.get("connection")?.toLowerCase() === "close") {
      this.close();
    }
    return head;
  }
}
