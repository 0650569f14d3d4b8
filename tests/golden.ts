/**
 * Golden transcripts: the cases in `tests/golden/`, shared by the test that
 * checks them (`golden_test.ts`) and the task that rewrites them after an
 * intended change (`deno task golden:update`, `scripts/golden_update.ts`).
 *
 * A case is a set of files sharing a name:
 * - `NAME.in`: the exact bytes written to stdin (then stdin is closed);
 * - `NAME.out`: the exact bytes expected on stdout;
 * - `NAME.args` (optional): extra command-line arguments, one per line;
 * - `NAME.code` (optional): the expected exit code, default 0.
 *
 * Every case runs with `--order-wait` raised to ten minutes (unless its
 * `.args` set it): a transcript checks bytes, and on a loaded machine one
 * file read can take longer than the default 200 ms an answer waits for an
 * earlier one, which would let answers out of request order. What happens
 * when the wait runs out is tested where time is under the test's control
 * (`mcp/response_order_test.ts`, `mcp/connection_test.ts`).
 *
 * Cases that name project files (resources) write `{{PROJECT_ROOT}}` (the
 * project's real path) or `{{PROJECT_URI}}` (its `file://` URI), both with
 * a trailing `/`, in any of their files; they are filled in at run time so
 * no transcript holds a machine-specific path.
 *
 * @module
 */

import { pathToFileURL } from "node:url";
import { PROJECT_ROOT } from "./server_command.ts";

/** The folder of the golden cases. */
export const GOLDEN: URL = new URL("./golden/", import.meta.url);

/** One golden case, placeholders filled in. */
export interface GoldenCase {
  /** The files' shared name. */
  name: string;
  /** Bytes for stdin. */
  input: Uint8Array;
  /** Bytes expected on stdout. */
  output: Uint8Array;
  /** Extra command-line arguments. */
  args: string[];
  /** Expected exit code. */
  code: number;
}

function readOptional(name: string, dir: URL): string | undefined {
  try {
    return Deno.readTextFileSync(new URL(name, dir));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

const REAL_ROOT = Deno.realPathSync(PROJECT_ROOT).replace(/\/?$/, "/");
// The URI first: it contains the path.
const PLACEHOLDERS: [string, string][] = [
  ["{{PROJECT_URI}}", pathToFileURL(REAL_ROOT).href],
  ["{{PROJECT_ROOT}}", REAL_ROOT],
];

// `bytes` as UTF-8 text changed by `change`; bytes that are not UTF-8 are
// returned as they are.
function mapText(
  bytes: Uint8Array,
  change: (text: string) => string,
): Uint8Array {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
      .decode(bytes);
  } catch {
    return bytes;
  }
  return new TextEncoder().encode(change(text));
}

/** `bytes` with the placeholders filled in (non-UTF-8 input is left alone). */
export function fill(bytes: Uint8Array): Uint8Array {
  return mapText(bytes, (text) => {
    for (const [name, value] of PLACEHOLDERS) {
      text = text.replaceAll(name, value);
    }
    return text;
  });
}

/** `bytes` with this machine's project path and URI turned back into placeholders. */
export function unfill(bytes: Uint8Array): Uint8Array {
  return mapText(bytes, (text) => {
    for (const [name, value] of PLACEHOLDERS) {
      text = text.replaceAll(value, name);
    }
    return text;
  });
}

/** The arguments every case gets first; see the module's documentation. */
export const ORDER_WAIT_ARGS: readonly string[] = ["--order-wait", "600000"];

/** Every case in `dir` (a folder URL ending in `/`), sorted by name. */
export function loadCases(dir: URL = GOLDEN): GoldenCase[] {
  const names = [...Deno.readDirSync(dir)]
    .filter((entry) => entry.isFile && entry.name.endsWith(".in"))
    .map((entry) => entry.name.slice(0, -".in".length))
    .sort();
  return names.map((name) => {
    const args = readOptional(`${name}.args`, dir)?.split("\n").map((a) =>
      new TextDecoder().decode(fill(new TextEncoder().encode(a)))
    ).filter((a) =>
      a.length > 0
    ) ?? [];
    if (!args.includes("--order-wait")) args.unshift(...ORDER_WAIT_ARGS);
    const code = Number(readOptional(`${name}.code`, dir)?.trim() ?? "0");
    return {
      name,
      input: fill(Deno.readFileSync(new URL(`${name}.in`, dir))),
      output: fill(Deno.readFileSync(new URL(`${name}.out`, dir))),
      args,
      code,
    };
  });
}
