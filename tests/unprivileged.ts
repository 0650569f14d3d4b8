/**
 * Running a script as a user without privileges, for tests of files it
 * may not read: root reads everything, so as root the script runs as uid
 * 65534 through `setpriv`; any other user runs it as itself.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { programRuns } from "./have_program.ts";

const asRoot = Deno.uid() === 0;
const hasSetpriv = asRoot && await programRuns("setpriv", ["--version"]);

/** Whether {@linkcode runUnprivileged} can run here (false: root without setpriv). */
export const canDropPrivileges: boolean = !asRoot || hasSetpriv;

/** How a test of unreadable files names its way of running, in its title. */
export const UNPRIVILEGED_HOW: string = canDropPrivileges
  ? "run as uid 65534 via setpriv"
  : "skipped: running as root without setpriv";

/**
 * Run `script` (`deno eval`, with `Deno.args` = `args`) as a user without
 * privileges; it must succeed and print one JSON value, which is returned.
 * The user's id is checked not to be root's.
 */
export async function runUnprivileged(
  script: string,
  args: readonly string[],
): Promise<unknown> {
  const deno = Deno.execPath();
  const evalArgs = ["eval", `${script}\n`, ...args];
  const denoDir = await Deno.makeTempDir({ prefix: "shipcode-deno-dir-" });
  try {
    await Deno.chmod(denoDir, 0o777);
    const command = asRoot
      ? new Deno.Command("setpriv", {
        args: [
          "--reuid=65534",
          "--regid=65534",
          "--clear-groups",
          deno,
          ...evalArgs,
        ],
        env: { DENO_DIR: denoDir, HOME: denoDir, NO_COLOR: "1" },
      })
      : new Deno.Command(deno, { args: evalArgs });
    const out = await command.output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    const result = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.notEqual(result.uid, 0, "the script must report Deno.uid() as uid");
    return result;
  } finally {
    await Deno.remove(denoDir, { recursive: true });
  }
}

/**
 * A fresh directory (real path) that an unprivileged process can enter,
 * holding `ok.txt` and `sub/y.txt` ("readable text") beside an unreadable
 * file `locked.txt` and an unreadable directory `locked_dir` (with
 * `inner.txt`, "hidden text"): what the tests of skipped entries walk.
 */
export async function lockedTree(prefix: string): Promise<string> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix }));
  await Deno.chmod(base, 0o755);
  await Deno.writeTextFile(`${base}/ok.txt`, "readable text\n");
  await Deno.mkdir(`${base}/locked_dir`);
  await Deno.writeTextFile(`${base}/locked_dir/inner.txt`, "hidden text\n");
  await Deno.writeTextFile(`${base}/locked.txt`, "locked text\n");
  await Deno.mkdir(`${base}/sub`);
  await Deno.writeTextFile(`${base}/sub/y.txt`, "readable text\n");
  await Deno.chmod(`${base}/locked_dir`, 0o000);
  await Deno.chmod(`${base}/locked.txt`, 0o000);
  return base;
}
