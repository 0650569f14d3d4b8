import { strict as assert } from "node:assert";
import { findAnswer, percentile } from "./http_load.ts";

Deno.test("percentile: nearest rank of a sorted sample", () => {
  const sorted = Float64Array.from({ length: 100 }, (_, i) => i + 1);
  assert.equal(percentile(sorted, 50), 50);
  assert.equal(percentile(sorted, 99), 99);
  assert.equal(percentile(sorted, 100), 100);
  assert.equal(percentile([7], 99), 7);
  assert.equal(percentile([1, 2, 3], 50), 2);
  assert.ok(Number.isNaN(percentile([], 50)));
});

Deno.test("findAnswer: the message with the id, from a JSON body or an SSE stream", () => {
  const answer = { jsonrpc: "2.0", id: 3, result: { content: [] } };
  assert.deepEqual(
    findAnswer(JSON.stringify(answer), "application/json", 3),
    answer,
  );
  assert.equal(
    findAnswer(JSON.stringify(answer), "application/json", 4),
    undefined,
  );
  const stream = [
    "id: 1",
    "data: ",
    "",
    "event: message",
    `data: ${
      JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: {},
      })
    }`,
    "",
    "event: message",
    `data: ${JSON.stringify(answer)}`,
    "",
  ].join("\r\n");
  assert.deepEqual(
    findAnswer(stream, "text/event-stream; charset=utf-8", 3),
    answer,
  );
  assert.deepEqual(
    findAnswer(JSON.stringify([{ jsonrpc: "2.0", id: 1 }, answer]), "", 3),
    answer,
  );
  assert.equal(findAnswer("not json", "application/json", 3), undefined);
});
