import { strict as assert } from "node:assert";
import { parseArgs } from "node:util";
import { withUsage } from "./usage.ts";

Deno.test("withUsage: --help prints the usage; a refused flag gives exit 2; other errors pass", async () => {
  const printed: string[] = [];
  const { log, error } = console;
  console.log = (text: string) => printed.push(`out: ${text}`);
  console.error = (text: string) => printed.push(`err: ${text}`);
  try {
    const parse = (args: string[]) => async () => {
      parseArgs({ args, options: { runs: { type: "string" } } });
      return await Promise.resolve(7);
    };
    assert.equal(await withUsage("b", ["--help"], "USAGE", parse([])), 0);
    assert.deepEqual(printed, ["out: USAGE"]);
    assert.equal(
      await withUsage("b", ["--runs", "3"], "U", parse(["--runs", "3"])),
      7,
    );
    printed.length = 0;
    assert.equal(await withUsage("b", ["--bogus"], "U", parse(["--bogus"])), 2);
    assert.equal(printed.length, 1);
    assert.match(printed[0], /^err: b: Unknown option '--bogus'\n\nU$/);
    await assert.rejects(
      withUsage("b", [], "U", () => Promise.reject(new TypeError("other"))),
      /other/,
    );
  } finally {
    console.log = log;
    console.error = error;
  }
});
