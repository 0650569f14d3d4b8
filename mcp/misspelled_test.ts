import { strict as assert } from "node:assert";
import { meantName, misspelledArguments } from "./misspelled.ts";

const schema = {
  type: "object",
  properties: {
    path: { type: "string" },
    offset: { type: "integer" },
    caseSensitive: { type: "boolean" },
  },
};

Deno.test("misspelledArguments: a slip of a declared name is refused, with the name meant", () => {
  assert.deepEqual(misspelledArguments(schema, { path: "a", ofset: 2 }), [{
    path: "/ofset",
    message: 'is not an argument of this tool (did you mean "offset"?)',
  }]);
  assert.equal(meantName("Path", ["path"]), "path");
  assert.equal(meantName("case_sensitive", ["caseSensitive"]), "caseSensitive");
  assert.equal(meantName("pth", ["path", "offset"]), "path");
});

Deno.test("misspelledArguments: names a client adds pass (Gemini CLI's wait_for_previous)", () => {
  assert.deepEqual(
    misspelledArguments(schema, { path: "a", wait_for_previous: true }),
    [],
  );
  assert.equal(meantName("glob", ["path", "offset"]), undefined);
  assert.equal(meantName("limit", ["path", "offset"]), undefined);
});

Deno.test("misspelledArguments: a schema that closes its properties is left to the validator", () => {
  assert.deepEqual(
    misspelledArguments({ ...schema, additionalProperties: false }, {
      ofset: 1,
    }),
    [],
  );
  assert.deepEqual(misspelledArguments({ type: "object" }, { ofset: 1 }), []);
});
