/**
 * The official SDK client against every build target, with
 * `--features all`: it negotiates 2025-11-25, sees the prompts and
 * completions capabilities, lists and gets every workspace prompt (the SDK
 * checks each result against its schema), and completes a file path
 * through the resource template and a prompt argument.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { pathToFileURL } from "node:url";
import { PROJECT_ROOT } from "./server_command.ts";
import { sdkTest } from "./sdk_connect.ts";

const ROOT = Deno.realPathSync(`${PROJECT_ROOT}tests/fixtures/ws`);

type Message = {
  role: string;
  content: { type: string; [k: string]: unknown };
};

sdkTest(
  "sdk prompts [launch] lists and gets prompts, completes a path",
  [
    "--root",
    ROOT,
    "--features",
    "all",
    "--protocol-versions",
    "2025-11-25,2025-06-18",
  ],
  async ({ client }) => {
    const capabilities = client.getServerCapabilities() ?? {};
    // The SDK's parsed copy does not keep the wire's key order.
    assert.deepEqual(Object.keys(capabilities).sort(), [
      "completions",
      "logging",
      "prompts",
      "resources",
      "tools",
    ]);
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p: { name: string }) => p.name), [
      "explain_search",
      "review_file",
      "summarize_directory",
    ]);

    const review = await client.getPrompt({
      name: "review_file",
      arguments: { path: "src/main.ts", focus: "readability" },
    });
    const [ask, file] = review.messages as Message[];
    assert.match(String(ask.content.text), /src\/main\.ts.*readability/);
    assert.equal(file.content.type, "resource");
    const embedded = file.content.resource as { uri: string; text: string };
    assert.equal(
      embedded.uri,
      pathToFileURL(`${ROOT}/src/main.ts`).href,
    );
    assert.match(embedded.text, /export function main/);

    const image = await client.getPrompt({
      name: "review_file",
      arguments: { path: "images/pixel.png" },
    });
    assert.equal((image.messages as Message[])[1].content.type, "image");

    const search = await client.getPrompt({
      name: "explain_search",
      arguments: { query: "needle", path: "src" },
    });
    const hits = search.messages as Message[];
    assert.match(String(hits[0].content.text), /src\/lib\/util\.ts:5:/);
    assert.ok(hits.slice(1).every((m) => m.content.type === "resource"));
    assert.equal(hits.length, 3);

    const summary = await client.getPrompt({ name: "summarize_directory" });
    const listing = (summary.messages as Message[])[1].content.resource as {
      text: string;
    };
    assert.match(listing.text, /^README\.md \(/m);

    await assert.rejects(
      client.getPrompt({ name: "review_file", arguments: {} }),
      /missing required argument "path"/,
    );
    await assert.rejects(
      client.getPrompt({ name: "no_such_prompt" }),
      /Unknown prompt/,
    );

    const { resourceTemplates } = await client.listResourceTemplates();
    const template = resourceTemplates[0].uriTemplate as string;
    const path = await client.complete({
      ref: { type: "ref/resource", uri: template },
      argument: { name: "path", value: "src/m" },
    });
    assert.deepEqual(path.completion, {
      values: ["src/main.ts"],
      total: 1,
      hasMore: false,
    });
    const deeper = await client.complete({
      ref: { type: "ref/resource", uri: template },
      argument: { name: "path", value: "src/" },
    });
    assert.deepEqual(deeper.completion.values, [
      "src/lib/",
      "src/main.ts",
      "src/.gitignore",
    ]);
    const focus = await client.complete({
      ref: { type: "ref/prompt", name: "review_file" },
      argument: { name: "focus", value: "" },
      context: { arguments: { path: "tests/x_test.ts" } },
    });
    assert.equal(focus.completion.values[0], "tests");
  },
);
