/**
 * CONTRIBUTING.md's "Add a prompt" example is a working prompt: it
 * type-checks as a module of `prompts/`, and registered on a server it
 * answers `prompts/get` with the file embedded and completes its `path`.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import {
  completionHandlers,
  handlers,
  promptHandlers,
} from "../handlers/mod.ts";
import type { JsonObject } from "../mcp/jsonrpc.ts";
import type { Prompt } from "../mcp/prompt.ts";
import { McpServer } from "../mcp/server.ts";
import { Session } from "../mcp/session.ts";
import type { PromptSource } from "../prompts/mod.ts";
import { WorkspaceResources } from "../resources/provider.ts";
import { Workspace } from "../workspace/workspace.ts";
import { TEST_CAPS } from "./tools_harness.ts";

const ROOT = new URL("../", import.meta.url);

/** The ```ts blocks of CONTRIBUTING.md's "Add a prompt" section. */
async function exampleBlocks(): Promise<string[]> {
  const readme = await Deno.readTextFile(new URL("CONTRIBUTING.md", ROOT));
  const start = readme.indexOf("\n## Add a prompt\n");
  assert.notEqual(start, -1, 'CONTRIBUTING.md has no "## Add a prompt"');
  const end = readme.indexOf("\n## ", start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/\n```ts\n([\s\S]*?)\n```\n/g)].map((m) => m[1]);
}

Deno.test("CONTRIBUTING.md: the prompt example runs as a module of prompts/", async () => {
  const [module, entry] = await exampleBlocks();
  assert.equal(entry, "explainFilePrompt(source),");
  const dir = await Deno.makeTempDir({ prefix: "shipcode-readme-prompt-" });
  try {
    const path = `${dir}/explain_file.ts`;
    await Deno.writeTextFile(
      path,
      module
        .replaceAll('from "../', `from "${ROOT.href}`)
        .replaceAll('from "./', `from "${new URL("prompts/", ROOT).href}`),
    );
    const check = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--quiet", "--lock=tests/deno.lock", path],
      cwd: new URL(".", ROOT).pathname,
      stderr: "piped",
    }).output();
    assert.equal(check.code, 0, new TextDecoder().decode(check.stderr));
    const { explainFilePrompt } = await import(path) as {
      explainFilePrompt: (source: PromptSource) => Prompt;
    };
    const workspace = await Workspace.open(
      new URL("tests/fixtures/ws", ROOT).pathname,
    );
    const resources = new WorkspaceResources(workspace, {
      maxReadBytes: TEST_CAPS.maxReadBytes,
      maxResources: 100,
    });
    const server = new McpServer({
      handlers: { ...handlers, ...promptHandlers, ...completionHandlers },
      info: { name: "t", version: "1" },
    });
    server.resources = resources;
    server.prompts.register(
      explainFilePrompt({ workspace, resources, caps: TEST_CAPS }),
    );
    const session = new Session(() => {});
    const got = await server.handle({
      jsonrpc: "2.0",
      id: 1,
      method: "prompts/get",
      params: { name: "explain_file", arguments: { path: "README.md" } },
    }, session) as JsonObject;
    const messages = (got.result as JsonObject).messages as JsonObject[];
    assert.deepEqual(messages[0].content, {
      type: "text",
      text: "Explain README.md.",
    });
    const file = (messages[1].content as JsonObject).resource as JsonObject;
    assert.match(file.text as string, /^# Fixture workspace/);
    const completed = await server.handle({
      jsonrpc: "2.0",
      id: 2,
      method: "completion/complete",
      params: {
        ref: { type: "ref/prompt", name: "explain_file" },
        argument: { name: "path", value: "src/m" },
      },
    }, session) as JsonObject;
    assert.deepEqual((completed.result as JsonObject).completion, {
      values: ["src/main.ts"],
      total: 1,
      hasMore: false,
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
