import { strict as assert } from "node:assert";
import { RpcError } from "./jsonrpc.ts";
import {
  gatheredResponses,
  InputCollector,
  openRequestState,
  REQUEST_STATE_TTL_MS,
  requestDigest,
  sealRequestState,
  setRequestStateKey,
} from "./mrtr.ts";

const PARAMS = { name: "ask", arguments: { q: "x" } };
const STATE = { responses: { sampling_1: { model: "m" } }, asked: ["roots_1"] };

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof RpcError);
    assert.equal(error.code, -32602);
    return error.message;
  }
  assert.fail("the state was accepted");
}

Deno.test("mrtr: sealed request state opens again, on the same request", async () => {
  const sealed = await sealRequestState("tools/call", PARAMS, STATE);
  assert.deepEqual(await openRequestState(sealed, "tools/call", PARAMS), STATE);
  // _meta, inputResponses and requestState are not part of the request.
  const retry = {
    ...PARAMS,
    _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" },
    inputResponses: { roots_1: { roots: [] } },
    requestState: sealed,
  };
  assert.deepEqual(await openRequestState(sealed, "tools/call", retry), STATE);
});

Deno.test("mrtr: altered, foreign, expired or misplaced state is refused", async () => {
  const now = 1_000_000;
  const sealed = await sealRequestState("tools/call", PARAMS, STATE, now);
  const [body, mac] = sealed.split(".");
  // A changed payload (more answers, say) fails the signature.
  const forged = btoa(JSON.stringify({
    m: "tools/call",
    d: await requestDigest("tools/call", PARAMS),
    e: now + 1e9,
    r: { sampling_1: { model: "evil" } },
    k: [],
  })).replaceAll("=", "");
  assert.match(
    await refusal(
      openRequestState(`${forged}.${mac}`, "tools/call", PARAMS, now),
    ),
    /failed verification/,
  );
  // One changed character of the signature (the first: the last one of
  // base64url also carries bits that decoding drops).
  const flipped = (mac.startsWith("A") ? "B" : "A") + mac.slice(1);
  assert.match(
    await refusal(
      openRequestState(`${body}.${flipped}`, "tools/call", PARAMS, now),
    ),
    /failed verification/,
  );
  assert.match(
    await refusal(openRequestState("no-dot", "tools/call", PARAMS, now)),
    /malformed/,
  );
  assert.match(
    await refusal(openRequestState(42, "tools/call", PARAMS, now)),
    /must be a string/,
  );
  assert.match(
    await refusal(
      openRequestState(
        sealed,
        "tools/call",
        PARAMS,
        now + REQUEST_STATE_TTL_MS + 1,
      ),
    ),
    /expired/,
  );
  assert.match(
    await refusal(openRequestState(sealed, "prompts/get", PARAMS, now)),
    /another request/,
  );
  assert.match(
    await refusal(
      openRequestState(sealed, "tools/call", {
        ...PARAMS,
        arguments: { q: "y" },
      }, now),
    ),
    /another request/,
  );
  // Under another key (another server, or a restarted one): refused.
  setRequestStateKey(new Uint8Array(32).fill(7));
  assert.match(
    await refusal(openRequestState(sealed, "tools/call", PARAMS, now)),
    /failed verification/,
  );
  assert.throws(() => setRequestStateKey(new Uint8Array(8)), RangeError);
});

Deno.test("mrtr: a shared key lets another instance open the state", async () => {
  const key = crypto.getRandomValues(new Uint8Array(32));
  setRequestStateKey(key);
  const sealed = await sealRequestState("tools/call", PARAMS, STATE);
  setRequestStateKey(crypto.getRandomValues(new Uint8Array(32)));
  setRequestStateKey(key);
  assert.deepEqual(await openRequestState(sealed, "tools/call", PARAMS), STATE);
});

Deno.test("mrtr: a retry's answers are the state's and those asked for", () => {
  assert.deepEqual(
    gatheredResponses(STATE, {
      roots_1: { roots: [] },
      sampling_2: { model: "unasked" },
    }),
    { sampling_1: { model: "m" }, roots_1: { roots: [] } },
  );
  // Without state, answers the server never asked for are not taken.
  assert.deepEqual(gatheredResponses(undefined, { roots_1: {} }), {});
});

Deno.test("mrtr: input keys count per method, so rounds find their answers", async () => {
  const first = new InputCollector({});
  let needed = false;
  first.firstNeed.then(() => needed = true);
  assert.equal(
    first.take("sampling/createMessage", { maxTokens: 1 }),
    undefined,
  );
  assert.equal(first.take("roots/list", undefined), undefined);
  assert.equal(
    first.take("sampling/createMessage", { maxTokens: 2 }),
    undefined,
  );
  await Promise.resolve();
  assert.ok(needed);
  assert.deepEqual([...first.needed], [
    ["sampling_1", {
      method: "sampling/createMessage",
      params: { maxTokens: 1 },
    }],
    ["roots_1", { method: "roots/list" }],
    ["sampling_2", {
      method: "sampling/createMessage",
      params: { maxTokens: 2 },
    }],
  ]);
  const second = new InputCollector({ sampling_1: { model: "a" } });
  assert.deepEqual(second.take("sampling/createMessage", {}), { model: "a" });
  assert.equal(second.take("sampling/createMessage", {}), undefined);
  assert.deepEqual([...second.needed.keys()], ["sampling_2"]);
});
