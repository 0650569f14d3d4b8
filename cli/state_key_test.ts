import { strict as assert } from "node:assert";
import { MIN_STATE_KEY_BYTES, stateKeyFrom } from "./state_key.ts";

const env = (values: Record<string, string>) => (name: string) => values[name];

Deno.test("stateKeyFrom: the variable's text, trimmed, as UTF-8 bytes", () => {
  const text = "k".repeat(MIN_STATE_KEY_BYTES);
  assert.deepEqual(
    stateKeyFrom("KEY", env({ KEY: ` ${text}\n` })),
    new TextEncoder().encode(text),
  );
  // Bytes, not characters: 16 two-byte characters are enough.
  assert.equal(
    (stateKeyFrom("KEY", env({ KEY: "é".repeat(16) })) as Uint8Array).length,
    32,
  );
});

Deno.test("stateKeyFrom: unset, empty, short or unreadable keys say what to do", () => {
  assert.match(
    stateKeyFrom("KEY", env({})) as string,
    /^--state-key-env KEY: the environment variable KEY is not set \(or empty\); set it to the same secret of 32 bytes or more on every instance/,
  );
  assert.match(stateKeyFrom("KEY", env({ KEY: " \n" })) as string, /not set/);
  assert.match(
    stateKeyFrom("KEY", env({ KEY: "k".repeat(31) })) as string,
    /the key in KEY has 31 bytes, too few to sign with; use 32 or more, e\.g\. the output of openssl rand -base64 32\.$/,
  );
  assert.equal(
    stateKeyFrom("KEY", () => {
      throw new Deno.errors.NotCapable("no");
    }),
    "cannot read environment variable KEY for --state-key-env; run deno with --allow-env=KEY.",
  );
});
