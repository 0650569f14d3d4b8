import assert from "node:assert/strict";
import {
  headInfo,
  type Http1Handler,
  type Http1Options,
  type Http1Server,
  parseHead,
  type RequestHead,
  serveHttp1,
} from "./http1.ts";
import { readUntil } from "./_test_utils.ts";

const encoder = new TextEncoder();

/** Run `body` with a server of `options` serving `handler`, then stop it. */
async function withServer(
  options: Omit<Http1Options, "port">,
  handler: Http1Handler,
  body: (server: Http1Server, port: number) => Promise<void>,
): Promise<void> {
  const server = serveHttp1({ port: 0, ...options }, handler);
  try {
    await body(server, server.addr.port);
  } finally {
    await server.shutdown();
  }
}

/** The echo handler: method, path, a header or two, the body. */
const echo: Http1Handler = async (request) => {
  const text = request.body === null ? "" : await request.text();
  return new Response(
    `${request.method} ${new URL(request.url).pathname} host=${
      request.headers.get("host")
    } body=${text}`,
    { headers: { "content-type": "text/plain" } },
  );
};

function connect(port: number): Promise<Deno.TcpConn> {
  return Deno.connect({ hostname: "127.0.0.1", port });
}

/** What `conn` receives until the server closes it (or resets it). */
async function readToEnd(conn: Deno.Conn): Promise<string> {
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(4096);
  let text = "";
  while (true) {
    let n: number | null;
    try {
      n = await conn.read(buffer);
    } catch {
      break;
    }
    if (n === null) break;
    text += decoder.decode(buffer.subarray(0, n), { stream: true });
  }
  return text;
}

/** Send `text` on a new connection; all it gets until closed. */
async function oneShot(port: number, text: string): Promise<string> {
  const conn = await connect(port);
  try {
    await conn.write(encoder.encode(text));
    return await readToEnd(conn);
  } finally {
    conn.close();
  }
}

/** Whether a response (head and body, Content-Length framed) is whole. */
function whole(text: string): boolean {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return false;
  const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, end));
  return length !== null && text.length >= end + 4 + Number(length[1]);
}

function head(text: string): RequestHead {
  const parsed = parseHead(text);
  assert.ok(!("status" in parsed), JSON.stringify(parsed));
  return parsed;
}

Deno.test("http1 parseHead: a request line and fields, names lower-cased, values trimmed", () => {
  assert.deepEqual(
    parseHead("POST /mcp?x=1 HTTP/1.1\r\nHost: a:1\r\nX-Thing: \t v w \t"),
    {
      method: "POST",
      target: "/mcp?x=1",
      minor: 1,
      fields: [["host", "a:1"], ["x-thing", "v w"]],
    },
  );
  assert.equal(head("GET http://a/b HTTP/1.0").minor, 0);
});

Deno.test("http1 parseHead: anything not exactly RFC 9112 is rejected with its status", () => {
  const cases: [string, number, RegExp][] = [
    ["GET /  HTTP/1.1", 400, /request line/],
    ["GET / HTTP/1.1 x", 400, /request line/],
    ["G(T / HTTP/1.1", 400, /method/],
    ["GET / HTTP/2.0", 505, /HTTP\/2\.0 is not served/],
    ["GET / HTTX/1.1", 400, /HTTP version/],
    ["GET mcp HTTP/1.1", 400, /target/],
    ["GET * HTTP/1.1", 400, /target/],
    ["GET https://a/ HTTP/1.1", 400, /target/],
    ["GET / HTTP/1.1\r\nHost: a\r\n folded", 400, /obs-fold/],
    ["GET / HTTP/1.1\r\nHost : a", 400, /not a token/],
    ["GET / HTTP/1.1\r\n: a", 400, /no name/],
    ["GET / HTTP/1.1\r\nHost a", 400, /no colon/],
    ["GET / HTTP/1.1\r\nHost: a\nX: b", 400, /bare CR or LF/],
    ["GET / HTTP/1.1\r\nHost: a\rX: b", 400, /bare CR or LF/],
    ["GET / HTTP/1.1\r\nHost: a\x00b", 400, /control character/],
  ];
  for (const [text, status, reason] of cases) {
    const parsed = parseHead(text);
    assert.ok("status" in parsed, JSON.stringify(text));
    assert.equal(parsed.status, status, JSON.stringify(text));
    assert.match(parsed.reason, reason, JSON.stringify(text));
  }
});

Deno.test("http1 headInfo: framing, host, keep-alive and 100-continue", () => {
  assert.deepEqual(
    headInfo(head("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 12")),
    {
      framing: { kind: "length", length: 12 },
      host: "a",
      keepAlive: true,
      expectContinue: false,
    },
  );
  assert.deepEqual(
    headInfo(
      head(
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\nExpect: 100-continue\r\nConnection: close",
      ),
    ),
    {
      framing: { kind: "chunked" },
      host: "a",
      keepAlive: false,
      expectContinue: true,
    },
  );
  const old = headInfo(head("GET / HTTP/1.0"));
  assert.ok(!("status" in old) && !old.keepAlive && old.host === null);
  const kept = headInfo(head("GET / HTTP/1.0\r\nConnection: Keep-Alive"));
  assert.ok(!("status" in kept) && kept.keepAlive);
  const absolute = headInfo(head("GET http://b:2/x HTTP/1.1\r\nHost: a"));
  assert.ok(!("status" in absolute) && absolute.host === "b:2");
});

Deno.test("http1 headInfo: ambiguous framing and bad hosts are rejected (request smuggling)", () => {
  const cases: [string, number, RegExp][] = [
    [
      "Content-Length: 3\r\nTransfer-Encoding: chunked",
      400,
      /both Content-Length and Transfer-Encoding/,
    ],
    ["Content-Length: 3\r\nContent-Length: 3", 400, /more than once/],
    ["Content-Length: 3, 3", 400, /one number/],
    ["Content-Length: +3", 400, /one number/],
    ["Content-Length: 0x3", 400, /one number/],
    ["Transfer-Encoding: gzip, chunked", 501, /gzip, chunked/],
    ["Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked", 501, /./],
    ["Transfer-Encoding: identity", 501, /identity/],
    ["Expect: something", 417, /100-continue/],
  ];
  for (const [fields, status, reason] of cases) {
    const info = headInfo(head(`POST / HTTP/1.1\r\nHost: a\r\n${fields}`));
    assert.ok("status" in info, fields);
    assert.equal(info.status, status, fields);
    assert.match(info.reason, reason, fields);
  }
  const hosts: [string, RegExp][] = [
    ["GET / HTTP/1.1", /needs a Host/],
    ["GET / HTTP/1.1\r\nHost: a\r\nHost: a", /more than once/],
    ["GET / HTTP/1.1\r\nHost: a/b", /not a host name/],
    ["GET / HTTP/1.1\r\nHost: a@b", /not a host name/],
    ["GET / HTTP/1.1\r\nHost: ", /not a host name/],
    ["GET / HTTP/1.0\r\nTransfer-Encoding: chunked", /HTTP\/1\.0/],
  ];
  for (const [text, reason] of hosts) {
    const info = headInfo(head(text));
    assert.ok("status" in info, text);
    assert.equal(info.status, 400, text);
    assert.match(info.reason, reason, text);
  }
});

Deno.test("http1: rejected requests get their status with Connection: close, and the server goes on", async () => {
  await withServer({}, echo, async (_server, port) => {
    const cases: [string, number][] = [
      ["GET / HTTP/1.1\nHost: a\n\n", 400],
      ["GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", 400],
      ["G@T / HTTP/1.1\r\nHost: a\r\n\r\n", 400],
      [
        "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        400,
      ],
      [
        "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx",
        400,
      ],
      ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: x\r\n\r\n", 400],
      [
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n",
        501,
      ],
      ["GET / HTTP/1.1\r\n\r\n", 400],
      ["GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505],
      ["TRACE / HTTP/1.1\r\nHost: a\r\n\r\n", 501],
      [`GET / HTTP/1.1\r\nHost: a\r\nX: ${"y".repeat(40_000)}\r\n\r\n`, 431],
    ];
    for (const [text, status] of cases) {
      const reply = await oneShot(port, text);
      assert.match(reply, new RegExp(`^HTTP/1\\.1 ${status} `), text);
      assert.match(reply, /\r\nconnection: close\r\n/, text);
    }
    const ok = await oneShot(
      port,
      "GET /fine HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
    );
    assert.match(ok, /^HTTP\/1\.1 200 OK\r\n/);
    assert.ok(ok.endsWith("GET /fine host=a body="));
  });
});

Deno.test("http1: a header block over the limit is 431 even before it ends", async () => {
  await withServer({ maxHeaderBytes: 1024 }, echo, async (_server, port) => {
    const reply = await oneShot(
      port,
      `GET / HTTP/1.1\r\nHost: a\r\nX: ${"y".repeat(2048)}`,
    );
    assert.match(reply, /^HTTP\/1\.1 431 /);
  });
});

Deno.test("http1: stalled headers are closed with 408 at the header deadline, whole or line by line, while others are served", async () => {
  await withServer(
    { headerTimeoutMs: 300 },
    echo,
    async (_server, port) => {
      // One byte, then nothing.
      const stalled = await connect(port);
      await stalled.write(encoder.encode("G"));
      // A header line every 100 ms: the deadline covers the whole block.
      const dribbled = await connect(port);
      await dribbled.write(encoder.encode("GET / HTTP/1.1\r\nHost: a\r\n"));
      let sent = 0;
      let closed = false;
      const dribbling = (async () => {
        // Far more lines than the deadline lets through.
        for (; sent < 200 && !closed; sent++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          try {
            await dribbled.write(encoder.encode(`X-Line-${sent}: y\r\n`));
          } catch {
            break;
          }
        }
      })();
      // Meanwhile others are served.
      const served = await oneShot(
        port,
        "GET /other HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
      );
      assert.match(served, /^HTTP\/1\.1 200 /);
      const cut = await readToEnd(dribbled);
      closed = true;
      await dribbling;
      assert.match(cut, /^HTTP\/1\.1 408 Request Timeout\r\n/);
      assert.match(cut, /\r\nconnection: close\r\n/);
      assert.ok(sent < 200, "the server closed the dribbling connection");
      dribbled.close();
      assert.match(await readToEnd(stalled), /^HTTP\/1\.1 408 /);
      stalled.close();
    },
  );
});

Deno.test("http1: after a 408, the rest of the late head is dropped, nothing is served, and the connection closes", async () => {
  const paths: string[] = [];
  await withServer(
    { headerTimeoutMs: 200 },
    (request) => {
      paths.push(new URL(request.url).pathname);
      return new Response("served\n");
    },
    async (server, port) => {
      const conn = await connect(port);
      await conn.write(encoder.encode("GET /late HTTP/1.1\r\nHost: a\r\n"));
      // The answer, then the end of the server's sending side.
      assert.match(await readToEnd(conn), /^HTTP\/1\.1 408 /);
      // The head's end, and a whole request after it, arrive late, and
      // the client stays: the server closes on its own.
      await conn.write(
        encoder.encode("\r\nGET /next HTTP/1.1\r\nHost: a\r\n\r\n"),
      );
      const started = performance.now();
      while (server.connections > 0 && performance.now() - started < 5_000) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      conn.close();
      assert.deepEqual(paths, []);
      assert.equal(server.connections, 0, "the connection is still open");
    },
  );
});

Deno.test("http1: a client that stops reading is closed at the write deadline, and its endless stream is cancelled", async () => {
  let cancelled = false;
  let sent = 0;
  const chunk = new Uint8Array(64 * 1024).fill(120);
  await withServer(
    { writeTimeoutMs: 300 },
    () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull: (controller) => {
            sent += chunk.byteLength;
            controller.enqueue(chunk);
          },
          cancel: () => {
            cancelled = true;
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      ),
    async (server, port) => {
      const conn = await connect(port);
      await conn.write(encoder.encode("GET / HTTP/1.1\r\nHost: a\r\n\r\n"));
      // Read nothing: the socket's buffers fill, and the write waits.
      const started = performance.now();
      while (
        (server.connections > 0 || !cancelled) &&
        performance.now() - started < 10_000
      ) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      conn.close();
      assert.ok(sent > 0);
      assert.equal(server.connections, 0, "the connection is still open");
      assert.ok(cancelled, "the response stream was not cancelled");
    },
  );
});

Deno.test("http1: a connection that sends nothing is closed silently at the header deadline", async () => {
  await withServer({ headerTimeoutMs: 100 }, echo, async (server, port) => {
    const silent = await connect(port);
    assert.equal(await readToEnd(silent), "");
    silent.close();
    assert.equal(server.connections, 0);
  });
});

Deno.test("http1: an idle keep-alive connection is closed at the keep-alive deadline", async () => {
  await withServer(
    { keepAliveTimeoutMs: 200 },
    echo,
    async (server, port) => {
      const conn = await connect(port);
      await conn.write(encoder.encode("GET /one HTTP/1.1\r\nHost: a\r\n\r\n"));
      const first = await readUntil(conn, whole);
      assert.match(first, /^HTTP\/1\.1 200 /);
      assert.doesNotMatch(first, /connection: close/);
      // Kept, then closed for idling: nothing more comes.
      assert.equal(await readToEnd(conn), "");
      conn.close();
      assert.equal(server.connections, 0);
    },
  );
});

Deno.test("http1: at the cap a new connection closes the least recently active one not serving a request, stream or idle; 503 only when all serve requests", async () => {
  const release = Promise.withResolvers<void>();
  let waiting = Promise.withResolvers<void>();
  const handler: Http1Handler = async (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/wait") {
      waiting.resolve();
      await release.promise;
    }
    if (path === "/events") {
      return new Response(new ReadableStream({}), {
        headers: { "content-type": "text/event-stream" },
      });
    }
    return await echo(request, { remoteAddr: undefined! });
  };
  await withServer({ maxConnections: 2 }, handler, async (server, port) => {
    // Whatever fails, the requests held are let go (shutdown waits).
    setTimeout(() => release.resolve(), 5_000);
    const get = (path: string) =>
      encoder.encode(`GET ${path} HTTP/1.1\r\nHost: a\r\n\r\n`);
    // Two connections: one streaming events, then one idle after its
    // answer (a client between two requests).
    const streaming = await connect(port);
    await streaming.write(get("/events"));
    assert.match(
      await readUntil(streaming, (t) => t.includes("\r\n\r\n")),
      /^HTTP\/1\.1 200 /,
    );
    const idle = await connect(port);
    await idle.write(get("/"));
    assert.match(await readUntil(idle, whole), /^HTTP\/1\.1 200 /);
    assert.equal(server.connections, 2);
    // A third: the stream, active before the idle one, makes room.
    const third = await connect(port);
    await third.write(get("/third"));
    assert.match(await readUntil(third, whole), /GET \/third/);
    assert.equal(await readToEnd(streaming), "");
    streaming.close();
    // A fourth: the idle one is now the least recently active.
    const fourth = await connect(port);
    await fourth.write(get("/wait"));
    await waiting.promise;
    waiting = Promise.withResolvers<void>();
    assert.equal(await readToEnd(idle), "");
    idle.close();
    // A fifth: the only one not serving a request is the third.
    const fifth = await connect(port);
    await fifth.write(get("/wait"));
    await waiting.promise;
    assert.equal(await readToEnd(third), "");
    third.close();
    assert.equal(server.evictions, 3);
    // Both serve requests now: a sixth is refused.
    const refused = await oneShot(port, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
      .catch(() => "");
    assert.ok(refused === "" || /^HTTP\/1\.1 503 /.test(refused), refused);
    release.resolve();
    assert.match(await readUntil(fourth, whole), /GET \/wait/);
    assert.match(await readUntil(fifth, whole), /GET \/wait/);
    fourth.close();
    fifth.close();
  });
});

Deno.test("http1: a chunked body is decoded (extensions and trailers dropped)", async () => {
  await withServer({}, echo, async (_server, port) => {
    const reply = await oneShot(
      port,
      "POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" +
        '5;name=value\r\nhello\r\n1 ; a ; b = "q \\" d"\r\n \r\nA;x\r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\n',
    );
    assert.match(reply, /^HTTP\/1\.1 200 /);
    assert.ok(reply.endsWith("body=hello 0123456789"), reply);
  });
});

Deno.test("http1: a broken chunked body fails the body read; the connection closes after the answer", async () => {
  await withServer({}, async (request) => {
    try {
      await request.text();
      return new Response("read");
    } catch {
      return new Response("failed", { status: 400 });
    }
  }, async (_server, port) => {
    for (
      const body of [
        "zz\r\nhello\r\n0\r\n\r\n",
        "5\r\nhello!!\r\n0\r\n\r\n",
        "5\nhello\r\n0\r\n\r\n",
        // Extensions and trailers that are not well formed.
        "5;\r\nhello\r\n0\r\n\r\n",
        "5;a=\x01\r\nhello\r\n0\r\n\r\n",
        '5;a="open\r\nhello\r\n0\r\n\r\n',
        "5;a b\r\nhello\r\n0\r\n\r\n",
        "5 \r\nhello\r\n0\r\n\r\n",
        "5\r\nhello\r\n0\r\nno colon\r\n\r\n",
        "5\r\nhello\r\n0\r\nX-T: \x01\r\n\r\n",
        "5\r\nhello\r\n0\r\n folded: x\r\n\r\n",
      ]
    ) {
      const reply = await oneShot(
        port,
        `POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n${body}`,
      );
      assert.match(reply, /^HTTP\/1\.1 400 /, body);
      assert.match(reply, /connection: close/, body);
      assert.ok(reply.endsWith("failed"), body);
    }
  });
});

Deno.test("http1: Expect: 100-continue gets 100 Continue when the body is first read", async () => {
  await withServer({}, echo, async (_server, port) => {
    const conn = await connect(port);
    await conn.write(
      encoder.encode(
        "POST /e HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n",
      ),
    );
    const go = await readUntil(conn, (text) => text.endsWith("\r\n\r\n"));
    assert.equal(go, "HTTP/1.1 100 Continue\r\n\r\n");
    await conn.write(encoder.encode("hello"));
    const reply = await readUntil(conn, whole);
    assert.match(reply, /^HTTP\/1\.1 200 /);
    assert.ok(reply.endsWith("body=hello"));
    conn.close();
  });
});

Deno.test("http1: a body that is not read is not asked for (no 100 Continue), and the connection closes after the answer", async () => {
  await withServer(
    {},
    () => new Response("no", { status: 401 }),
    async (_server, port) => {
      const reply = await oneShot(
        port,
        "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n",
      );
      assert.match(reply, /^HTTP\/1\.1 401 Unauthorized\r\n/);
      assert.doesNotMatch(reply, /100 Continue/);
      assert.match(reply, /connection: close/);
    },
  );
});

Deno.test("http1: HEAD gets the head with Content-Length and no body; 204 gets neither", async () => {
  await withServer(
    {},
    (request) =>
      new URL(request.url).pathname === "/none"
        ? new Response(null, { status: 204 })
        : new Response("ok\n"),
    async (_server, port) => {
      const conn = await connect(port);
      await conn.write(
        encoder.encode(
          "HEAD / HTTP/1.1\r\nHost: a\r\n\r\nGET /none HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
        ),
      );
      const replies = await readToEnd(conn);
      conn.close();
      const [first, second] = replies.split(/(?=HTTP\/1\.1 )/);
      assert.match(first, /^HTTP\/1\.1 200 OK\r\n/);
      assert.match(first, /\r\ncontent-length: 3\r\n/);
      assert.ok(first.endsWith("\r\n\r\n"));
      assert.match(second, /^HTTP\/1\.1 204 No Content\r\n/);
      assert.doesNotMatch(second, /content-length/);
    },
  );
});

Deno.test("http1: pipelined requests are answered in order", async () => {
  let slowFirst = Promise.withResolvers<void>();
  await withServer({}, async (request) => {
    const path = new URL(request.url).pathname;
    // The first waits until the second has come: order is the server's.
    if (path === "/1") await slowFirst.promise;
    return new Response(path);
  }, async (_server, port) => {
    const conn = await connect(port);
    await conn.write(
      encoder.encode(
        "GET /1 HTTP/1.1\r\nHost: a\r\n\r\nPOST /2 HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhiGET /3 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
      ),
    );
    setTimeout(() => slowFirst.resolve(), 50);
    const replies = await readToEnd(conn);
    conn.close();
    const bodies = replies.split(/(?=HTTP\/1\.1 )/).map((reply) =>
      reply.slice(reply.indexOf("\r\n\r\n") + 4)
    );
    assert.deepEqual(bodies, ["/1", "/2", "/3"]);
  });
  slowFirst = Promise.withResolvers<void>();
});

Deno.test("http1: HTTP/1.0 is closed after its response unless it asks for keep-alive", async () => {
  await withServer({}, echo, async (_server, port) => {
    const closed = await oneShot(port, "GET /old HTTP/1.0\r\n\r\n");
    assert.match(closed, /^HTTP\/1\.1 200 /);
    assert.match(closed, /connection: close/);
    assert.match(closed, /host=null /);
    const conn = await connect(port);
    await conn.write(
      encoder.encode("GET /k HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"),
    );
    const kept = await readUntil(conn, whole);
    assert.match(kept, /\r\nconnection: keep-alive\r\n/);
    await conn.write(encoder.encode("GET /k2 HTTP/1.0\r\n\r\n"));
    assert.match(await readToEnd(conn), /GET \/k2/);
    conn.close();
  });
});

Deno.test("http1: an absolute-form target's authority is the Host the handler sees", async () => {
  await withServer({}, echo, async (_server, port) => {
    const reply = await oneShot(
      port,
      "GET http://b.example:8/p HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
    );
    assert.ok(reply.endsWith("GET /p host=b.example:8 body="), reply);
  });
});

Deno.test("http1: an event stream is sent chunked, each event at once, and cancelled when the client goes away", async () => {
  const cancelled = Promise.withResolvers<void>();
  const aborted = Promise.withResolvers<void>();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  await withServer({}, (request) => {
    request.signal.addEventListener("abort", () => aborted.resolve());
    return new Response(
      new ReadableStream<Uint8Array>({
        start: (c) => {
          controller = c;
          c.enqueue(encoder.encode("data: one\n\n"));
        },
        cancel: () => cancelled.resolve(),
      }),
      { headers: { "content-type": "text/event-stream" } },
    );
  }, async (_server, port) => {
    const conn = await connect(port);
    await conn.write(encoder.encode("GET /sse HTTP/1.1\r\nHost: a\r\n\r\n"));
    // The first event comes before the second is made.
    const first = await readUntil(conn, (text) => text.endsWith("one\n\n\r\n"));
    assert.match(first, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(first, /\r\ntransfer-encoding: chunked\r\n/);
    assert.doesNotMatch(first, /content-length/);
    assert.ok(first.endsWith("\r\n\r\nb\r\ndata: one\n\n\r\n"));
    controller.enqueue(encoder.encode("data: two\n\n"));
    const second = await readUntil(
      conn,
      (text) => text.endsWith("two\n\n\r\n"),
    );
    assert.equal(second, "b\r\ndata: two\n\n\r\n");
    conn.close();
    await cancelled.promise;
    await aborted.promise;
  });
});

Deno.test("http1: a stream that ends gets the last chunk, and the connection serves on", async () => {
  await withServer(
    {},
    (request) =>
      new URL(request.url).pathname === "/s"
        ? new Response(
          new ReadableStream({
            start(c) {
              c.enqueue(encoder.encode("data: x\n\n"));
              c.close();
            },
          }),
          { headers: { "content-type": "text/event-stream" } },
        )
        : new Response("next"),
    async (_server, port) => {
      const conn = await connect(port);
      await conn.write(
        encoder.encode(
          "GET /s HTTP/1.1\r\nHost: a\r\n\r\nGET /n HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
        ),
      );
      const replies = await readToEnd(conn);
      conn.close();
      assert.match(
        replies,
        /\r\n\r\n9\r\ndata: x\n\n\r\n0\r\n\r\nHTTP\/1\.1 200 /,
      );
      assert.ok(replies.endsWith("next"));
    },
  );
});

Deno.test("http1: a handler that throws gets onError's response", async () => {
  const errors: unknown[] = [];
  await withServer({
    onError: (error) => {
      errors.push(error);
      return new Response("sorry", { status: 500 });
    },
  }, () => {
    throw new Error("boom");
  }, async (_server, port) => {
    const reply = await oneShot(
      port,
      "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
    );
    assert.match(reply, /^HTTP\/1\.1 500 Internal Server Error\r\n/);
    assert.ok(reply.endsWith("sorry"));
    assert.equal((errors[0] as Error).message, "boom");
  });
});

Deno.test("http1: the handler gets the client's address", async () => {
  await withServer(
    {},
    (_request, info) => new Response(`${info.remoteAddr.hostname}`),
    async (_server, port) => {
      const reply = await oneShot(
        port,
        "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
      );
      assert.ok(reply.endsWith("127.0.0.1"));
    },
  );
});

Deno.test("http1: shutdown closes idle connections at once, finishes the request in flight, then resolves", async () => {
  const release = Promise.withResolvers<void>();
  const started = Promise.withResolvers<void>();
  const server = serveHttp1(
    { port: 0, keepAliveTimeoutMs: 60_000 },
    async () => {
      started.resolve();
      await release.promise;
      return new Response("finished");
    },
  );
  const port = server.addr.port;
  const idle = await connect(port);
  const busy = await connect(port);
  await busy.write(encoder.encode("GET / HTTP/1.1\r\nHost: a\r\n\r\n"));
  await started.promise;
  let done = false;
  const stopping = server.shutdown().then(() => done = true);
  // The idle one is closed without waiting for the busy one.
  assert.equal(await readToEnd(idle), "");
  idle.close();
  assert.equal(done, false);
  release.resolve();
  const reply = await readToEnd(busy);
  busy.close();
  assert.match(reply, /^HTTP\/1\.1 200 /);
  assert.match(reply, /connection: close/);
  assert.ok(reply.endsWith("finished"));
  await stopping;
  await server.finished;
  await assert.rejects(connect(port));
});

Deno.test("http1: options out of range are refused", () => {
  assert.throws(
    () => serveHttp1({ port: 0, headerTimeoutMs: 0 }, echo),
    /headerTimeoutMs must be/,
  );
  assert.throws(
    () => serveHttp1({ port: 0, keepAliveTimeoutMs: 2 ** 31 }, echo),
    /keepAliveTimeoutMs must be/,
  );
  assert.throws(
    () => serveHttp1({ port: 0, writeTimeoutMs: -1 }, echo),
    /writeTimeoutMs must be/,
  );
  assert.throws(
    () => serveHttp1({ port: 0, maxConnections: 0 }, echo),
    /maxConnections must be/,
  );
});

Deno.test("http1: large bodies, by length and chunked, arrive whole through the stream", async () => {
  const size = 1_000_000;
  await withServer({}, async (request) => {
    const bytes = await request.bytes();
    let sum = 0;
    for (const byte of bytes) sum = (sum + byte) % 65_521;
    return new Response(`${bytes.byteLength} ${sum}`);
  }, async (_server, port) => {
    const body = new Uint8Array(size).map((_, i) => i % 251);
    let want = 0;
    for (const byte of body) want = (want + byte) % 65_521;
    const conn = await connect(port);
    await conn.write(
      encoder.encode(
        `POST / HTTP/1.1\r\nHost: a\r\nContent-Length: ${size}\r\n\r\n`,
      ),
    );
    // In pieces, so that the server reads most of it after the head.
    for (let at = 0; at < size; at += 100_000) {
      await conn.write(body.subarray(at, at + 100_000));
    }
    assert.ok((await readUntil(conn, whole)).endsWith(`${size} ${want}`));
    // The same connection, chunked, in chunks of 65,536 bytes.
    await conn.write(
      encoder.encode(
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
      ),
    );
    for (let at = 0; at < size; at += 65_536) {
      const chunk = body.subarray(at, at + 65_536);
      await conn.write(encoder.encode(`${chunk.byteLength.toString(16)}\r\n`));
      await conn.write(chunk);
      await conn.write(encoder.encode("\r\n"));
    }
    await conn.write(encoder.encode("0\r\n\r\n"));
    assert.ok((await readToEnd(conn)).endsWith(`${size} ${want}`));
    conn.close();
  });
});

Deno.test("http1: a refused request is answered even when much unread input follows it", async () => {
  await withServer({}, echo, async (_server, port) => {
    const conn = await connect(port);
    const writing = conn.write(
      encoder.encode(`GET / HTTP/1.1\nHost: a\n\n${"x".repeat(200_000)}`),
    ).catch(() => 0);
    const reply = await readToEnd(conn);
    await writing;
    conn.close();
    assert.match(reply, /^HTTP\/1\.1 400 Bad Request\r\n/);
    assert.match(reply, /bare LF/);
  });
});

Deno.test("http1: response bodies are sent exactly: text through the pooled buffer or past it, bytes as they are", async () => {
  const big = JSON.stringify({ text: "é".repeat(20_000) });
  const binary = Uint8Array.from({ length: 256 }, (_, i) => i);
  await withServer({}, (request) => {
    switch (new URL(request.url).pathname) {
      case "/big":
        return new Response(big, {
          headers: { "content-type": "application/json" },
        });
      case "/binary":
        return new Response(binary, {
          headers: { "content-type": "application/octet-stream" },
        });
      case "/latin1":
        // A head with bytes over 0x7F (latin-1, one byte each).
        return new Response('{"ok":true}', {
          headers: {
            "content-type": "application/json",
            "x-name": "caf\u00e9 \u00ff",
          },
        });
      default:
        // A head larger than the room kept for it.
        return new Response('{"ok":true}', {
          headers: {
            "content-type": "application/json",
            "x-long": "z".repeat(3_000),
          },
        });
    }
  }, async (_server, port) => {
    const fetched = async (path: string) => {
      const response = await fetch(`http://127.0.0.1:${port}${path}`);
      return new Uint8Array(await response.arrayBuffer());
    };
    assert.deepEqual(await fetched("/big"), new TextEncoder().encode(big));
    assert.deepEqual(await fetched("/binary"), binary);
    const latin = await fetch(`http://127.0.0.1:${port}/latin1`);
    assert.equal(latin.headers.get("x-name"), "caf\u00e9 \u00ff");
    assert.equal(await latin.text(), '{"ok":true}');
    assert.equal(
      new TextDecoder().decode(await fetched("/long")),
      '{"ok":true}',
    );
  });
});

Deno.test("http1: a method in another case (delete, head, Get) is 501, never run as DELETE, HEAD or GET; others keep their case", async () => {
  for (const method of ["delete", "head", "Get", "post", "options", "put"]) {
    const parsed = parseHead(`${method} / HTTP/1.1\r\nHost: a`);
    assert.ok("status" in parsed, method);
    assert.equal(parsed.status, 501, method);
    assert.match(parsed.reason, /case-sensitive/);
    assert.match(parsed.reason, new RegExp(`send ${method.toUpperCase()}\\.`));
  }
  // A method Request does not normalize keeps its case: the handler sees it.
  assert.equal(head("patch / HTTP/1.1\r\nHost: a").method, "patch");
  await withServer({}, echo, async (_server, port) => {
    for (const method of ["delete", "head"]) {
      const answer = await oneShot(
        port,
        `${method} /mcp HTTP/1.1\r\nHost: a\r\n\r\n`,
      );
      assert.match(answer, /^HTTP\/1\.1 501 /, method);
      assert.match(answer, /connection: close/);
      // The handler never ran (it would echo "host=").
      assert.doesNotMatch(answer, /host=/);
    }
  });
});

Deno.test("http1: Connection: close wins over keep-alive, on HTTP/1.0 too (RFC 9112 §9.3)", async () => {
  for (
    const value of [
      "close, keep-alive",
      "keep-alive, close",
      "Keep-Alive, Close",
    ]
  ) {
    for (const version of ["1.0", "1.1"]) {
      const info = headInfo(
        head(`GET / HTTP/${version}\r\nHost: a\r\nConnection: ${value}`),
      );
      assert.ok(!("status" in info) && !info.keepAlive, `${version} ${value}`);
    }
  }
  await withServer({}, echo, async (_server, port) => {
    // The server closes after the answer: oneShot returns at all.
    const answer = await oneShot(
      port,
      "GET /old HTTP/1.0\r\nConnection: close, keep-alive\r\n\r\n",
    );
    assert.match(answer, /^HTTP\/1\.1 200 /);
    assert.match(answer, /\r\nconnection: close\r\n/);
  });
});
