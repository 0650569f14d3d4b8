/**
 * `deno task install`: put a `shipcode-mcp` command on the PATH, with
 * `deno install --global` of this clone's bundle (`dist/shipcode-mcp.js`,
 * which the task builds first, with its workers beside it), with
 * the server's permission and V8 flags (`DENO_RUN_FLAGS`: reading files,
 * never a prompt) and an invocation hint (`cli/invocation.ts`) so that its
 * `--help`, errors and `config` name the installed command. The bundle
 * carries its npm modules, so the command needs no configuration, lock or
 * cache, and fetches nothing when it runs; `deno task bundle` (or this task
 * again) updates what it runs.
 *
 * The command goes to `INSTALL_ROOT/bin/shipcode-mcp`: `--root DIR` given
 * to the task, else `$DENO_INSTALL_ROOT`, else `~/.deno` (Deno's own
 * default). It serves stdio; for `--http`, `config` prints the `deno run`
 * command with the network permission (or use `deno task serve`).
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { invocationArg } from "../cli/invocation.ts";
import { DENO_RUN_FLAGS } from "../cli/run_command.ts";

/** The installed command's name. */
export const COMMAND_NAME = "shipcode-mcp";

const REPO = fileURLToPath(new URL("../", import.meta.url));

/** Where `deno install --global` puts a command for `root` (the install root). */
export function installedPath(root: string, windows = false): string {
  const sep = windows ? "\\" : "/";
  const base = root.endsWith(sep) ? root.slice(0, -1) : root;
  return `${base}${sep}bin${sep}${COMMAND_NAME}${windows ? ".cmd" : ""}`;
}

/**
 * The arguments of `deno` that install the command from the clone at
 * `repo` (ending in `/`) into `root`.
 */
export function installArgs(
  repo: string,
  root: string,
  windows = false,
): string[] {
  return [
    "install",
    "--global",
    "--force",
    "--quiet",
    "--name",
    COMMAND_NAME,
    "--root",
    root,
    // The bundle carries its npm modules: no configuration, no lock, and
    // nothing to fetch when it runs.
    "--no-config",
    ...DENO_RUN_FLAGS,
    `${repo}dist/shipcode-mcp.js`,
    // The script's own arguments, which deno would otherwise take as its.
    "--",
    invocationArg({
      name: COMMAND_NAME,
      command: [installedPath(root, windows)],
      fixedPermissions: true,
    }),
  ];
}

/** The install root: `--root DIR` in `args`, else the environment's. */
export function installRoot(
  args: readonly string[],
  env: (name: string) => string | undefined,
  cwd: string,
): string {
  const at = args.findIndex((arg) => arg === "--root");
  const given = at >= 0
    ? args[at + 1]
    : args.find((arg) => arg.startsWith("--root="))?.slice(7);
  const root = given ?? env("DENO_INSTALL_ROOT") ??
    `${env("HOME") ?? env("USERPROFILE") ?? cwd}/.deno`;
  return root.startsWith("/") || /^[A-Za-z]:[\\/]/.test(root)
    ? root
    : `${cwd}/${root}`;
}

if (import.meta.main) {
  const root = installRoot(
    Deno.args,
    (name) => Deno.env.get(name),
    Deno.cwd(),
  );
  const windows = Deno.build.os === "windows";
  const out = await new Deno.Command(Deno.execPath(), {
    args: installArgs(REPO, root, windows),
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!out.success) Deno.exit(out.code || 1);
  const command = installedPath(root, windows);
  const bin = command.slice(0, command.lastIndexOf(windows ? "\\" : "/"));
  const onPath = (Deno.env.get("PATH") ?? "").split(windows ? ";" : ":")
    .includes(bin);
  console.log(
    `Installed ${command}.${
      onPath ? "" : `\nAdd ${bin} to your PATH to run it as ${COMMAND_NAME}.`
    }\nConnect a client: ${COMMAND_NAME} config <client> --root DIR (claude-desktop, claude-code, cursor, vscode).`,
  );
}
