import { strict as assert } from "node:assert";
import { pathToFileURL } from "node:url";
import { pathToFileHref } from "./file_url.ts";

// The reference: Node's own conversion (node:url), which pathToFileHref
// must match without importing it.
function reference(path: string, windows: boolean): string {
  return pathToFileURL(path, { windows } as { windows: boolean }).href;
}

const TRICKY_POSIX = [
  "/",
  "/srv/my code/a.txt",
  "/100%.txt",
  "/%2e%2e/%2F/%00",
  "/x#y?z.txt",
  "/a?b#c?d",
  "/é/ü/日本語/😀.txt",
  "/lone\ud800surrogate",
  "/back\\slash\\",
  "/new\nline/carriage\rreturn/tab\there",
  "/\0nul",
  "/[x]{y}|^`~'\"<>@:;=&$!*+,()",
  "/a;b=c@d&e+f,g$h!i'j(k)l*m~n",
  "/a/./b/../c//d/",
  "/a/..",
  "/a/.",
  "//double/lead",
  "/../../above/root",
  "/...",
  "/.hidden/..x/x..",
  "/C:/looks/like/a/drive",
  "/C|/pipe/drive",
  "/dir/",
  "/space at end ",
  "/\u00a0\u2028\ufeff",
];

Deno.test("pathToFileHref: equals node:url pathToFileURL on tricky POSIX paths", () => {
  for (const path of TRICKY_POSIX) {
    assert.equal(
      pathToFileHref(path, { windows: false }),
      reference(path, false),
      JSON.stringify(path),
    );
  }
});

Deno.test("pathToFileHref: equals node:url for every UTF-16 code unit in a POSIX name", () => {
  for (let code = 0; code < 0x10000; code++) {
    const char = String.fromCharCode(code);
    for (const path of [`/a${char}b`, `/${char}/`]) {
      const ours = pathToFileHref(path, { windows: false });
      if (ours !== reference(path, false)) {
        assert.fail(`${JSON.stringify(path)}: ${ours}`);
      }
    }
  }
});

Deno.test("pathToFileHref: equals node:url on random POSIX paths", () => {
  const pieces = [
    "/",
    "/",
    ".",
    "..",
    "a",
    "%",
    "%2e",
    "\\",
    "\n",
    "\r",
    "\t",
    "#",
    "?",
    " ",
    "é",
    "😀",
    "\ud800",
    "C:",
    "C|",
    "[",
    "^",
    "|",
    "~",
    "\0",
  ];
  // A fixed linear congruential sequence: the same cases on every run.
  let state = 12345;
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31);
  for (let i = 0; i < 5000; i++) {
    let path = "/";
    for (let n = 1 + (i % 12); n > 0; n--) {
      path += pieces[next() % pieces.length];
    }
    assert.equal(
      pathToFileHref(path, { windows: false }),
      reference(path, false),
      JSON.stringify(path),
    );
  }
});

Deno.test("pathToFileHref: relative POSIX paths resolve from the working directory", () => {
  for (const path of ["", ".", "a b/c", "../x/"]) {
    assert.equal(
      pathToFileHref(path, { windows: false }),
      reference(path, false),
      JSON.stringify(path),
    );
  }
});

Deno.test("pathToFileHref: equals node:url on Windows drive and UNC paths", () => {
  for (
    const path of [
      "C:\\Users\\me\\my code\\a.ts",
      "c:\\lower\\drive",
      "D:/forward/slashes",
      "C:\\mixed/seps\\..\\x\\.\\y",
      "C:\\a\\..\\..\\..\\above",
      "C:\\dir\\",
      "C:\\100%\\x#y?z\\[a]^|~\\é😀",
      "C:\\tab\there\\new\nline",
      "\\\\server\\share\\a b\\c.txt",
      "\\\\SERVER\\share\\a/b/../c",
      "\\\\server\\share\\..\\x",
      "\\\\server\\share",
      "\\\\server\\share\\",
      "\\\\server\\sh%are\\a#b|~",
      "\\\\Bücher.example\\s\\a",
      "\\\\?\\UNC\\server\\share\\a\\b",
      "\\\\?\\C:\\a\\..\\b",
    ]
  ) {
    assert.equal(
      pathToFileHref(path, { windows: true }),
      reference(path, true),
      JSON.stringify(path),
    );
  }
});

Deno.test("pathToFileHref: a Windows drive root keeps one slash", () => {
  // node:url asked for Windows paths on a POSIX host compares the trailing
  // separator with the host's "/" and spells these "file:///C://"; on
  // Windows (the case that matters) it is "file:///C:/".
  assert.equal(pathToFileHref("C:\\", { windows: true }), "file:///C:/");
  assert.equal(pathToFileHref("C:\\a\\..\\", { windows: true }), "file:///C:/");
});

Deno.test("pathToFileHref: a UNC path without a share or with a bad server throws", () => {
  for (const path of ["\\\\server", "\\\\ser ver\\s\\a", "\\\\\\share\\a"]) {
    assert.throws(
      () => pathToFileHref(path, { windows: true }),
      TypeError,
      path,
    );
    assert.throws(() => reference(path, true), TypeError, path);
  }
});

Deno.test("pathToFileHref: the default follows the host OS", () => {
  const path = "/srv/a\\b";
  assert.equal(
    pathToFileHref(path),
    pathToFileHref(path, { windows: Deno.build.os === "windows" }),
  );
});
