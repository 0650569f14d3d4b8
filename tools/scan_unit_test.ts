import { strict as assert } from "node:assert";
import { requiredLiteral } from "./prefilter.ts";
import { regexLineHits } from "./scan_unit.ts";

Deno.test("regexLineHits: testing only the lines that hold the required literal finds the same lines", () => {
  const sources = [
    String.raw`static\s+int\s+\w+_probe\(`,
    String.raw`ab+c`,
    String.raw`x\d`,
    String.raw`^ab`,
    String.raw`ab$`,
    String.raw`(?<=a)bc`,
    String.raw`a\r?b`,
  ];
  const pieces = [
    "ab",
    "abc",
    "abbc",
    "x1",
    "x",
    "static int foo_probe(",
    "static\tint  bar_probe(",
    "static int",
    " _probe(",
    "\n",
    "\r\n",
    "\r",
    " ",
    "é",
    "a",
    "b",
  ];
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
  let matched = 0;
  for (const source of sources) {
    const literal = requiredLiteral(source);
    assert.ok(literal !== undefined, source);
    const re = new RegExp(source);
    for (let i = 0; i < 400; i++) {
      let text = "";
      const count = random() % 30;
      for (let j = 0; j < count; j++) text += pieces[random() % pieces.length];
      for (const limit of [1, 3, 1000]) {
        const expected = regexLineHits(text, re, limit, 10);
        matched += expected.length;
        assert.deepEqual(
          regexLineHits(text, re, limit, 10, literal),
          expected,
          `${source} in ${JSON.stringify(text)}, limit ${limit}`,
        );
      }
    }
  }
  assert.ok(matched > 1000, `only ${matched} matches`);
});
