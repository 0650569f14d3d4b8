import { strict as assert } from "node:assert";
import { absolutePath } from "./path.ts";

Deno.test("absolutePath: relative paths resolve against cwd, . and .. drop out", () => {
  assert.equal(absolutePath("/w/a", "."), "/w/a");
  assert.equal(absolutePath("/w/a", ""), "/w/a");
  assert.equal(absolutePath("/w/a", "../b/./c/"), "/w/b/c");
  assert.equal(absolutePath("/w/a", "b//c"), "/w/a/b/c");
  assert.equal(absolutePath("/w", "a\\b"), "/w/a\\b");
});

Deno.test("absolutePath: absolute paths ignore cwd; .. stops at the root", () => {
  assert.equal(absolutePath("/w/a", "/x/../y"), "/y");
  assert.equal(absolutePath("/w", "../../.."), "/");
  assert.equal(absolutePath("/w", "//double/lead/"), "/double/lead");
  assert.equal(absolutePath("/w", "/C:/a"), "/C:/a");
});

Deno.test("absolutePath: Windows drive paths, with either separator", () => {
  assert.equal(absolutePath("C:\\w", "src\\..\\lib"), "C:\\w\\lib");
  assert.equal(absolutePath("/w", "D:/code"), "D:\\code");
  assert.equal(absolutePath("C:\\w", "D:\\a\\..\\..\\b"), "D:\\b");
  assert.equal(absolutePath("C:\\w", "\\top"), "C:\\top");
  assert.equal(absolutePath("c:\\", "."), "c:\\");
});

Deno.test("absolutePath: a UNC path is returned as given", () => {
  assert.equal(
    absolutePath("C:\\w", "\\\\server\\share\\a"),
    "\\\\server\\share\\a",
  );
});
