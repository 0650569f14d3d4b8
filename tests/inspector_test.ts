/**
 * A second real client: the MCP Inspector's CLI mode, from the npm registry,
 * drives the server of every build target: it lists the tools, calls one,
 * lists the resources and reads one, and (with `--features all`) lists the
 * prompts and gets one; and the same over Streamable HTTP (`http`: the
 * source served with `--http 127.0.0.1:0`, the Inspector given its URL and
 * `--transport http`).
 *
 * The Inspector is run with `npx -y` at a pinned version, so a fresh machine
 * installs it from the npm registry on first use and later runs reuse npm's
 * cache. 0.15.0 is the newest release that declares no Node.js engine
 * constraint (0.16.0 and later ask for Node.js 22.7.5 or newer; the machines
 * this project runs on have Node.js 20). Without `npx` on the PATH the tests
 * are listed as ignored, with that reason.
 */

import { strict as assert } from "node:assert";
import { join } from "node:path";
import {
  serverCommand,
  type Target,
  TARGETS,
  targetStatus,
} from "./server_command.ts";
import { workspaceToolNames } from "./tool_names.ts";
import {
  type HttpProcess,
  launchCommand,
  startHttpServer,
} from "./sdk_connect.ts";

/** The pinned Inspector release. */
const INSPECTOR = "@modelcontextprotocol/inspector@0.15.0";

/** The tools the workspace server registers (tools/mod.ts). */
const TOOL_NAMES = await workspaceToolNames();

const HELLO = "hello from the inspector test\n";

const decoder = new TextDecoder();

function npxVersion(): string | undefined {
  try {
    const out = new Deno.Command("npx", { args: ["--version"] })
      .outputSync();
    return out.success ? decoder.decode(out.stdout).trim() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Run one Inspector CLI call against `target` serving `root`, or against
 * the server at `target.url` over HTTP; parse stdout.
 */
async function inspect(
  target: Target | HttpProcess,
  root: string,
  method: string[],
  flags: string[] = [],
): Promise<Record<string, unknown>> {
  let server: string[];
  if (typeof target === "string") {
    const spec = serverCommand(["--root", root, ...flags], target);
    server = [spec.command, ...spec.args];
  } else {
    server = [target.url, "--transport", "http"];
  }
  const out = await new Deno.Command("npx", {
    args: [
      "-y",
      INSPECTOR,
      "--cli",
      ...server,
      ...method,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", npm_config_update_notifier: "false" },
  }).output();
  const stdout = decoder.decode(out.stdout);
  const stderr = decoder.decode(out.stderr);
  assert.equal(
    out.code,
    0,
    `inspector ${
      method.join(" ")
    } exited ${out.code}\nstdout:\n${stdout}\nstderr:\n${stderr}`,
  );
  try {
    return JSON.parse(stdout);
  } catch {
    throw new Error(
      `inspector printed no JSON:\n${stdout}\nstderr:\n${stderr}`,
    );
  }
}

/** A small workspace with known contents. */
async function makeWorkspace(): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "shipcode-inspector-" });
  await Deno.writeTextFile(join(root, "hello.txt"), HELLO);
  await Deno.mkdir(join(root, "src"));
  await Deno.writeTextFile(
    join(root, "src", "main.ts"),
    'console.log("hi");\n',
  );
  // Resources and tools report the root with symlinks resolved.
  return await Deno.realPath(root);
}

const npx = npxVersion();

for (const t of [...TARGETS, "http" as const]) {
  const status = targetStatus(t === "http" ? "source" : t);
  const reason = npx === undefined
    ? "npx (Node.js) is not on the PATH"
    : status.reason;
  if (npx === undefined || !status.available) {
    Deno.test({
      ignore: true,
      name: `inspector [${t}] skipped: ${reason}`,
      fn() {},
    });
    continue;
  }

  Deno.test(`inspector [${t}] ${INSPECTOR} lists, calls, lists and reads`, async (tc) => {
    const root = await makeWorkspace();
    // Over HTTP one server, with every feature, serves every call.
    const http = t === "http"
      ? await startHttpServer(
        launchCommand({ target: "source", wire: "http" }, [
          "--root",
          root,
          "--features",
          "all",
        ]),
      )
      : undefined;
    const via = http ?? (t as Target);
    try {
      await tc.step("tools/list", async () => {
        const result = await inspect(via, root, ["--method", "tools/list"]);
        const tools = result.tools as { name: string; inputSchema: unknown }[];
        assert.deepEqual(tools.map((tool) => tool.name).sort(), TOOL_NAMES);
        for (const tool of tools) {
          assert.equal(
            (tool.inputSchema as { type: string }).type,
            "object",
            tool.name,
          );
        }
      });

      await tc.step("tools/call file_info", async () => {
        const result = await inspect(via, root, [
          "--method",
          "tools/call",
          "--tool-name",
          "file_info",
          "--tool-arg",
          "path=hello.txt",
        ]);
        assert.notEqual(result.isError, true, JSON.stringify(result));
        const info = result.structuredContent as Record<string, unknown>;
        assert.equal(info.type, "file");
        assert.equal(info.size, new TextEncoder().encode(HELLO).length);
        const content = result.content as { type: string; text: string }[];
        assert.equal(content[0].type, "text");
        assert.deepEqual(JSON.parse(content[0].text), info);
      });

      let uri = "";
      await tc.step("resources/list", async () => {
        const result = await inspect(via, root, [
          "--method",
          "resources/list",
        ]);
        const resources = result.resources as { uri: string; name: string }[];
        const hello = resources.find((r) => r.uri.endsWith("/hello.txt"));
        assert.ok(hello, `no hello.txt in ${JSON.stringify(resources)}`);
        assert.ok(hello.uri.startsWith("file:///"), hello.uri);
        assert.ok(
          resources.some((r) => r.uri.endsWith("/src/main.ts")),
          "src/main.ts listed",
        );
        uri = hello.uri;
      });

      await tc.step("resources/read", async () => {
        assert.ok(uri !== "", "resources/list found no URI to read");
        const result = await inspect(via, root, [
          "--method",
          "resources/read",
          "--uri",
          uri,
        ]);
        const contents = result.contents as { uri: string; text?: string }[];
        assert.equal(contents.length, 1);
        assert.equal(contents[0].uri, uri);
        assert.equal(contents[0].text, HELLO);
      });

      await tc.step("prompts/list and prompts/get", async () => {
        const features = ["--features", "all"];
        const list = await inspect(via, root, [
          "--method",
          "prompts/list",
        ], features);
        const names = (list.prompts as { name: string }[]).map((p) => p.name);
        assert.ok(names.includes("review_file"), names.join());
        const result = await inspect(via, root, [
          "--method",
          "prompts/get",
          "--prompt-name",
          "review_file",
          "--prompt-args",
          "path=hello.txt",
        ], features);
        const messages = result.messages as {
          content: { type: string; resource?: { text: string } };
        }[];
        assert.equal(messages[1].content.type, "resource");
        assert.equal(messages[1].content.resource?.text, HELLO);
      });
    } finally {
      await http?.stop();
      await Deno.remove(root, { recursive: true });
    }
  });
}
