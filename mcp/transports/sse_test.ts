import { strict as assert } from "node:assert";
import {
  encodeEvent,
  encodeJsonEvent,
  parseEventId,
  SseStream,
} from "./sse.ts";

async function text(body: ReadableStream<Uint8Array>): Promise<string> {
  return await new Response(body).text();
}

Deno.test("encodeEvent: id, retry and data lines; line breaks split into data lines", () => {
  assert.equal(
    encodeEvent("1_2", "{}"),
    "id: 1_2\nevent: message\ndata: {}\n\n",
  );
  assert.equal(encodeEvent("1_1", "", 500), "id: 1_1\nretry: 500\ndata: \n\n");
  assert.equal(
    encodeEvent(undefined, "a\nb\r\nc"),
    "event: message\ndata: a\ndata: b\ndata: c\n\n",
  );
});

Deno.test("parseEventId: our ids only", () => {
  assert.deepEqual(parseEventId("12_34"), { stream: "12", seq: 34 });
  assert.deepEqual(parseEventId("a_b_7"), { stream: "a_b", seq: 7 });
  for (const bad of ["", "_1", "12", "12_", "12_x", "1_1234567890123456"]) {
    assert.equal(parseEventId(bad), undefined, bad);
  }
});

Deno.test("SseStream: events written while detached are replayed after the id given, within the bound", async () => {
  const stream = new SseStream("s", { maxEvents: 3 });
  const first = stream.attach();
  stream.write("a");
  stream.detach();
  assert.equal(await text(first), encodeEvent("s_1", "a"));
  for (const data of ["b", "c", "d", "e"]) stream.write(data);
  assert.equal(stream.delivered, false);
  // Only the last three are kept: s_3, s_4, s_5.
  const resumed = stream.attach({ after: 1 });
  stream.end();
  assert.equal(
    await text(resumed),
    ["c", "d", "e"].map((d, i) => encodeEvent(`s_${i + 3}`, d)).join(""),
  );
});

Deno.test("SseStream: a fresh attach with undelivered sends what no client got, then primes", async () => {
  const stream = new SseStream("0");
  stream.write("x");
  const body = stream.attach({ undelivered: true, prime: true, retryMs: 10 });
  stream.end();
  assert.equal(
    await text(body),
    encodeEvent("0_1", "x") + encodeEvent("0_2", "", 10),
  );
});

Deno.test("SseStream: disconnect closes the client's response with a retry, and the stream goes on", async () => {
  const stream = new SseStream("p");
  let detached = 0;
  stream.onDetach = () => detached++;
  const body = stream.attach({ prime: true });
  stream.disconnect(250);
  assert.equal(
    await text(body),
    encodeEvent("p_1", "") + encodeEvent("p_2", "", 250),
  );
  assert.equal(detached, 1);
  assert.equal(stream.ended, false);
  stream.write("late");
  const again = stream.attach({ after: 2 });
  stream.end();
  assert.equal(await text(again), encodeEvent("p_3", "late"));
});

Deno.test("SseStream: a client that takes nothing is detached past the queue bound, and resumes with what it missed", async () => {
  const stream = new SseStream("q", { maxQueuedBytes: 1_000 });
  let detached = 0;
  stream.onDetach = () => detached++;
  const body = stream.attach();
  const reader = body.getReader();
  // Taken at once: the queue is empty again.
  stream.write("first");
  const first = await reader.read();
  assert.equal(
    new TextDecoder().decode(first.value),
    encodeEvent("q_1", "first"),
  );
  // Then nothing is read: 20 events of about 100 bytes go past the bound.
  const data = "x".repeat(60);
  for (let i = 0; i < 20; i++) stream.write(data);
  assert.equal(stream.attached, false);
  assert.equal(detached, 1);
  assert.equal(stream.delivered, false);
  await assert.rejects(reader.read(), /took none of the last 1000 bytes/);
  // A fresh attach for what no client got replays all 20, from q_2.
  const again = stream.attach({ undelivered: true });
  stream.end();
  const replayed = await text(again);
  assert.equal(
    replayed,
    Array.from({ length: 20 }, (_, i) => encodeEvent(`q_${i + 2}`, data))
      .join(""),
  );
});

Deno.test("encodeJsonEvent: a JSON text is the one data line encodeEvent makes of it", () => {
  for (const json of ['{"a":"x\\ny\\r"}', "{}", '"\u2028"']) {
    assert.equal(encodeJsonEvent("1_2", json), encodeEvent("1_2", json));
    assert.equal(
      encodeJsonEvent(undefined, json),
      encodeEvent(undefined, json),
    );
  }
});
