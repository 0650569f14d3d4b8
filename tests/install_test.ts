/**
 * `deno task install` puts a working `shipcode-mcp` command in an install
 * root, which names itself `shipcode-mcp`; `config` run through it, and
 * through `deno task start` in the clone, prints for every client a command
 * that serves from any directory (issue 23, points 2 and 3).
 */

import assert from "node:assert/strict";
import { PROJECT_ROOT } from "./server_command.ts";
import { checkEverySnippet } from "./config_snippets.ts";
import { Client, StdioClientTransport } from "./sdk.ts";

const decoder = new TextDecoder();

async function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
) {
  const out = await new Deno.Command(command, {
    args,
    cwd: options.cwd,
    env: { NO_COLOR: "1", ...options.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: decoder.decode(out.stdout),
    stderr: decoder.decode(out.stderr),
  };
}

Deno.test({
  name:
    "deno task install: the installed shipcode-mcp serves, names itself, and its config snippets serve from elsewhere",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const tmp = await Deno.makeTempDir({ prefix: "shipcode-install-" });
    try {
      const installRoot = `${tmp}/install`;
      const root = `${tmp}/root`;
      const elsewhere = `${tmp}/elsewhere`;
      await Deno.mkdir(root);
      await Deno.mkdir(elsewhere);
      await Deno.writeTextFile(`${root}/hello.txt`, "hello\n");
      const started = performance.now();
      const installed = await run(
        Deno.execPath(),
        ["task", "-q", "install", "--root", installRoot],
        { cwd: PROJECT_ROOT },
      );
      assert.equal(installed.code, 0, installed.stderr);
      console.log(
        `deno task install: ${
          ((performance.now() - started) / 1000).toFixed(1)
        } s`,
      );
      const bin = `${installRoot}/bin/shipcode-mcp`;
      assert.match(installed.stdout, new RegExp(`Installed ${bin}\\.`));

      await t.step("initialize and tools/list over stdio", async () => {
        const client = new Client({ name: "install-test", version: "1.0.0" });
        await client.connect(
          new StdioClientTransport({
            command: bin,
            args: ["--root", root],
            cwd: elsewhere,
            stderr: "pipe",
          }),
        );
        try {
          const { tools } = await client.listTools();
          assert.ok(
            tools.some((tool: { name: string }) => tool.name === "read_file"),
          );
          const read = await client.callTool({
            name: "read_file",
            arguments: { path: "hello.txt" },
          });
          assert.match(JSON.stringify(read), /hello/);
        } finally {
          await client.close();
        }
      });

      await t.step("--help and errors name shipcode-mcp", async () => {
        const help = await run(bin, ["--help"], { cwd: elsewhere });
        assert.equal(help.code, 0, help.stderr);
        assert.match(help.stdout, /^ {2}shipcode-mcp \[flags\]/m);
        const wrong = await run(bin, ["--no-such-flag"], { cwd: elsewhere });
        assert.equal(wrong.code, 2);
        assert.match(wrong.stderr, /run shipcode-mcp --help/);
        assert.doesNotMatch(wrong.stderr, /--invocation/);
      });

      await t.step(
        "config through the installed command: every snippet serves",
        async () => {
          const results = await checkEverySnippet(
            { command: bin, args: [] },
            root,
            elsewhere,
            {},
          );
          for (const [client, { command, tools }] of results) {
            assert.equal(command.command, bin, client);
            assert.deepEqual(command.args.slice(0, 2), ["--root", root]);
            assert.ok(tools.includes("read_file"), client);
          }
        },
      );

      await t.step(
        "config through deno task start in the clone: every snippet serves",
        async () => {
          const help = await run(Deno.execPath(), [
            "task",
            "-q",
            "start",
            "--help",
          ], { cwd: PROJECT_ROOT });
          assert.match(help.stdout, /^ {2}deno task start \[flags\]/m);
          const results = await checkEverySnippet(
            {
              command: Deno.execPath(),
              args: ["task", "-q", "start"],
              cwd: PROJECT_ROOT,
            },
            root,
            elsewhere,
            {},
          );
          for (const [client, { command, tools }] of results) {
            assert.ok(command.command.startsWith("/"), command.command);
            assert.ok(
              command.args.includes(`${PROJECT_ROOT}dist/shipcode-mcp.js`),
              `${client}: ${command.args.join(" ")}`,
            );
            assert.ok(tools.includes("read_file"), client);
          }
        },
      );
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
