/**
 * `deno task golden:update [NAME...]`: after a change that alters the
 * server's output on purpose, run the golden cases (all, or those named)
 * against the server from source and rewrite every `.out` file whose bytes
 * differ, with this machine's project path put back as placeholders. It
 * prints what it rewrote; review the diff (`git diff tests/golden/`) before
 * committing: a golden file is only as good as the eye that checked it.
 *
 * @module
 */

import { GOLDEN, loadCases, unfill } from "../tests/golden.ts";
import { runServer } from "../tests/process.ts";

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/**
 * Rewrite the `.out` files of the cases `names` in `dir` (every case when
 * `names` is empty); returns the names rewritten.
 */
export async function updateGolden(
  names: string[],
  dir: URL = GOLDEN,
): Promise<string[]> {
  const cases = loadCases(dir);
  const known = new Set(cases.map((c) => c.name));
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new Error(
      `no golden case named ${
        unknown.join(", ")
      }; the cases are the *.in files in tests/golden/`,
    );
  }
  const chosen = names.length === 0
    ? cases
    : cases.filter((c) => names.includes(c.name));
  const rewritten: string[] = [];
  for (const c of chosen) {
    const run = await runServer(c.input, c.args, "source");
    if (run.code !== c.code) {
      console.error(
        `${c.name}: exit code ${run.code}, the case expects ${c.code} (${c.name}.code is not rewritten)`,
      );
    }
    if (equal(run.stdout, c.output)) continue;
    const path = new URL(`${c.name}.out`, dir);
    await Deno.writeFile(path, unfill(run.stdout));
    rewritten.push(c.name);
  }
  return rewritten;
}

if (import.meta.main) {
  const rewritten = await updateGolden(Deno.args);
  for (const name of rewritten) {
    console.error(`rewrote tests/golden/${name}.out`);
  }
  console.error(
    rewritten.length === 0
      ? "every golden .out file already matches the server"
      : "review the changes: git diff tests/golden/",
  );
}
