import { strict as assert } from "node:assert";
import { FLAGS, VERSION } from "./flags.ts";
import {
  defaultText,
  HELP_WIDTH,
  helpText,
  readmeFlagRows,
  terminalNote,
  wrap,
} from "./help.ts";
import { renameCommand } from "./invocation.ts";

/**
 * The text `--help` gives `--name`: its lines from the one that starts
 * with the flag to the next flag's, joined as one line.
 */
function flagEntry(lines: string[], name: string): string | undefined {
  const at = lines.findIndex((l) =>
    /^ {2}(-\w, )?--/.test(l) &&
      l.includes(`--${name} `) || l.endsWith(`--${name}`)
  );
  if (at < 0) return undefined;
  const entry = [lines[at]];
  for (const line of lines.slice(at + 1)) {
    if (!line.startsWith(" ".repeat(29))) break;
    entry.push(line.trim());
  }
  return entry.join(" ");
}

Deno.test("helpText: every flag of the table, with its default", () => {
  const lines = helpText().split("\n");
  for (const flag of Object.values(FLAGS)) {
    const line = flagEntry(lines, flag.name);
    assert.ok(line !== undefined, `--help does not list --${flag.name}`);
    assert.ok(
      line.replace(/\s+/g, " ").includes(
        flag.help.replaceAll("`", "").replace(/\s+/g, " "),
      ),
      line,
    );
    const fallback = defaultText(flag, false);
    if (fallback !== undefined) {
      assert.ok(line.endsWith(`(default: ${fallback})`), line);
    }
  }
  assert.ok(lines[0].startsWith(`shipcode-mcp ${VERSION} `));
});

Deno.test("helpText: every line fits 80 columns, under each name the program is run by", () => {
  for (const name of ["shipcode-mcp", "npx shipcode-mcp", "deno task start"]) {
    for (const line of renameCommand(helpText(), name).split("\n")) {
      assert.ok(line.length <= HELP_WIDTH, `${line.length}: ${line}`);
      assert.equal(line, line.trimEnd(), `trailing spaces: ${line}`);
    }
  }
  assert.equal(HELP_WIDTH, 80);
  // A usage too wide for its column gets a line of its own.
  assert.match(
    helpText(),
    /\n {2}--keep-alive-timeout SECONDS\n {29}with --http: /,
  );
});

Deno.test("wrap: lines of at most the width, broken between words", () => {
  assert.deepEqual(wrap("a bb ccc dddd", 6), ["a bb", "ccc", "dddd"]);
  assert.deepEqual(wrap("averyveryverylongword x", 6), [
    "averyveryverylongword",
    "x",
  ]);
  assert.deepEqual(wrap("", 6), []);
});

Deno.test("defaultText: switches are off, byte counts also in MiB", () => {
  assert.equal(defaultText(FLAGS.watch, true), "off");
  assert.equal(defaultText(FLAGS.maxDepth, true), "`8`");
  assert.equal(defaultText(FLAGS.maxReadBytes, true), "`1048576` (1 MiB)");
  assert.equal(defaultText(FLAGS.maxReadBytes, false), "1048576, 1 MiB");
  assert.equal(
    defaultText(FLAGS.root, false),
    "the client's roots, else the current directory",
  );
  assert.equal(defaultText(FLAGS.help, false), undefined);
});

Deno.test("terminalNote: names the version and the root", () => {
  assert.match(
    terminalNote("/srv/x"),
    new RegExp(`^shipcode-mcp ${VERSION} serves /srv/x `),
  );
});

/** The rows of the first Markdown table after `heading`, cells trimmed. */
function markdownTable(text: string, heading: string): string[][] {
  const lines = text.slice(text.indexOf(`\n${heading}\n`) + 1).split("\n");
  const start = lines.findIndex((line) => line.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(start)) {
    if (!line.startsWith("|")) break;
    rows.push(line.slice(1, -1).split(" | ").map((cell) => cell.trim()));
  }
  return rows.slice(2); // Without the header and the --- row.
}

Deno.test("docs/flags.md: its flag table is the flag table", async () => {
  const flags = await Deno.readTextFile(
    new URL("../docs/flags.md", import.meta.url),
  );
  const rows = markdownTable(flags, "## Flags");
  assert.deepEqual(rows, readmeFlagRows());
});

Deno.test("README: each row of its common flags is a row of the flag table", async () => {
  const readme = await Deno.readTextFile(
    new URL("../README.md", import.meta.url),
  );
  const rows = markdownTable(readme, "## Common flags");
  assert.ok(rows.length >= 3, `only ${rows.length} common flags`);
  const all = readmeFlagRows().map((row) => JSON.stringify(row));
  for (const row of rows) {
    assert.ok(all.includes(JSON.stringify(row)), JSON.stringify(row));
  }
});
