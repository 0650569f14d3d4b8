import { strict as assert } from "node:assert";
import { Postings, symbolOf, trigramsOf } from "./trigrams.ts";

function ids(postings: Postings, trigram: number): number[] {
  const out: number[] = [];
  postings.forEach(trigram, (id) => out.push(id));
  return out;
}

Deno.test("Postings: ids come back in order, across chained blocks", () => {
  const postings = new Postings();
  const expected: number[] = [];
  const [abc] = trigramsOf("abc");
  for (let i = 0; i < 20_000; i++) {
    // Gaps of every size: one-byte and several-byte deltas.
    const text = i % 3 === 0 ? "xxabcxx" : "zzz";
    const id = i % 7 === 0
      ? postings.addText(`${text}${"q".repeat(i % 300)}`)
      : postings.addAsciiBytes(new TextEncoder().encode(text));
    if (text.includes("abc")) expected.push(id);
    if (i % 1000 === 0) {
      for (let k = 0; k < 5000; k++) postings.addNothing();
    }
  }
  assert.deepEqual(ids(postings, abc), expected);
  const marks = postings.matching(trigramsOf("xabcx"));
  assert.deepEqual(
    [...marks.keys()].filter((id) => marks[id] === 1),
    expected,
  );
});

Deno.test("Postings: a text is indexed by its folded characters", () => {
  const postings = new Postings();
  const a = postings.addText("Hello WORLD");
  const b = postings.addText("tempéra\u212Aure İx");
  assert.equal(postings.addAsciiBytes(new TextEncoder().encode("é")), -1);
  const holding = (query: string) => {
    const marks = postings.matching(trigramsOf(query));
    return [a, b].filter((id) => marks[id] === 1);
  };
  assert.deepEqual(holding("hello"), [a]);
  assert.deepEqual(holding("o wor"), [a]);
  assert.deepEqual(holding("pérak"), [b]);
  assert.deepEqual(holding("PÉRAK"), [b]);
  assert.deepEqual(holding("e ix"), [b]);
  assert.deepEqual(holding("nothing"), []);
  assert.equal(symbolOf(0x41), symbolOf(0x61));
  assert.equal(symbolOf(0x212a), symbolOf(0x6b));
  assert.equal(symbolOf(0xe9), symbolOf(0x4e00));
});
