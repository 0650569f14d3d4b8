import { strict as assert } from "node:assert";
import { searchAnswer } from "./search_answer.ts";

const base = {
  limit: 2,
  searched: 5,
  skipped: 0,
  maxReadBytes: 1000,
  walkNote: undefined,
};

Deno.test("searchAnswer: matching lines, then the notes, as plain text alone", () => {
  const result = searchAnswer({
    ...base,
    matches: [
      { path: "a.txt", line: 3, text: "a needle" },
      { path: "b/c.txt", line: 1, text: "needle" },
    ],
    skipped: 1,
    walkNote: "1 unreadable entry was skipped.",
  });
  assert.deepEqual(result.content, [{
    type: "text",
    text: [
      "a.txt:3:a needle",
      "b/c.txt:1:needle",
      '[Stopped at 2 matches, in the first 5 files searched; narrow "path" or "glob", or refine the query, to see others. 1 file was skipped (binary, or over 1000 bytes). 1 unreadable entry was skipped.]',
    ].join("\n"),
  }]);
  assert.equal(result.structuredContent, undefined);
});

Deno.test("searchAnswer: no match says how many files were searched", () => {
  const result = searchAnswer({ ...base, matches: [] });
  assert.deepEqual(result.content, [{
    type: "text",
    text: "[No matches in 5 files.]",
  }]);
});
