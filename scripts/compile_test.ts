/**
 * Tests of how scripts/compile.ts explains a failed `deno compile`.
 */

import { strict as assert } from "node:assert";
import { explainFailure, outputPath, TARGETS } from "./compile.ts";

// What deno 2.9.6 wrote on a machine without access to dl.deno.land.
const NO_NETWORK = `Check main.ts
Compile main.ts to dist/shipcode-mcp
Download https://dl.deno.land/release/v2.9.6/denort-x86_64-unknown-linux-gnu.zip
error: Writing deno compile executable to temporary file 'dist/shipcode-mcp.tmp-9dc213ede5a83124'

Caused by:
    0: Setting up base binary.
    1: error sending request for url (https://dl.deno.land/release/v2.9.6/denort-x86_64-unknown-linux-gnu.zip): client error (Connect): dns error: failed to lookup address information: Name or service not known
    2: client error (Connect)
    3: dns error
    4: failed to lookup address information: Name or service not known

Stack backtrace:
   0: <unknown>
`;

const TYPE_ERROR =
  `TS2322 [ERROR]: Type 'string' is not assignable to type 'number'.
    at file:///work/main/main.ts:3:7

error: Type checking failed.
`;

function assertOneSentence(text: string | undefined): string {
  assert.ok(text !== undefined);
  assert.ok(!text.includes("\n"), text);
  assert.ok(!/backtrace|Caused by/i.test(text), text);
  assert.ok(text.endsWith("."), text);
  return text;
}

Deno.test("no network: one sentence naming the runtime base and the way out", () => {
  const text = assertOneSentence(
    explainFailure(
      { code: 1, stderr: NO_NETWORK },
      "x86_64-unknown-linux-gnu",
      120,
    ),
  );
  assert.match(text, /could not download its runtime base/);
  assert.match(text, /x86_64-unknown-linux-gnu/);
  assert.match(text, /deno task bundle/);
  assert.match(text, /DENORT_BIN/);
});

Deno.test("DENORT_BIN naming a missing file: one sentence naming the path", () => {
  const stderr = `Check main.ts
Compile main.ts to dist/shipcode-mcp
error: Writing deno compile executable to temporary file 'dist/shipcode-mcp.tmp-bfcf62a493c38cbe'

Caused by:
    0: Could not find denort at '/opt/denort'
    1: No such file or directory (os error 2)
`;
  const text = assertOneSentence(
    explainFailure({ code: 1, stderr }, "x86_64-unknown-linux-gnu", 120),
  );
  assert.match(text, /no runtime base at \/opt\/denort \(from DENORT_BIN\)/);
});

Deno.test("timeout: one sentence with the limit and how to raise it", () => {
  const text = assertOneSentence(
    explainFailure(
      { code: undefined, stderr: "" },
      "aarch64-apple-darwin",
      7,
    ),
  );
  assert.match(text, /within 7 s/);
  assert.match(text, /SHIPCODE_COMPILE_TIMEOUT/);
});

Deno.test("a type error is not mistaken for a network failure", () => {
  assert.equal(
    explainFailure({ code: 1, stderr: TYPE_ERROR }, "x", 120),
    undefined,
  );
  assert.equal(explainFailure({ code: 0, stderr: "" }, "x", 120), undefined);
});

Deno.test("targets: the five the issue names; Windows binaries end in .exe", () => {
  assert.deepEqual([...TARGETS].sort(), [
    "aarch64-apple-darwin",
    "aarch64-unknown-linux-gnu",
    "x86_64-apple-darwin",
    "x86_64-pc-windows-msvc",
    "x86_64-unknown-linux-gnu",
  ]);
  assert.match(outputPath("x86_64-pc-windows-msvc"), /-msvc\.exe$/);
  assert.match(
    outputPath("aarch64-apple-darwin"),
    /shipcode-mcp-aarch64-apple-darwin$/,
  );
});
