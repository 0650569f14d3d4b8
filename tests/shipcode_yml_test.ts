/**
 * shipcode.yml says how to install, build and run the server: its `build`
 * must name a real task, its `install` must pin the Deno the tests run on,
 * and its `run` command must answer the reference transcripts' two
 * exchanges (pings, then initialize) byte for byte.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { PROJECT_ROOT } from "./server_command.ts";

/** The top-level `key: value` pairs of a flat YAML file. */
function flatYaml(text: string): Map<string, string> {
  const pairs = new Map<string, string>();
  for (const line of text.split("\n")) {
    const match = /^([a-z_]+):\s*(.+?)\s*$/.exec(line);
    if (match) pairs.set(match[1], match[2]);
  }
  return pairs;
}

const yml = flatYaml(await Deno.readTextFile(`${PROJECT_ROOT}shipcode.yml`));
const run = yml.get("run")?.split(" ") ?? [];
const runnable = run.length > 0 &&
  (await Deno.stat(`${PROJECT_ROOT}${run[run.length - 1]}`).then(
    () => true,
    () => false,
  ));

Deno.test("shipcode.yml: build names a deno task and install pins the tested Deno", async () => {
  const build = yml.get("build") ?? "";
  const task = /^deno task (\S+)$/.exec(build)?.[1];
  const tasks = JSON.parse(await Deno.readTextFile(`${PROJECT_ROOT}deno.json`))
    .tasks as Record<string, string>;
  assert.equal(task !== undefined && task in tasks, true, `build: ${build}`);
  assert.equal(yml.get("install"), `npm install -g deno@${Deno.version.deno}`);
});

Deno.test({
  name: runnable
    ? "shipcode.yml: the run command answers the reference exchanges byte for byte"
    : "shipcode.yml: the run command answers the reference exchanges [skipped: run `deno task bundle` first]",
  ignore: !runnable,
  async fn() {
    const [program, ...args] = run;
    const child = new Deno.Command(
      program === "deno" ? Deno.execPath() : program,
      {
        args,
        cwd: PROJECT_ROOT,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      },
    ).spawn();
    const input = [
      '{ "jsonrpc": "2.0", "id": 1, "method": "ping" }',
      '{"jsonrpc":"2.0","id":"p-2","method":"ping"}',
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"tests","version":"1"}}}',
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      "",
    ].join("\n");
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(input));
    await writer.close();
    const { code, stdout } = await child.output();
    assert.equal(
      new TextDecoder().decode(stdout),
      '{"jsonrpc":"2.0","id":1,"result":{}}\n' +
        '{"jsonrpc":"2.0","id":"p-2","result":{}}\n' +
        '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"resources":{}},"serverInfo":{"name":"shipcode-mcp","version":"1.0.0"}}}\n',
    );
    assert.equal(code, 0);
  },
});
