import { strict as assert } from "node:assert";
import { findAnswer } from "./find_answer.ts";

Deno.test("findAnswer: paths, then the notes, as plain text alone", () => {
  const result = findAnswer({
    paths: ["a.ts", "b/c.ts"],
    limit: 2,
    truncated: true,
    walkNote: "1 unreadable entry was skipped.",
  });
  assert.deepEqual(result.content, [{
    type: "text",
    text: [
      "a.ts",
      "b/c.ts",
      "[More than 2 files match; narrow the pattern or the path to see the rest.]",
      "[1 unreadable entry was skipped.]",
    ].join("\n"),
  }]);
  assert.equal(result.structuredContent, undefined);
});

Deno.test("findAnswer: no match suggests a broader pattern", () => {
  const result = findAnswer({
    paths: [],
    limit: 10,
    truncated: false,
    walkNote: undefined,
  });
  assert.deepEqual(result.content, [{
    type: "text",
    text:
      '[No files match; try a broader pattern such as "*" + an extension, or list_directory.]',
  }]);
});
