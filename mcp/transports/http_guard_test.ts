import { strict as assert } from "node:assert";
import {
  accepts,
  bearerMatches,
  defaultAllowedHosts,
  defaultAllowedOrigins,
  hostAllowed,
  originAllowed,
  readBody,
} from "./http_guard.ts";

Deno.test("hostAllowed: loopback names with the port by default; an entry without a port takes any", () => {
  const allowed = [...defaultAllowedHosts("127.0.0.1", 8080), "mcp.example"];
  for (
    const host of [
      "localhost:8080",
      "127.0.0.1:8080",
      "[::1]:8080",
      "LOCALHOST:8080",
      "mcp.example:443",
      "mcp.example",
    ]
  ) {
    assert.ok(hostAllowed(host, allowed), host);
  }
  for (
    const host of ["localhost:8081", "evil.example:8080", "127.0.0.1", "", null]
  ) {
    assert.ok(!hostAllowed(host, allowed), String(host));
  }
  assert.ok(
    hostAllowed("10.0.0.5:9000", defaultAllowedHosts("10.0.0.5", 9000)),
  );
  assert.ok(hostAllowed("[::1]:9000", defaultAllowedHosts("::1", 9000)));
  assert.ok(!hostAllowed("0.0.0.0:9000", defaultAllowedHosts("0.0.0.0", 9000)));
});

Deno.test("originAllowed: absent is fine; otherwise exact, case-insensitive", () => {
  const allowed = defaultAllowedOrigins("127.0.0.1", 8080);
  assert.ok(originAllowed(null, allowed));
  assert.ok(originAllowed("http://localhost:8080", allowed));
  assert.ok(originAllowed("HTTP://127.0.0.1:8080/", allowed));
  assert.ok(!originAllowed("http://localhost:8081", allowed));
  assert.ok(!originAllowed("https://localhost:8080", allowed));
  assert.ok(!originAllowed("null", allowed));
  assert.ok(!originAllowed("http://evil.example", allowed));
});

Deno.test("bearerMatches: the exact token only", () => {
  assert.ok(bearerMatches("Bearer abc", "abc"));
  assert.ok(bearerMatches("bearer   abc", "abc"));
  for (
    const header of [
      null,
      "",
      "Bearer",
      "Bearer ",
      "Bearer ab",
      "Bearer abcd",
      "Bearer abd",
      "Basic abc",
      "abc",
    ]
  ) {
    assert.ok(!bearerMatches(header, "abc"), String(header));
  }
});

Deno.test("accepts: media types, wildcards, q=0 refusals; no header accepts all", () => {
  assert.ok(accepts(null, "application/json"));
  assert.ok(
    accepts("application/json, text/event-stream", "text/event-stream"),
  );
  assert.ok(accepts("*/*", "application/json"));
  assert.ok(accepts("text/*;q=0.5", "text/event-stream"));
  assert.ok(!accepts("text/html", "application/json"));
  assert.ok(!accepts("application/json;q=0", "application/json"));
});

Deno.test("readBody: bodies that stall each end as too slow, whenever they started; those that arrive are read", async () => {
  const stalled = () =>
    new Request("http://127.0.0.1/mcp", {
      method: "POST",
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("{"));
        },
      }),
    });
  const whole = (text: string) =>
    new Request("http://127.0.0.1/mcp", { method: "POST", body: text });
  const reads: Promise<string>[] = [];
  for (let i = 0; i < 3; i++) {
    reads.push(readBody(stalled(), 1024, 200));
    assert.equal(await readBody(whole(`{"n":${i}}`), 1024, 200), `{"n":${i}}`);
    // Started at different times: each has its own deadline.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.deepEqual(await Promise.all(reads), [
    "too slow",
    "too slow",
    "too slow",
  ]);
  assert.equal(await readBody(whole("x".repeat(2000)), 1024, 200), "too large");
});
