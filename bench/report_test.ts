import { strict as assert } from "node:assert";
import {
  exitCode,
  failures,
  judge,
  renderTable,
  renderVerdicts,
  type Results,
  type RunResult,
  sampleCount,
  type Samples,
  type Target,
  valueOf,
} from "./report.ts";

const MIB = 2 ** 20;

function run(ms: number, rss = 50 * MIB): RunResult {
  return { ms, rss };
}

function results(
  entries: Record<string, Record<string, Samples>>,
): Results {
  const out: Results = new Map();
  for (const [workload, byServer] of Object.entries(entries)) {
    out.set(workload, new Map(Object.entries(byServer)));
  }
  return out;
}

const pingTarget: Target = {
  workload: "pings",
  metric: "time",
  numerator: "sdk-node",
  denominator: "ours",
  min: 10,
};

Deno.test("sampleCount gives the runs taken, and the plan when short", () => {
  assert.equal(
    sampleCount({ runs: [run(1), run(2), run(3)], planned: 3 }),
    "3",
  );
  assert.equal(
    sampleCount({ runs: [run(1)], planned: 3, failure: "exited with 137" }),
    "1 of 3",
  );
  assert.equal(sampleCount({ runs: [], planned: 1, failure: "x" }), "0 of 1");
});

Deno.test("renderTable prints the true sample count and the failure of every row", () => {
  const table = renderTable(
    [{ key: "pings", label: "100,000 pings" }],
    ["ours", "sdk-node"],
    results({
      pings: {
        ours: { runs: [run(100), run(120), run(110)], planned: 3 },
        "sdk-node": {
          runs: [run(2000)],
          planned: 3,
          failure: "exited with code 137\nserver stderr: warning",
        },
      },
    }),
  );
  assert.doesNotMatch(table, /median of 3/);
  const rows = table.split("\n");
  const ours = rows.find((row) => row.trimStart().startsWith("ours"))!;
  const sdk = rows.find((row) => row.trimStart().startsWith("sdk-node"))!;
  assert.match(ours, /^\s+ours\s+3\s+110\.0 ms\s/);
  assert.doesNotMatch(ours, /FAILED/);
  assert.match(sdk, /^\s+sdk-node\s+1 of 3\s+2\.00 s\s/);
  assert.match(sdk, /FAILED: exited with code 137$/);
});

Deno.test("renderTable shows out/in only where a wire ratio was measured", () => {
  const wire = renderTable(
    [{ key: "read_wire", label: "wire" }],
    ["ours"],
    results({
      read_wire: {
        ours: {
          runs: [{ ms: 5, rss: MIB, wireBytes: 3640, payloadBytes: 1000 }],
          planned: 1,
        },
      },
    }),
  );
  assert.match(wire, /out\/in/);
  assert.match(wire, /\s3\.64$/m);
  const plain = renderTable(
    [{ key: "pings", label: "pings" }],
    ["ours"],
    results({ pings: { ours: { runs: [run(1)], planned: 1 } } }),
  );
  assert.doesNotMatch(plain, /out\/in/);
});

Deno.test("judge fails a ratio when a side failed, and skips one that did not run", () => {
  const [failed] = judge(
    [pingTarget],
    results({
      pings: {
        ours: { runs: [run(100)], planned: 3 },
        "sdk-node": { runs: [], planned: 3, failure: "exited with code 137" },
      },
    }),
  );
  assert.equal(failed.status, "FAIL");
  assert.equal(failed.value, undefined);
  assert.match(failed.note!, /sdk-node failed: exited with code 137/);

  const [skipped] = judge(
    [pingTarget],
    results({ pings: { ours: { runs: [run(100)], planned: 3 } } }),
  );
  assert.equal(skipped.status, "SKIP");
  assert.match(skipped.note!, /sdk-node did not run/);
});

Deno.test("judge fails even a passing ratio when one of its runs failed", () => {
  const [verdict] = judge(
    [pingTarget],
    results({
      pings: {
        ours: { runs: [run(100)], planned: 3 },
        "sdk-node": { runs: [run(2000)], planned: 3, failure: "killed" },
      },
    }),
  );
  assert.equal(verdict.value, 20);
  assert.equal(verdict.status, "FAIL");
});

Deno.test("judge checks ratios against min and max", () => {
  const measured = results({
    pings: {
      ours: { runs: [run(100), run(300), run(200)], planned: 3 },
      "sdk-node": { runs: [run(1500)], planned: 1 },
    },
  });
  const [low] = judge([pingTarget], measured);
  assert.equal(low.value, 7.5);
  assert.equal(low.status, "FAIL");
  const [ok] = judge([{ ...pingTarget, min: 7 }], measured);
  assert.equal(ok.status, "PASS");
  const [info] = judge([{ ...pingTarget, min: undefined }], measured);
  assert.equal(info.status, "INFO");
});

Deno.test("judge checks an absolute memory bound, using a failed run's peak", () => {
  const limit = 300 * MIB;
  const target: Target = {
    workload: "slow_reader",
    metric: "memory",
    numerator: "ours",
    max: limit,
  };
  const [pass] = judge(
    [target],
    results({
      slow_reader: { ours: { runs: [run(9, 120 * MIB)], planned: 1 } },
    }),
  );
  assert.equal(pass.status, "PASS");
  assert.equal(pass.value, 120 * MIB);
  const [over] = judge(
    [target],
    results({
      slow_reader: { ours: { runs: [run(9, 301 * MIB)], planned: 1 } },
    }),
  );
  assert.equal(over.status, "FAIL");
  const killed: Samples = {
    runs: [],
    planned: 1,
    failure: "killed when its peak RSS passed 1024 MiB",
    partial: run(3000, 1100 * MIB),
  };
  assert.equal(valueOf(killed, "memory"), 1100 * MIB);
  const [stopped] = judge([target], results({ slow_reader: { ours: killed } }));
  assert.equal(stopped.status, "FAIL");
  assert.equal(stopped.value, 1100 * MIB);
  assert.match(
    renderVerdicts([stopped]),
    /slow_reader memory: ours\s+1100\.0 MiB\s+\(target <= 300\.0 MiB\s*\)\s+FAIL/,
  );
});

Deno.test("judge computes the wire ratio as response bytes per content byte", () => {
  const [verdict] = judge(
    [{ workload: "read_wire", metric: "wire", numerator: "ours", max: 1.3 }],
    results({
      read_wire: {
        ours: {
          runs: [{ ms: 1, rss: MIB, wireBytes: 1250, payloadBytes: 1000 }],
          planned: 1,
        },
      },
    }),
  );
  assert.equal(verdict.value, 1.25);
  assert.equal(verdict.status, "PASS");
});

Deno.test("exitCode is 1 on a failed target or a failed run, else 0", () => {
  const clean = results({
    pings: {
      ours: { runs: [run(100)], planned: 1 },
      "sdk-node": { runs: [run(500)], planned: 1 },
    },
  });
  const passing = judge([{ ...pingTarget, min: 5 }], clean);
  assert.equal(exitCode(passing, clean), 0);
  assert.equal(exitCode(judge([pingTarget], clean), clean), 1);

  // A failure no target looks at still fails the bench.
  const broken = results({
    pings: {
      ours: { runs: [run(100)], planned: 1 },
      "sdk-node": { runs: [run(1500)], planned: 1 },
    },
    resources_list: {
      "sdk-deno": { runs: [], planned: 3, failure: "stdout ended" },
    },
  });
  assert.deepEqual(failures(broken), ["resources_list sdk-deno: stdout ended"]);
  assert.equal(exitCode(judge([{ ...pingTarget, min: 5 }], broken), broken), 1);

  // A target skipped because its server was not selected does not.
  const skipped = judge(
    [pingTarget],
    results({ pings: { ours: { runs: [run(1)], planned: 1 } } }),
  );
  assert.equal(skipped[0].status, "SKIP");
  assert.equal(exitCode(skipped, clean), 0);
});
