/**
 * Golden transcripts: each case in `tests/golden/` is run against the real
 * server process of every build target, and its stdout must match byte for
 * byte.
 *
 * A case is a set of files sharing a name:
 * - `NAME.in`: the exact bytes written to stdin (then stdin is closed);
 * - `NAME.out`: the exact bytes expected on stdout;
 * - `NAME.args` (optional): extra command-line arguments, one per line;
 * - `NAME.code` (optional): the expected exit code, default 0.
 *
 * Whatever the case, stderr must never carry a JSON-RPC message.
 *
 * Cases that name project files (resources) write `{{PROJECT_ROOT}}` (the
 * project's real path) or `{{PROJECT_URI}}` (its `file://` URI), both with
 * a trailing `/`, in any of their files; they are filled in at run time so
 * no transcript holds a machine-specific path.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { looksLikeJsonRpc, runServer } from "./process.ts";
import { PROJECT_ROOT, TARGETS, targetStatus } from "./server_command.ts";
import { pathToFileURL } from "node:url";

const GOLDEN = new URL("./golden/", import.meta.url);

interface GoldenCase {
  name: string;
  input: Uint8Array;
  output: Uint8Array;
  args: string[];
  code: number;
}

function readOptional(name: string): string | undefined {
  try {
    return Deno.readTextFileSync(new URL(name, GOLDEN));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

const REAL_ROOT = Deno.realPathSync(PROJECT_ROOT).replace(/\/?$/, "/");
const PLACEHOLDERS: [string, string][] = [
  ["{{PROJECT_ROOT}}", REAL_ROOT],
  ["{{PROJECT_URI}}", pathToFileURL(REAL_ROOT).href],
];

/** `bytes` with the placeholders filled in (non-UTF-8 input is left alone). */
function fill(bytes: Uint8Array): Uint8Array {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
      .decode(bytes);
  } catch {
    return bytes;
  }
  if (!text.includes("{{")) return bytes;
  for (const [name, value] of PLACEHOLDERS) text = text.replaceAll(name, value);
  return new TextEncoder().encode(text);
}

function loadCases(): GoldenCase[] {
  const names = [...Deno.readDirSync(GOLDEN)]
    .filter((entry) => entry.isFile && entry.name.endsWith(".in"))
    .map((entry) => entry.name.slice(0, -".in".length))
    .sort();
  return names.map((name) => {
    const args = readOptional(`${name}.args`)?.split("\n").map((a) =>
      new TextDecoder().decode(fill(new TextEncoder().encode(a)))
    ).filter((a) =>
      a.length > 0
    ) ?? [];
    const code = Number(readOptional(`${name}.code`)?.trim() ?? "0");
    return {
      name,
      input: fill(Deno.readFileSync(new URL(`${name}.in`, GOLDEN))),
      output: fill(Deno.readFileSync(new URL(`${name}.out`, GOLDEN))),
      args,
      code,
    };
  });
}

const cases = loadCases();
const decoder = new TextDecoder();

Deno.test("golden: the issue asks for at least 40 cases", () => {
  assert.ok(cases.length >= 40, `only ${cases.length} golden cases`);
});

for (const t of TARGETS) {
  const status = targetStatus(t);
  if (!status.available) {
    Deno.test({
      ignore: true,
      name: `golden [${t}] skipped: ${status.reason}`,
      fn() {},
    });
    continue;
  }
  for (const c of cases) {
    Deno.test(`golden [${t}] ${c.name}`, async () => {
      const run = await runServer(c.input, c.args, t);
      const stderr = decoder.decode(run.stderr);
      // Compare as text for a readable diff, then as bytes to be exact.
      assert.equal(decoder.decode(run.stdout), decoder.decode(c.output));
      assert.deepEqual(run.stdout, c.output);
      assert.equal(run.code, c.code, `exit code; stderr:\n${stderr}`);
      assert.ok(
        !looksLikeJsonRpc(stderr),
        `stderr carries a JSON-RPC message:\n${stderr}`,
      );
    });
  }
}
