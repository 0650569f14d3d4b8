/**
 * Golden transcripts: each case in `tests/golden/` (see `golden.ts`) is
 * run against the real server process of every build target, and its
 * stdout must match byte for byte. Whatever the case, stderr must never
 * carry a JSON-RPC message. After a change that alters output on purpose,
 * `deno task golden:update` rewrites the `.out` files; review the diff.
 *
 * @module
 */

import { strict as assert } from "node:assert";
import { loadCases } from "./golden.ts";
import { looksLikeJsonRpc, runServer } from "./process.ts";
import { TARGETS, targetStatus } from "./server_command.ts";

const cases = loadCases();
const decoder = new TextDecoder();

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
      try {
        assert.equal(decoder.decode(run.stdout), decoder.decode(c.output));
        assert.deepEqual(run.stdout, c.output);
      } catch (error) {
        if (error instanceof Error) {
          error.message +=
            `\nIf this change is intended: deno task golden:update ${c.name}, then review git diff tests/golden/\nexit code ${run.code}; stderr:\n${
              stderr.slice(0, 2000)
            }`;
        }
        throw error;
      }
      assert.equal(run.code, c.code, `exit code; stderr:\n${stderr}`);
      assert.ok(
        !looksLikeJsonRpc(stderr),
        `stderr carries a JSON-RPC message:\n${stderr}`,
      );
    });
  }
}
