/**
 * `deno task serve`: run the server from source with exactly the
 * permissions its flags need, which a task written in advance cannot know:
 * with `--http HOST:PORT` the network at that address (and the token's
 * variable with `--auth-token-env`), else reading files only; on either,
 * the key's variable with `--state-key-env`. It starts `main.ts` in a
 * child Deno with those flags (`permissionFlags`), passes its arguments on
 * unchanged, hands it stdin, stdout and stderr, passes SIGTERM on, and
 * exits with its status.
 *
 * `deno task start` stays the direct way to serve stdio: it starts the
 * server in one process, without this launcher in front.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { parseFlags, UsageError } from "../cli/flags.ts";
import { permissionFlags, V8_FLAGS_ARG } from "../cli/run_command.ts";

/**
 * The arguments of `deno` that serve `args` with `mainScript`: `run`, the
 * permissions the flags in `args` need, the V8 flags, the script, `args`.
 * Flags that do not parse get the permissions of stdio; the server itself
 * then says what is wrong with them.
 */
export function serveDenoArgs(
  args: string[],
  mainScript: string,
  cwd: string,
): string[] {
  let needs = { http: "", authTokenEnv: "", stateKeyEnv: "" };
  try {
    const command = parseFlags(args, cwd);
    if (command.kind === "serve") needs = command.config;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
  }
  return ["run", ...permissionFlags(needs), V8_FLAGS_ARG, mainScript, ...args];
}

if (import.meta.main) {
  const child = new Deno.Command(Deno.execPath(), {
    args: serveDenoArgs(
      Deno.args,
      fileURLToPath(new URL("../main.ts", import.meta.url)),
      Deno.cwd(),
    ),
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  // Ctrl-C reaches the server directly (the terminal signals the whole
  // process group): this process only waits for it to finish. A SIGTERM
  // sent to this process alone is passed on.
  Deno.addSignalListener("SIGINT", () => {});
  try {
    Deno.addSignalListener("SIGTERM", () => child.kill("SIGTERM"));
  } catch {
    // Windows has no SIGTERM.
  }
  const status = await child.status;
  Deno.exit(status.code);
}
