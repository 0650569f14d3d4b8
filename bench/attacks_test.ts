import { strict as assert } from "node:assert";
import {
  type AttackResult,
  ATTACKS,
  failedTargets,
  renderAttacks,
  runAttack,
} from "./attacks.ts";

function result(overrides: Partial<AttackResult>): AttackResult {
  return {
    key: "sessions",
    note: "10 of 10 initialize POSTs",
    peak: 100 * 2 ** 20,
    killed: false,
    died: false,
    health: [5, 6, 7],
    sessionFirst: [20, 30],
    served: [20, 30],
    ...overrides,
  };
}

Deno.test("failedTargets: RSS, both p99s and the wait of a new client", () => {
  assert.deepEqual(failedTargets(result({})), []);
  assert.deepEqual(failedTargets(result({ peak: 401 * 2 ** 20 })), ["RSS"]);
  assert.deepEqual(failedTargets(result({ killed: true })), ["RSS"]);
  assert.deepEqual(failedTargets(result({ health: [5, Infinity] })), [
    "/health p99",
  ]);
  assert.deepEqual(
    failedTargets(result({ sessionFirst: [Infinity], served: [1500] })),
    ["session p99"],
  );
  assert.deepEqual(failedTargets(result({ served: [20, 2500] })), [
    "new client",
  ]);
  // No probe answered at all is no pass.
  assert.deepEqual(
    failedTargets(result({ health: [], sessionFirst: [], served: [] })),
    ["/health p99", "session p99", "new client"],
  );
  assert.deepEqual(failedTargets(result({ failure: "no URL" })), [
    "run failed",
  ]);
});

Deno.test("renderAttacks: one row per attack, FAIL says which target", () => {
  const { report, failed } = renderAttacks(
    [result({}), result({ key: "replays", health: [Infinity] })],
    { holdMs: 1000, killBytes: 2 ** 31 },
  );
  assert.equal(failed, true);
  assert.match(report, /sessions .*100\.0 MiB.*PASS/);
  assert.match(report, /replays .*never .*0\/1.*FAIL \(\/health p99\)/);
  assert.match(report, /10 of 10 initialize POSTs/);
  const withReasons = renderAttacks([
    result({ unserved: new Map([["/health HTTP 503", 2]]) }),
  ], { holdMs: 1000, killBytes: 2 ** 31 });
  assert.match(withReasons.report, /probes not served: 2 × \/health HTTP 503/);
});

// Every attack, scaled down, against a real server for about a second:
// the attack and the probes run, whatever the verdict.
const SMALL = {
  keptSessions: 1,
  keptPosts: 4,
  fileBytes: 100_000,
  logSessions: 3,
  methodBytes: 100_000,
  notifications: 1,
  replayGets: 3,
  replayFillBytes: 100_000,
  idleStreams: 5,
  initPosts: 20,
};

for (const attack of ATTACKS) {
  Deno.test(`runAttack ${attack.key}, scaled down`, async () => {
    const measured = await runAttack(attack, {
      sizes: SMALL,
      setupMs: 10_000,
      holdMs: 500,
      killBytes: 2 ** 30,
    });
    assert.equal(measured.failure, undefined);
    assert.doesNotMatch(measured.note, /failed|stopped/, measured.note);
    assert.ok(measured.peak !== undefined && measured.peak > 0);
    assert.equal(measured.killed, false);
    assert.equal(measured.died, false);
    assert.ok(measured.health.length > 0, "no /health probe ran");
    assert.ok(measured.served.length > 0, "no new session was probed");
    assert.ok(measured.served.every(Number.isFinite), measured.note);
  });
}
