import { strict as assert } from "node:assert";
import type { Definition } from "../symbols/definitions.ts";
import {
  type CheapRow,
  medianAndLargest,
  nameable,
  renderCheapRow,
} from "./symbols.ts";

function def(
  kind: string,
  name: string,
  start: number,
  end: number,
  parent?: string,
): Definition {
  return { kind, name, start, line: start, end, depth: parent ? 1 : 0, parent };
}

Deno.test("symbols bench: the methods one name picks out, with bodies, shortest first", () => {
  const defs = [
    def("class", "A", 1, 40),
    def("method", "run", 2, 10, "A"),
    def("method", "size", 11, 11, "A"),
    def("method", "close", 12, 16, "A"),
    def("class", "B", 20, 40),
    def("method", "close", 21, 30, "B"),
    def("function", "helper", 41, 60),
    def("interface", "I", 61, 62),
  ];
  assert.deepEqual(
    nameable(defs).map((pick) => pick.query),
    ["A.close", "run", "B.close", "helper"],
  );
  const picked = medianAndLargest(nameable(defs));
  assert.equal(picked?.median.query, "run");
  assert.equal(picked?.largest.query, "helper");
  assert.equal(medianAndLargest([]), undefined);
});

Deno.test("symbols bench: a row shows the ratio and its verdict", () => {
  const row: CheapRow = {
    path: "a.ts",
    lines: 100,
    fileChars: 5000,
    median: { query: "run", lines: 9, chars: 500 },
    largest: { query: "helper", lines: 20, chars: 2500 },
  };
  const line = renderCheapRow(row);
  assert.match(line, /1\/10\.0 +1\/2\.0 +PASS$/);
  assert.match(
    renderCheapRow({ ...row, median: { ...row.median, chars: 1001 } }),
    /FAIL$/,
  );
});
