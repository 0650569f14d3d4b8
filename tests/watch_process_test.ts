/**
 * `--watch` in a real process, as an unprivileged user: links that lead out
 * of the root (even to `/`) and unreadable directories never end the
 * process, and the server keeps answering.
 *
 * Runs the bundle as user and group 65534 (nobody) through `setpriv`, since
 * as root every directory is readable; skipped, visibly, where `setpriv` or
 * root is missing.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { serverCommand } from "./server_command.ts";

function canDropPrivileges(): boolean {
  if (Deno.build.os !== "linux" || Deno.uid() !== 0) return false;
  try {
    return Deno.statSync("/usr/bin/setpriv").isFile;
  } catch {
    return false;
  }
}

Deno.test({
  name:
    "--watch as a non-root user: a link to / and an unreadable directory do not end the server",
  ignore: !canDropPrivileges(),
  fn: async () => {
    const base = await Deno.makeTempDir({ prefix: "watch_proc_" });
    try {
      const root = `${base}/root`;
      await Deno.mkdir(`${root}/locked`, { recursive: true });
      await Deno.mkdir(`${root}/src`);
      await Deno.writeTextFile(`${root}/src/a.txt`, "hello\n");
      await Deno.symlink("/", `${root}/slash`);
      await Deno.chmod(`${root}/locked`, 0o000);
      await Deno.chmod(base, 0o755);
      const { command, args } = serverCommand(
        ["--watch", "--root", root],
        "bundle",
      );
      const child = new Deno.Command("/usr/bin/setpriv", {
        args: [
          "--reuid=65534",
          "--regid=65534",
          "--clear-groups",
          command,
          ...args,
        ],
        env: { DENO_DIR: `${base}/deno_dir`, NO_COLOR: "1" },
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const writer = child.stdin.getWriter();
      const send = (message: unknown) =>
        writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
      await send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "t", version: "1" },
        },
      });
      await send({ jsonrpc: "2.0", method: "notifications/initialized" });
      // Long enough for the watch to start (and, before the fix, to die).
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await send({ jsonrpc: "2.0", id: 2, method: "ping" });
      await send({
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "read_file", arguments: { path: "src/a.txt" } },
      });
      await writer.close();
      const output = await child.output();
      const stdout = new TextDecoder().decode(output.stdout);
      const stderr = new TextDecoder().decode(output.stderr);
      assert.equal(output.code, 0, stderr);
      const ids = stdout.trim().split("\n").map((line) => JSON.parse(line).id);
      assert.deepEqual(ids, [1, 2, 3], stdout);
      assert.ok(stdout.includes("hello"), stdout);
    } finally {
      await Deno.chmod(`${base}/root/locked`, 0o755).catch(() => {});
      await Deno.remove(base, { recursive: true });
    }
  },
});
