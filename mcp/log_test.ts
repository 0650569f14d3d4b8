import { strict as assert } from "node:assert";

/** What `stderrLogger(...args)` writes to stderr for one warning. */
async function logged(args: string): Promise<string> {
  const url = new URL("./log.ts", import.meta.url).href;
  const code = `import { stderrLogger } from ${JSON.stringify(url)};
stderrLogger(${args}).log("warn", "disk full", new RangeError("no space"));
stderrLogger(${args}).log("debug", "not shown");`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-config", code],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  assert.equal(new TextDecoder().decode(out.stdout), "");
  return new TextDecoder().decode(out.stderr);
}

Deno.test("stderrLogger: with a name, lines read `NAME LEVEL: message`", async () => {
  const text = await logged(`"info", "example-mcp"`);
  assert.match(text, /^example-mcp warn: disk full RangeError: no space\n/);
  assert.ok(!text.includes("not shown"));
});

Deno.test("stderrLogger: without a name, lines read `LEVEL: message`", async () => {
  const text = await logged(`"warn"`);
  assert.match(text, /^warn: disk full RangeError: no space\n/);
});
