import { strict as assert } from "node:assert";
import { dropDebianStanza } from "./trees.ts";

// The end of the kernel's root .gitignore in Debian's linux-source-6.1.
const DEBIAN_END = [
  "sphinx_*/",
  "",
  "# Rust analyzer configuration",
  "/rust-project.json",
  "",
  "#",
  "# Debian packaging: ignore everything at the top level, since it isn't",
  "# included in our repository",
  "#",
  "/*",
  "!/debian/",
  "",
].join("\n");

Deno.test("dropDebianStanza: the stanza and its comment go, upstream's rules stay", () => {
  assert.equal(
    dropDebianStanza(DEBIAN_END),
    "sphinx_*/\n\n# Rust analyzer configuration\n/rust-project.json\n",
  );
});

Deno.test("dropDebianStanza: a file without the stanza is left as it is", () => {
  const upstream = "*.o\n/*.spec\n!/debian\n";
  assert.equal(dropDebianStanza(upstream), upstream);
  assert.equal(dropDebianStanza(""), "");
});
