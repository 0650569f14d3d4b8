import { strict as assert } from "node:assert";
import { globMatcher } from "./glob.ts";
import { globLiteral } from "./search_indexed.ts";

Deno.test("globLiteral: text every matching path holds, or none", () => {
  assert.equal(globLiteral("**/Makefile"), "Makefile");
  assert.equal(globLiteral("src/**/*.test.ts"), ".test.ts");
  assert.equal(globLiteral("README*"), "README");
  assert.equal(globLiteral("./Makefile"), "Makefile");
  assert.equal(globLiteral("{a,b}.c"), "");
  assert.equal(globLiteral("[ab].txt"), "");
  assert.equal(globLiteral(String.raw`a\*b`), "");
  const paths = ["Makefile", "a/Makefile", "src/x.test.ts", "README.md", "b.c"];
  for (const pattern of ["**/Makefile", "./Makefile", "*.test.ts", "README*"]) {
    const matches = globMatcher(pattern);
    for (const path of paths.filter(matches)) {
      assert.ok(path.includes(globLiteral(pattern)), `${pattern}: ${path}`);
    }
  }
});
