/**
 * Builds the standalone `shipcode-mcp` binary with `deno compile`, read-only
 * and never prompting, and turns its failures into one clear sentence.
 *
 * ```sh
 * deno run -A scripts/compile.ts          # dist/shipcode-mcp for this machine
 * deno run -A scripts/compile.ts --all    # five targets + dist/SHA256SUMS
 * deno run -A scripts/compile.ts --try    # as the first, but a failure only
 *                                         # marks the binary unavailable
 * ```
 *
 * `deno compile` downloads its runtime base (`denort`) from dl.deno.land on
 * first use; where that host cannot be reached it fails with a Rust error
 * chain and a backtrace. This script waits at most `SHIPCODE_COMPILE_TIMEOUT`
 * seconds (default 120) and reports the cause in one line. `DENORT_BIN`, if
 * set, is honoured by `deno compile` itself and skips the download.
 *
 * With `--try` (what `deno task test` uses) a failure exits 0 and writes the
 * reason to `dist/shipcode-mcp.unavailable`, so the test suites list the
 * binary target as ignored with that reason instead of failing or passing
 * silently.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { VERSION } from "../cli/flags.ts";
import { DENO_RUN_FLAGS } from "../cli/run_command.ts";

/** The targets `--all` builds, as `deno compile --target` names them. */
export const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
] as const;

/** The file whose text says why the binary could not be built. */
export const UNAVAILABLE_FILE = "shipcode-mcp.unavailable";

const PROJECT_ROOT = fileURLToPath(new URL("../", import.meta.url));
const DIST = join(PROJECT_ROOT, "dist");

/** How one `deno compile` run ended. */
export interface CompileOutcome {
  /** Its exit code, or `undefined` when it was killed at the timeout. */
  code: number | undefined;
  /** Everything it wrote to stderr. */
  stderr: string;
}

/**
 * One sentence explaining a failed `deno compile`, or `undefined` when the
 * failure is not one this script knows (then deno's own output is shown:
 * a type error in the sources is best read as deno wrote it).
 */
export function explainFailure(
  outcome: CompileOutcome,
  target: string,
  timeoutSeconds: number,
): string | undefined {
  if (outcome.code === undefined) {
    return `deno compile for ${target} did not finish within ${timeoutSeconds} s (most likely stuck downloading its runtime base, denort, from dl.deno.land), so no binary was built; set SHIPCODE_COMPILE_TIMEOUT to wait longer.`;
  }
  if (outcome.code === 0) return undefined;
  const text = outcome.stderr;
  const baseBinary = /Setting up base binary|denort|dl\.deno\.land/i.test(
    text,
  );
  // What deno says when DENORT_BIN names a file that is not there.
  const missing = /Could not find denort at '([^']*)'/.exec(text)?.[1];
  if (missing !== undefined) {
    return `deno compile found no runtime base at ${missing} (from DENORT_BIN), so no binary was built; point DENORT_BIN at a denort binary of Deno ${Deno.version.deno} for ${target}, or unset it.`;
  }
  if (baseBinary) {
    return `deno compile could not download its runtime base (denort ${Deno.version.deno} for ${target}) from dl.deno.land, so no binary was built: this machine cannot reach that host; use the bundle instead (deno task bundle), or set DENORT_BIN to a local denort binary.`;
  }
  return undefined;
}

/** The output path of the binary for `target` (undefined: this machine). */
export function outputPath(target: string | undefined): string {
  if (target === undefined) {
    return join(
      DIST,
      Deno.build.os === "windows" ? "shipcode-mcp.exe" : "shipcode-mcp",
    );
  }
  const exe = target.includes("windows") ? ".exe" : "";
  return join(DIST, `shipcode-mcp-${target}${exe}`);
}

/** Run `deno compile` for `target`, killing it after `timeoutSeconds`. */
async function compile(
  target: string | undefined,
  output: string,
  timeoutSeconds: number,
): Promise<CompileOutcome> {
  const args = [
    "compile",
    // The binary runs with the permissions and V8 flags of `deno run`.
    ...DENO_RUN_FLAGS,
    "--quiet",
    // Search's, the index's and the symbol parser's worker threads load
    // these modules by URL, so they are not in main.ts's import graph;
    // without them the binary searches, indexes and parses on one thread.
    "--include",
    join(PROJECT_ROOT, "tools", "scan_worker.ts"),
    "--include",
    join(PROJECT_ROOT, "workspace", "index_worker.ts"),
    "--include",
    join(PROJECT_ROOT, "tools", "symbol_worker.ts"),
    "-o",
    output,
  ];
  if (target !== undefined) args.push("--target", target);
  args.push(join(PROJECT_ROOT, "main.ts"));
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: PROJECT_ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    // A Rust backtrace says nothing to someone building this project.
    env: { NO_COLOR: "1", RUST_BACKTRACE: "0" },
  }).spawn();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      child.kill("SIGKILL");
    } catch {
      // Already exited between the timer firing and the kill.
    }
  }, timeoutSeconds * 1000);
  const result = await child.output();
  clearTimeout(timer);
  if (timedOut) await removeTemporaries(output);
  const stderr = new TextDecoder().decode(result.stderr) +
    new TextDecoder().decode(result.stdout);
  return { code: timedOut ? undefined : result.code, stderr };
}

/** Remove the `<output>.tmp-*` file a killed `deno compile` leaves behind. */
async function removeTemporaries(output: string): Promise<void> {
  const prefix = `${basename(output)}.tmp-`;
  for await (const entry of Deno.readDir(DIST)) {
    if (entry.name.startsWith(prefix)) {
      await Deno.remove(join(DIST, entry.name));
    }
  }
}

async function sha256(path: string): Promise<string> {
  const hash = createHash("sha256");
  using file = await Deno.open(path);
  for await (const chunk of file.readable) hash.update(chunk);
  return hash.digest("hex");
}

async function removeIfPresent(path: string): Promise<void> {
  try {
    await Deno.remove(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

function megabytes(path: string): string {
  return (Deno.statSync(path).size / (1024 * 1024)).toFixed(1);
}

/**
 * Run a binary built for this machine with `--version`; a sentence saying
 * what is wrong, or undefined when it answers as shipcode-mcp. A DENORT_BIN
 * pointing at a full `deno` builds "successfully" into a plain deno.
 */
async function smokeTest(binary: string): Promise<string | undefined> {
  const expected = `shipcode-mcp ${VERSION}\n`;
  try {
    const out = await new Deno.Command(binary, {
      args: ["--version"],
      stdin: "null",
    }).output();
    const printed = new TextDecoder().decode(out.stdout);
    if (out.success && printed === expected) return undefined;
    return `the built binary does not run as shipcode-mcp (--version printed ${
      JSON.stringify(printed.split("\n")[0])
    }); if DENORT_BIN is set, point it at a denort binary, not a full deno.`;
  } catch (error) {
    return `the built binary cannot be run (${(error as Error).message}).`;
  }
}

/** Build one target; print one line either way; true when it was built. */
async function buildOne(
  target: string | undefined,
  timeoutSeconds: number,
): Promise<{ built: true } | { built: false; reason: string }> {
  const output = outputPath(target);
  const label = target ?? Deno.build.target;
  const outcome = await compile(target, output, timeoutSeconds);
  if (outcome.code === 0) {
    const problem = target === undefined ? await smokeTest(output) : undefined;
    if (problem !== undefined) {
      await removeIfPresent(output);
      return { built: false, reason: problem };
    }
    console.error(
      `built ${output.slice(PROJECT_ROOT.length)} for ${label} (${
        megabytes(output)
      } MB)`,
    );
    return { built: true };
  }
  const sentence = explainFailure(outcome, label, timeoutSeconds);
  if (sentence !== undefined) return { built: false, reason: sentence };
  // Unknown failure: deno's own words, then a summary line that quotes
  // the first error, since the summary is also the tests' skip reason.
  console.error(outcome.stderr.trimEnd());
  const firstError = outcome.stderr.split("\n").find((line) =>
    /error/i.test(line)
  )?.trim();
  return {
    built: false,
    reason: `deno compile for ${label} failed (exit ${outcome.code})${
      firstError ? `: ${firstError}` : ""
    }.`,
  };
}

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { all: { type: "boolean" }, try: { type: "boolean" } },
  });
  const timeoutSeconds = Number(
    Deno.env.get("SHIPCODE_COMPILE_TIMEOUT") ?? "120",
  );
  if (!(timeoutSeconds > 0)) {
    console.error(
      "SHIPCODE_COMPILE_TIMEOUT must be a number of seconds above 0.",
    );
    return 2;
  }
  await Deno.mkdir(DIST, { recursive: true });
  const unavailable = join(DIST, UNAVAILABLE_FILE);

  if (!values.all) {
    const result = await buildOne(undefined, timeoutSeconds);
    if (result.built) {
      await removeIfPresent(unavailable);
      return 0;
    }
    console.error(result.reason);
    if (!values.try) return 1;
    // A binary left from an earlier build would be tested against newer
    // sources; better no binary and a visible reason.
    await removeIfPresent(outputPath(undefined));
    await Deno.writeTextFile(unavailable, result.reason + "\n");
    console.error("the binary target will be ignored by the tests.");
    return 0;
  }

  const sums: string[] = [];
  for (const target of TARGETS) {
    const result = await buildOne(target, timeoutSeconds);
    if (!result.built) {
      // Every target needs its own runtime base; when one cannot be had,
      // the rest will not fare better.
      console.error(result.reason);
      return 1;
    }
    const path = outputPath(target);
    sums.push(`${await sha256(path)}  ${basename(path)}`);
  }
  await Deno.writeTextFile(join(DIST, "SHA256SUMS"), sums.join("\n") + "\n");
  console.error(
    `wrote dist/SHA256SUMS for ${TARGETS.length} binaries (check with: cd dist && sha256sum -c SHA256SUMS)`,
  );
  return 0;
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
