import { strict as assert } from "node:assert";
import { definePrompt, promptDefinition, PromptRegistry } from "./prompt.ts";
import { completionResult } from "./completion.ts";

const greet = definePrompt({
  name: "greet",
  title: "Greet",
  description: "Ask the model to greet someone.",
  arguments: [
    { name: "who", description: "Who to greet", required: true },
    { name: "tone", complete: () => ["warm", "formal"] },
  ],
  // The types are checked by `deno check`: `who` is a string, `tone` may be
  // undefined.
  get: (args) => ({
    messages: [{
      role: "user",
      content: {
        type: "text",
        text: `Greet ${args.who.toUpperCase()} ${args.tone ?? "warmly"}.`,
      },
    }],
  }),
});

Deno.test("definePrompt: get receives the arguments it declares", async () => {
  const result = await greet.get({ who: "ada" }, {} as never);
  assert.deepEqual(result.messages[0].content, {
    type: "text",
    text: "Greet ADA warmly.",
  });
});

Deno.test("promptDefinition: keys in the specification's order, no completer", () => {
  const definition = promptDefinition({
    ...greet,
    icons: [{ src: "https://example.com/a.svg", sizes: ["any"] }],
  });
  assert.deepEqual(Object.keys(definition), [
    "name",
    "title",
    "description",
    "arguments",
    "icons",
  ]);
  assert.deepEqual(definition.arguments, [
    { name: "who", description: "Who to greet", required: true },
    { name: "tone" },
  ]);
  assert.deepEqual(
    promptDefinition({ name: "bare", get: () => ({ messages: [] }) }),
    { name: "bare" },
  );
});

Deno.test("PromptRegistry: unique names and arguments, sorted by name", () => {
  const registry = new PromptRegistry();
  registry.register({ ...greet, name: "b" });
  registry.register({ ...greet, name: "a" });
  assert.deepEqual(registry.sorted().map((p) => p.name), ["a", "b"]);
  assert.equal(registry.size, 2);
  assert.throws(
    () => registry.register({ ...greet, name: "a" }),
    /already registered/,
  );
  assert.throws(
    () =>
      registry.register({
        name: "twice",
        arguments: [{ name: "x" }, { name: "x" }],
        get: () => ({ messages: [] }),
      }),
    /declares argument "x" twice/,
  );
  assert.throws(
    () => registry.register({ name: "", get: () => ({ messages: [] }) }),
    /non-empty name/,
  );
});

Deno.test("completionResult: at most 100 values, total and hasMore always", () => {
  assert.deepEqual(completionResult([]), {
    values: [],
    total: 0,
    hasMore: false,
  });
  const many = Array.from({ length: 101 }, (_, i) => String(i));
  const capped = completionResult(many);
  assert.equal((capped.values as string[]).length, 100);
  assert.equal(capped.total, 101);
  assert.equal(capped.hasMore, true);
  assert.deepEqual(completionResult({ values: ["a"], hasMore: true }), {
    values: ["a"],
    total: 1,
    hasMore: true,
  });
  // A total smaller than what was given is not believed.
  assert.deepEqual(completionResult({ values: ["a", "b"], total: 1 }), {
    values: ["a", "b"],
    total: 2,
    hasMore: false,
  });
});
