import { strict as assert } from "node:assert";
import { RootUri } from "./uri.ts";
import { pathToFileHref } from "./file_url.ts";

const root = new RootUri("/srv/my code");

Deno.test("RootUri: the root's URI is percent-encoded with a trailing slash", () => {
  assert.equal(root.prefix, "file:///srv/my%20code/");
  assert.equal(new RootUri("/").prefix, "file:///");
});

Deno.test("RootUri: names round-trip through their URI, one spelling each", () => {
  const names = [
    "a.txt",
    "dir/sub/file.ts",
    "100%.txt",
    "x#y?z.txt",
    "é/ü.txt",
    "a;b=c@d&e+f,g$h!i'j(k)l*m~n",
    "sp ace/[x]{y}|^`",
    "%2e%2e",
    "back\\slash.txt",
    "C:\\temp.txt",
    "notes:v2.md",
    "a\\..\\b",
  ];
  for (const name of names) {
    const uri = root.uriOf(name);
    assert.ok(uri.startsWith(root.prefix), uri);
    assert.equal(root.relativeOf(uri), name, uri);
    assert.equal(root.normalize(uri), uri);
  }
});

Deno.test("RootUri: other spellings of one file normalise to its URI", () => {
  const canonical = "file:///srv/my%20code/src/main.ts";
  for (
    const spelling of [
      "file:///srv/my%20code/src/main.ts",
      "file://localhost/srv/my%20code/src/main.ts",
      "FILE:///srv/my%20code/src/main.ts",
      "file:///srv/my code/src/main.ts",
      "file:///srv/my%20code/./src/../src/main.ts",
      "file:///srv/my%20code/src/%2e/main.ts",
      "file:///srv/my%20code/lib/%2e%2e/src/main.ts",
      "file:///srv/%6Dy%20code/src/m%61in.ts",
    ]
  ) {
    assert.equal(root.normalize(spelling), canonical, spelling);
  }
});

Deno.test("RootUri: URIs naming nothing under the root give undefined", () => {
  for (
    const uri of [
      "http://example.com/srv/my%20code/a.txt",
      "file://otherhost/srv/my%20code/a.txt",
      "file:///srv/my%20code/",
      "file:///srv/my%20code",
      "file:///srv/other/a.txt",
      "file:///srv/my%20codex/a.txt",
      "file:///srv/my%20code/%2e%2e/%2e%2e/etc/passwd",
      "file:///srv/my%20code/..%2f..%2fetc/passwd",
      "file:///srv/my%20code/sub%2f..%2f..%2fx",
      "file:///srv/my%20code/a%00.txt",
      "file:///srv/my%20code//a.txt",
      "file:///srv/my%20code/a/",
      "file:///srv/my%20code/%zz",
      "file:///srv/my%20code/%C3",
      "not a uri",
    ]
  ) {
    assert.equal(root.relativeOf(uri), undefined, uri);
  }
  // A backslash is a name character on POSIX: one component, never a
  // separator, so it cannot climb out.
  assert.equal(
    root.relativeOf("file:///srv/my%20code/a%5c..%5cb"),
    "a\\..\\b",
  );
});

Deno.test("RootUri: a raw # or ? is part of the name, as RFC 6570 {+path} expands it", () => {
  const cases: [string, string][] = [
    ["file:///srv/my%20code/a#b.txt", "a#b.txt"],
    ["file:///srv/my%20code/q?x.txt", "q?x.txt"],
    ["file:///srv/my%20code/a.txt?x=1", "a.txt?x=1"],
    ["file:///srv/my%20code/a.txt#", "a.txt#"],
    ["file:///srv/my%20code/d#1/x?y#z", "d#1/x?y#z"],
  ];
  for (const [uri, name] of cases) {
    assert.equal(root.relativeOf(uri), name, uri);
    assert.equal(root.normalize(uri), root.uriOf(name));
  }
});

Deno.test("RootUri: a backslash is a name character on POSIX, refused on Windows", () => {
  const posix = new RootUri("/srv/a\\b", { windows: false });
  assert.equal(posix.prefix, "file:///srv/a%5Cb/");
  assert.equal(posix.relativeOf("file:///srv/a%5Cb/x%5Cy.txt"), "x\\y.txt");
  assert.equal(posix.relativeOf(posix.uriOf("C:\\temp.txt")), "C:\\temp.txt");
  // Unencoded, the URL parser takes it for a separator, as it must.
  assert.equal(posix.relativeOf("file:///srv/a%5Cb/x\\y.txt"), "x/y.txt");
  const windows = new RootUri("C:\\srv", { windows: true });
  assert.equal(windows.prefix, "file:///C:/srv/");
  assert.equal(windows.relativeOf("file:///C:/srv/x%5Cy.txt"), undefined);
  assert.equal(windows.relativeOf("file:///C:/srv/x/y.txt"), "x/y.txt");
});

Deno.test("RootUri: plain names are spelled as pathToFileHref spells them, and read back", () => {
  const names = [
    "a",
    "src/main.ts",
    "a/b.c/d-e_f+g,h=i@j",
    ".hidden/x",
    "..a/b..",
    "a/./b",
    "a/../b",
    "./a",
    "a/.",
    "a//b",
    "a/",
    "~x",
    "a b",
    "é",
    "a#b",
    "a?b",
    "100%",
    "back\\slash",
    "[x]",
  ];
  for (const root of ["/", "/w", "/w s/é", "/tmp/a,b"]) {
    const uris = new RootUri(root, { windows: false });
    const base = root === "/" ? "" : root;
    for (const name of names) {
      assert.equal(
        uris.uriOf(name),
        pathToFileHref(`${base}/${name}`, { windows: false }),
        `${root} ${name}`,
      );
      assert.equal(
        uris.roundTrips(name),
        uris.relativeOf(
          pathToFileHref(`${base}/${name}`, { windows: false }),
        ) ===
          name,
        `${root} ${name}`,
      );
    }
  }
});
