import { strict as assert } from "node:assert";
import { moduleFileBeside } from "./module_file.ts";

Deno.test("moduleFileBeside: the first name that is a file beside the base", () => {
  const found = moduleFileBeside(import.meta.url, [
    "./no_such_module.js",
    "./module_file.ts",
  ]);
  assert.equal(found?.href, new URL("./module_file.ts", import.meta.url).href);
  assert.equal(moduleFileBeside(import.meta.url, ["./no_such.js"]), undefined);
  // A directory is not a module file.
  assert.equal(moduleFileBeside(import.meta.url, ["../workspace"]), undefined);
  assert.equal(
    moduleFileBeside("https://example.com/a.js", ["./b.js"]),
    undefined,
  );
});
