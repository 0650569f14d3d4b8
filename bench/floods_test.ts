import { strict as assert } from "node:assert";
import type { FloodLine } from "./flood.ts";
import {
  listingPlan,
  missingPath,
  refusalProblem,
  toolSuccessProblem,
} from "./floods.ts";

function line(text: string, bytes = text.length): FloodLine {
  return { text, whole: bytes === text.length, bytes };
}

Deno.test("missingPath has the asked number of segments and differs per index", () => {
  const path = missingPath(7, 60);
  assert.equal(path.split("/").length, 60);
  assert.notEqual(missingPath(8, 60).split("/")[0], path.split("/")[0]);
});

Deno.test("toolSuccessProblem accepts a big result and names what else is wrong", () => {
  const ok = line('{"jsonrpc":"2.0","id":3,"result":{"content":[…]}}', 2e6);
  assert.equal(toolSuccessProblem(ok, 1e6), undefined);
  assert.match(toolSuccessProblem(ok, 3e6)!, /2000000-byte answer/);
  assert.match(
    toolSuccessProblem(
      line('{"jsonrpc":"2.0","id":3,"error":{"code":-32603}}'),
      1,
    )!,
    /error response/,
  );
  assert.match(
    toolSuccessProblem(
      line(
        '{"jsonrpc":"2.0","id":3,"result":{"content":[],"isError":true}}',
        2e6,
      ),
      1,
    )!,
    /tool error/,
  );
});

Deno.test("refusalProblem accepts tool and protocol errors, not internal ones", () => {
  assert.equal(
    refusalProblem(
      line('{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}'),
    ),
    undefined,
  );
  assert.equal(
    refusalProblem(
      line('{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"x"}}'),
    ),
    undefined,
  );
  assert.match(
    refusalProblem(
      line('{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"x"}}'),
    )!,
    /internal error/,
  );
  assert.match(
    refusalProblem(line('{"jsonrpc":"2.0","id":1,"result":{"content":[]}}'))!,
    /not refused/,
  );
});

function page(id: number, names: string[], cursor?: string): FloodLine {
  const result: Record<string, unknown> = {
    resources: names.map((name) => ({ uri: `file:///r/${name}`, name })),
  };
  if (cursor !== undefined) result.nextCursor = cursor;
  return line(JSON.stringify({ jsonrpc: "2.0", id, result }));
}

Deno.test("listingPlan follows the cursor and counts the files listed", () => {
  const plan = listingPlan(new Set(["a", "b", "c"]));
  const first = plan.onResponse(page(1, ["a", ".gitignore"], "next"));
  assert.equal(first.problem, undefined);
  assert.deepEqual(JSON.parse(first.next!), {
    jsonrpc: "2.0",
    id: 2,
    method: "resources/list",
    params: { cursor: "next" },
  });
  const last = plan.onResponse(page(2, ["b"]));
  assert.deepEqual(last, {});
  assert.equal(plan.listed(), 2);
  assert.equal(plan.progress!(), "2 of 3 files listed");
});

Deno.test("listingPlan refuses a file listed twice or one that is not there", () => {
  const plan = listingPlan(new Set(["a", "b"]));
  plan.onResponse(page(1, ["a"], "c1"));
  assert.match(plan.onResponse(page(2, ["a"])).problem!, /a listed twice/);
  assert.match(
    listingPlan(new Set(["a"])).onResponse(page(1, ["zz"])).problem!,
    /zz is not a file/,
  );
  assert.match(
    plan.onResponse(line('{"jsonrpc":"2.0","id":3,"error":{"code":-32602}}'))
      .problem!,
    /not a page/,
  );
});
