import { strict as assert } from "node:assert";
import {
  cMacroCall,
  CTAGS_LANGUAGES,
  ctagsArgs,
  parseTagLine,
  quotedLine,
  type Tag,
} from "./ctags.ts";

function tag(name: string, line: string, kind = "function"): Tag {
  return { name, path: "a.c", line: 1, kind, pattern: `/^${line}$/` };
}

Deno.test("ctags: the command line tags the counted kinds of the files on stdin", () => {
  assert.deepEqual(ctagsArgs(CTAGS_LANGUAGES.c), [
    "--output-format=json",
    "--fields=+nK",
    "--languages=C",
    "--langmap=C:.c.h",
    "--kinds-C=fsu",
    "-L",
    "-",
    "-f",
    "-",
  ]);
});

Deno.test("ctags: a JSON line is a counted tag, or nothing", () => {
  const kinds = new Set(["function"]);
  assert.deepEqual(
    parseTagLine(
      '{"_type": "tag", "name": "f", "path": "a.c", "pattern": "/^int f(void)$/", "line": 3, "kind": "function"}',
      kinds,
    ),
    {
      name: "f",
      path: "a.c",
      line: 3,
      kind: "function",
      pattern: "/^int f(void)$/",
    },
  );
  assert.equal(
    parseTagLine('{"_type": "ptag", "name": "JSON_OUTPUT_VERSION"}', kinds),
    undefined,
  );
  assert.equal(
    parseTagLine(
      '{"_type": "tag", "name": "x", "path": "a.c", "line": 1, "kind": "variable"}',
      kinds,
    ),
    undefined,
  );
  assert.equal(
    parseTagLine(
      '{"_type": "tag", "name": "__anon1f2e", "path": "a.c", "line": 1, "kind": "function"}',
      kinds,
    ),
    undefined,
  );
  assert.equal(parseTagLine("", kinds), undefined);
});

Deno.test("ctags: the quoted line is the pattern without its delimiters and escapes", () => {
  assert.equal(quotedLine(tag("f", "int f(char \\/* s)")), "int f(char /* s)");
  assert.equal(
    quotedLine({ name: "f", path: "a.c", line: 1, kind: "function" }),
    "",
  );
});

Deno.test("ctags: a macro call taken for a function is told from a definition", () => {
  assert.ok(
    cMacroCall(
      tag("ACPI_EXPORT_SYMBOL", "ACPI_EXPORT_SYMBOL(acpi_load_table)"),
    ),
  );
  assert.ok(
    cMacroCall(tag("DEF_SCSI_QCMD", "static DEF_SCSI_QCMD(twa_scsi_queue)")),
  );
  assert.ok(
    cMacroCall(
      tag(
        "UVERBS_HANDLER",
        "static int UVERBS_HANDLER(UVERBS_METHOD_QP_CREATE)(",
      ),
    ),
  );
  assert.ok(!cMacroCall(tag("MAX_LEN", "static int MAX_LEN(int a)")));
  assert.ok(!cMacroCall(tag("probe", "probe(struct device *dev)")));
  assert.ok(!cMacroCall(tag("FOO", "FOO(x)", "struct")));
});
