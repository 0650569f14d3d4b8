import { strict as assert } from "node:assert";
import { logText } from "./log.ts";

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

Deno.test("stderrLogger: a client's text cannot forge lines: control characters escaped, length capped", async () => {
  const url = new URL("./log.ts", import.meta.url).href;
  const code = `import { stderrLogger } from ${JSON.stringify(url)};
const logger = stderrLogger("debug", "s");
logger.log("debug", "ignored notification a\\nerror: forged\\u001b[31m\\r\\u2028");
logger.log("warn", "failed:", new TypeError("bad\\nerror: forged too"));
logger.log("info", "x".repeat(5000));`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-config", code],
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const lines = new TextDecoder().decode(out.stderr).split("\n");
  assert.equal(
    lines[0],
    "s debug: ignored notification a\\nerror: forged\\u{1b}[31m\\r\\u{2028}",
  );
  assert.equal(lines[1], "s warn: failed: TypeError: bad\\nerror: forged too");
  // The error's stack frames follow, each on its own line.
  assert.match(lines[2], /^ {4}at /);
  assert.ok(!lines.some((line) => line.startsWith("error: forged")));
  const long = lines.find((line) => line.startsWith("s info: "))!;
  assert.equal(
    long,
    `s info: ${"x".repeat(2000)}… (3000 more characters)`,
  );
});

Deno.test("logText: escapes C0, DEL, C1 and the separators; cuts at max", () => {
  assert.equal(logText("a\tb\x7f\x85c"), "a\\tb\\u{7f}\\u{85}c");
  assert.equal(logText("abcdef", 3), "abc… (3 more characters)");
  assert.equal(logText("plain text, ünïcode"), "plain text, ünïcode");
});
