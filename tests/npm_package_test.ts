/**
 * The npm package (issue 23, point 1), as a user with only Node.js gets
 * it: `deno task pack`'s code builds the tarball, npm installs it into a
 * fresh prefix with a fresh HOME and npm cache and no Deno on the PATH
 * (only node, npm, npx and sh), and the official SDK client drives
 * `npx shipcode-mcp --root DIR` over stdio, and the installed command over
 * `--http`, with an empty `DENO_DIR`: nothing is fetched when it runs.
 *
 * npm fetches the `deno` dependency from the registry into the fresh cache
 * (about 4 s here); when the registry cannot be reached, the install is
 * retried offline from this machine's npm cache, and the test says so.
 */

import assert from "node:assert/strict";
import manifest from "../deno.json" with { type: "json" };
import { serveFlags } from "../cli/invocation.ts";
import { buildNpmPackage } from "../scripts/npm_package.ts";
import { checkEverySnippet } from "./config_snippets.ts";
import { startListening } from "./process.ts";
import {
  Client,
  StdioClientTransport,
  StreamableHTTPClientTransport,
} from "./sdk.ts";

const decoder = new TextDecoder();
const NODE_TOOLS = ["node", "npm", "npx", "sh"];

function findOnPath(name: string): string | undefined {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      const path = `${dir}/${name}`;
      if (Deno.statSync(path).isFile) return Deno.realPathSync(path);
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}

const missing = NODE_TOOLS.filter((name) => findOnPath(name) === undefined);

async function run(
  command: string,
  args: string[],
  options: { cwd?: string; env: Record<string, string> },
) {
  const started = performance.now();
  const out = await new Deno.Command(command, {
    args,
    cwd: options.cwd,
    env: options.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: decoder.decode(out.stdout),
    stderr: decoder.decode(out.stderr),
    ms: performance.now() - started,
  };
}

Deno.test({
  name:
    "npm package: installed with Node.js only, npx shipcode-mcp serves over stdio and HTTP with nothing fetched",
  ignore: missing.length > 0,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const tmp = await Deno.makeTempDir({ prefix: "shipcode-npm-" });
    try {
      const dirs = Object.fromEntries(
        ["bin", "home", "cache", "prefix", "deno_dir", "root", "elsewhere"]
          .map((name) => [name, `${tmp}/${name}`]),
      );
      for (const dir of Object.values(dirs)) await Deno.mkdir(dir);
      for (const name of NODE_TOOLS) {
        await Deno.symlink(findOnPath(name)!, `${dirs.bin}/${name}`);
      }
      await Deno.writeTextFile(`${dirs.root}/hello.txt`, "hello, npm\n");
      await Deno.writeTextFile(
        `${dirs.root}/hello.py`,
        "def hello():\n    return 'npm'\n",
      );
      const env: Record<string, string> = {
        PATH: dirs.bin,
        HOME: dirs.home,
        npm_config_cache: dirs.cache,
        npm_config_update_notifier: "false",
        npm_config_fund: "false",
        npm_config_audit: "false",
        DENO_DIR: dirs.deno_dir,
        NO_COLOR: "1",
      };
      for (const name of ["https_proxy", "HTTPS_PROXY", "http_proxy"]) {
        const value = Deno.env.get(name);
        if (value !== undefined) env[name] = value;
      }

      let started = performance.now();
      const tarball = await buildNpmPackage(
        manifest.version,
        `${tmp}/pack/`,
      );
      console.log(
        `pack: ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
      assert.ok(tarball.endsWith(`/shipcode-mcp-${manifest.version}.tgz`));

      await t.step(
        "the tarball holds the launcher, bundle and worker",
        async () => {
          const list = await new Deno.Command("tar", {
            args: ["tzf", tarball],
            stdout: "piped",
          }).output();
          const files = decoder.decode(list.stdout).split("\n").sort();
          for (
            const file of [
              "package/package.json",
              "package/README.md",
              "package/bin/shipcode-mcp.cjs",
              "package/dist/shipcode-mcp.js",
              "package/dist/scan_worker.js",
              "package/dist/index_worker.js",
              "package/dist/symbol_worker.js",
              "package/dist/launch_flags.mjs",
              "package/dist/tree-sitter/tree-sitter.wasm",
              "package/dist/tree-sitter/tree-sitter-typescript.wasm",
            ]
          ) assert.ok(files.includes(file), `${file} in ${files.join(", ")}`);
        },
      );

      const install = (extra: string[]) =>
        run("npm", [
          "install",
          "--no-save",
          "--no-package-lock",
          ...extra,
          tarball,
        ], { cwd: dirs.prefix, env });
      let installed = await install([]);
      if (
        installed.code !== 0 &&
        /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET/.test(
          installed.stderr,
        )
      ) {
        console.log(
          "the npm registry cannot be reached: installing offline from this machine's npm cache",
        );
        installed = await install([
          "--offline",
          `--cache=${
            Deno.env.get("npm_config_cache") ?? `${Deno.env.get("HOME")}/.npm`
          }`,
        ]);
      }
      assert.equal(installed.code, 0, installed.stderr);
      console.log(`npm install: ${(installed.ms / 1000).toFixed(1)} s`);
      const pkg = `${dirs.prefix}/node_modules/shipcode-mcp`;
      const bin = `${dirs.prefix}/node_modules/.bin/shipcode-mcp`;

      await t.step("the launcher's deno flags are the server's", async () => {
        const vectors = [
          [],
          ["--root", dirs.root],
          ["--http", "8080"],
          ["--http=[::1]:0", "--auth-token-env", "TOKEN"],
          ["--state-key-env", "KEY", "--http", "127.0.0.1:9"],
          ["config", "cursor", "--http", "127.0.0.1:9"],
          ["--no-such-flag"],
        ];
        const script = `const l = require(${
          JSON.stringify(`${pkg}/bin/shipcode-mcp.cjs`)
        });
Promise.all(${JSON.stringify(vectors)}.map((a) => l.denoArgs(a)))
  .then((all) => console.log(JSON.stringify(all)));`;
        const out = await run("node", ["-e", script], {
          cwd: dirs.elsewhere,
          env,
        });
        assert.equal(out.code, 0, out.stderr);
        const all = JSON.parse(out.stdout) as string[][];
        vectors.forEach((args, i) => {
          const got = all[i];
          const flags = serveFlags(args, dirs.elsewhere);
          assert.deepEqual(got.slice(0, flags.length + 2), [
            "run",
            ...flags,
            `${pkg}/dist/shipcode-mcp.js`,
          ]);
          assert.match(got[flags.length + 2], /^--invocation=\{/);
          assert.deepEqual(got.slice(flags.length + 3), args);
        });
      });

      await t.step(
        "npx shipcode-mcp over stdio: tools and resources",
        async () => {
          const client = new Client({ name: "npm-test", version: "1.0.0" });
          const transport = new StdioClientTransport({
            command: `${dirs.bin}/npx`,
            args: ["shipcode-mcp", "--root", dirs.root],
            cwd: dirs.prefix,
            env,
            stderr: "pipe",
          });
          let stderr = "";
          transport.stderr?.on("data", (chunk: Uint8Array) => {
            stderr += decoder.decode(chunk);
          });
          started = performance.now();
          await client.connect(transport);
          try {
            const { tools } = await client.listTools();
            assert.ok(
              tools.some((tool: { name: string }) => tool.name === "read_file"),
            );
            const read = await client.callTool({
              name: "read_file",
              arguments: { path: "hello.txt" },
            });
            assert.match(JSON.stringify(read), /hello, npm/);
            // The tree-sitter runtime and a grammar, from the package.
            const outline = await client.callTool({
              name: "outline",
              arguments: { path: "hello.py" },
            });
            assert.match(JSON.stringify(outline), /function hello 1-2/);
            const { resources } = await client.listResources();
            const hello = resources.find((resource: { uri: string }) =>
              resource.uri.endsWith("/hello.txt")
            );
            assert.ok(hello, JSON.stringify(resources));
            const contents = await client.readResource({ uri: hello.uri });
            assert.match(JSON.stringify(contents), /hello, npm/);
          } finally {
            await client.close();
          }
          console.log(
            `npx shipcode-mcp: a session in ${
              ((performance.now() - started) / 1000).toFixed(1)
            } s`,
          );
          assert.doesNotMatch(stderr, /Download|error/i, stderr);
        },
      );

      await t.step(
        "--http 127.0.0.1:0 through the installed command",
        async () => {
          const server = await startListening({
            command: bin,
            args: ["--root", dirs.root, "--http", "127.0.0.1:0"],
            cwd: dirs.elsewhere,
            env,
          });
          const client = new Client({ name: "npm-http", version: "1.0.0" });
          const transport = new StreamableHTTPClientTransport(
            new URL(server.url),
          );
          try {
            await client.connect(transport);
            const read = await client.callTool({
              name: "read_file",
              arguments: { path: "hello.txt" },
            });
            assert.match(JSON.stringify(read), /hello, npm/);
            await transport.terminateSession().catch(() => {});
            await client.close();
          } finally {
            // SIGTERM reaches the server through the launcher, which exits
            // with the server's status: 0, a clean stop.
            const status = await server.kill("SIGTERM");
            assert.equal(status.code, 0, server.stderr());
          }
        },
      );

      await t.step(
        "signals pass through and the status comes back",
        async () => {
          const wrong = await run(bin, ["--no-such-flag"], {
            cwd: dirs.elsewhere,
            env,
          });
          assert.equal(wrong.code, 2);
          assert.match(wrong.stderr, /run shipcode-mcp --help/);
          for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
            const child = new Deno.Command(bin, {
              args: ["--root", dirs.root],
              cwd: dirs.elsewhere,
              env,
              clearEnv: true,
              stdin: "piped",
              stdout: "piped",
              stderr: "null",
            }).spawn();
            const writer = child.stdin.getWriter();
            await writer.write(
              new TextEncoder().encode(
                JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) +
                  "\n",
              ),
            );
            const reader = child.stdout.getReader();
            const first = await reader.read();
            assert.match(decoder.decode(first.value), /"id":1/);
            child.kill(signal);
            const status = await child.status;
            // SIGTERM and SIGINT stop the server cleanly (status 0); it has
            // no handler for SIGHUP, which ends it, and then the launcher, by
            // that signal.
            if (signal === "SIGHUP") assert.equal(status.signal, "SIGHUP");
            else assert.equal(status.code, 0, `${signal}: ${status.code}`);
            reader.releaseLock();
            await child.stdout.cancel().catch(() => {});
            await writer.close().catch(() => {});
          }
        },
      );

      await t.step("help and errors name the command as run", async () => {
        const viaNpx = await run("npx", ["shipcode-mcp", "--help"], {
          cwd: dirs.prefix,
          env,
        });
        assert.equal(viaNpx.code, 0, viaNpx.stderr);
        assert.match(viaNpx.stdout, /^ {2}npx shipcode-mcp \[flags\]/m);
        const direct = await run(bin, ["--help"], { cwd: dirs.elsewhere, env });
        assert.match(direct.stdout, /^ {2}shipcode-mcp \[flags\]/m);
      });

      await t.step(
        "config: every client's snippet serves from elsewhere",
        async () => {
          const results = await checkEverySnippet(
            { command: bin, args: [] },
            dirs.root,
            dirs.elsewhere,
            env,
          );
          for (const [client, { command, tools }] of results) {
            assert.equal(command.command, bin, client);
            assert.deepEqual(command.args.slice(0, 2), ["--root", dirs.root]);
            assert.ok(tools.includes("read_file"), client);
          }
        },
      );

      await t.step("nothing was fetched into DENO_DIR", async () => {
        const npm = [];
        try {
          for await (const entry of Deno.readDir(`${dirs.deno_dir}/npm`)) {
            npm.push(entry.name);
          }
        } catch (error) {
          if (!(error instanceof Deno.errors.NotFound)) throw error;
        }
        assert.deepEqual(npm, []);
        const remote = [];
        try {
          for await (const entry of Deno.readDir(`${dirs.deno_dir}/remote`)) {
            remote.push(entry.name);
          }
        } catch (error) {
          if (!(error instanceof Deno.errors.NotFound)) throw error;
        }
        assert.deepEqual(remote, []);
      });
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
