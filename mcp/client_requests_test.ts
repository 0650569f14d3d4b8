import { strict as assert } from "node:assert";
import {
  checkElicitParams,
  type ElicitParams,
  requestedSchemaProblems,
  supportsFormElicitation,
} from "./client_requests.ts";

const NEW = "2025-11-25";
const OLD = "2025-06-18";

const form = (properties: Record<string, unknown>, required?: string[]) => ({
  type: "object",
  properties,
  ...(required === undefined ? {} : { required }),
});

Deno.test("requestedSchemaProblems: every 2025-11-25 field shape, with defaults, passes", () => {
  const schema = form({
    name: { type: "string", title: "Name", minLength: 1, default: "Ada" },
    email: { type: "string", format: "email" },
    age: { type: "integer", minimum: 0, maximum: 150, default: 36 },
    ratio: { type: "number", default: 0.5 },
    ok: { type: "boolean", default: true },
    color: { type: "string", enum: ["red", "green"], default: "red" },
    legacy: { type: "string", enum: ["a", "b"], enumNames: ["A", "B"] },
    size: {
      type: "string",
      oneOf: [{ const: "s", title: "Small" }, { const: "l", title: "Large" }],
      default: "s",
    },
    tags: {
      type: "array",
      items: { type: "string", enum: ["x", "y"] },
      minItems: 1,
      default: ["x"],
    },
    labels: {
      type: "array",
      items: { anyOf: [{ const: "p", title: "P" }] },
      default: [],
    },
  }, ["name"]);
  assert.deepEqual(requestedSchemaProblems(schema, NEW), []);
});

Deno.test("requestedSchemaProblems: shapes the specification does not allow are named", () => {
  const cases: [unknown, RegExp][] = [
    [{ type: "array" }, /must be an object schema/],
    [form({ o: { type: "object" } }), /nested objects are not allowed/],
    [form({ s: { type: "string", pattern: "x" } }), /"pattern" is not allowed/],
    [form({ s: { type: "string", format: "phone" } }), /"format" must be/],
    [form({ e: { type: "string", enum: [] } }), /non-empty array/],
    [
      form({ e: { type: "string", enum: ["a"], default: "b" } }),
      /"default" must be one of "enum"/,
    ],
    [form({ i: { type: "integer", default: 1.5 } }), /must be an integer/],
    [form({ b: { type: "boolean", default: "yes" } }), /must be a boolean/],
    [
      form({ t: { type: "array", items: { type: "number" } } }),
      /"items" must be/,
    ],
    [
      form({ t: { type: "array", items: { anyOf: [{ const: "a" }] } } }),
      /"items" must be/,
    ],
    [form({ a: { type: "string" } }, ["b"]), /required field "b"/],
    [{ ...form({}), $schema: "x" }, /not "\$schema"/],
  ];
  for (const [schema, problem] of cases) {
    const problems = requestedSchemaProblems(schema, NEW);
    assert.ok(
      problems.some((p) => problem.test(p)),
      `${JSON.stringify(schema)}: ${problems.join("; ")}`,
    );
  }
});

Deno.test("requestedSchemaProblems: titled and multi-select enums and defaults need 2025-11-25", () => {
  for (
    const field of [
      { type: "string", oneOf: [{ const: "a", title: "A" }] },
      { type: "array", items: { type: "string", enum: ["a"] } },
      { type: "string", default: "x" },
      { type: "number", default: 1 },
      { type: "string", enum: ["a"], default: "a" },
    ]
  ) {
    assert.deepEqual(requestedSchemaProblems(form({ f: field }), NEW), []);
    assert.match(
      requestedSchemaProblems(form({ f: field }), OLD).join(),
      /needs protocol 2025-11-25, the session speaks 2025-06-18/,
    );
  }
  // A boolean default and plain enums were in 2025-06-18 already.
  assert.deepEqual(
    requestedSchemaProblems(
      form({
        b: { type: "boolean", default: false },
        e: { type: "string", enum: ["a"], enumNames: ["A"] },
      }),
      OLD,
    ),
    [],
  );
});

Deno.test("checkElicitParams: -32602 listing the problems; URL mode refused", () => {
  assert.throws(
    () =>
      checkElicitParams(
        {
          message: "",
          requestedSchema: form({ o: { type: "object" } }),
        } as unknown as ElicitParams,
        NEW,
      ),
    (error: { code: number; message: string }) => {
      assert.equal(error.code, -32602);
      assert.match(error.message, /"message" must be a non-empty string/);
      assert.match(error.message, /nested objects/);
      return true;
    },
  );
  assert.throws(
    () =>
      checkElicitParams(
        {
          mode: "url",
          message: "m",
          requestedSchema: form({}),
        } as unknown as ElicitParams,
        NEW,
      ),
    /only form mode/,
  );
});

Deno.test("supportsFormElicitation: {} and {form} yes, {url} alone no", () => {
  assert.equal(supportsFormElicitation({}), true);
  assert.equal(supportsFormElicitation({ form: {} }), true);
  assert.equal(supportsFormElicitation({ form: {}, url: {} }), true);
  assert.equal(supportsFormElicitation({ url: {} }), false);
  assert.equal(supportsFormElicitation(undefined), false);
});
