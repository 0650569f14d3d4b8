import { strict as assert } from "node:assert";
import { blankUnreadableMacros } from "./c_macros.ts";

/** `text` with each line's blanked part shown as `_`, for reading. */
function shown(text: string): string[] {
  return blankUnreadableMacros(text).split("\n").map((line, i) =>
    line === text.split("\n")[i] ? line : `${line.trimEnd()}_`
  );
}

Deno.test("c_macros: top-level macro calls that take a type or declare are blanked, in place", () => {
  const text = [
    "static int debug;",
    "module_param(debug, int, 0644);",
    'MODULE_PARM_DESC(debug, "debug level (0-2)");',
    "static SENSOR_DEVICE_ATTR_RO(in0_input, in,",
    "\t\t\t     0);",
    "DEFINE_PER_CPU(unsigned long, ticks);",
    "int probe(void);",
  ].join("\n");
  const blanked = blankUnreadableMacros(text);
  assert.equal(blanked.length, text.length);
  assert.deepEqual(shown(text), [
    "static int debug;",
    "_",
    'MODULE_PARM_DESC(debug, "debug level (0-2)");',
    "_",
    "_",
    "_",
    "int probe(void);",
  ]);
});

Deno.test("c_macros: definitions, prototypes and macro bodies are left alone", () => {
  const text = [
    "#define CALL(x) \\",
    "foo(x, int);",
    "static int",
    "probe(struct device *dev);",
    "static int",
    "probe(struct device *dev)",
    "{",
    "\treturn 0;",
    "}",
    "remove(struct device *dev)",
    "{",
    "}",
    "static int count(int n);",
  ].join("\n");
  assert.equal(blankUnreadableMacros(text), text);
});

Deno.test("c_macros: lock annotations between parameters and body are blanked", () => {
  const text = [
    "static void *next(struct seq_file *s,",
    "\t\t  loff_t *pos)",
    "\t__must_hold(RCU)",
    "\t__releases(&t->from->lock)",
    "{",
    "\treturn 0;",
    "}",
    "void f(void) __acquires(x);",
  ].join("\n");
  assert.deepEqual(shown(text), [
    "static void *next(struct seq_file *s,",
    "\t\t  loff_t *pos)",
    "_",
    "_",
    "{",
    "\treturn 0;",
    "}",
    "void f(void) __acquires(x);",
  ]);
});
