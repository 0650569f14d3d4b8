import { strict as assert } from "node:assert";
import { mimeTypeOf } from "./mime.ts";

Deno.test("mimeTypeOf: common types, as this server has always named them", () => {
  const expected: Record<string, string | undefined> = {
    "a.txt": "text/plain",
    "README.md": "text/markdown",
    "deno.json": "application/json",
    "main.js": "text/javascript",
    "mod.mjs": "text/javascript",
    "App.jsx": "text/jsx",
    "index.html": "text/html",
    "site.css": "text/css",
    "icon.svg": "image/svg+xml",
    "a.png": "image/png",
    "photo.JPG": "image/jpeg",
    "favicon.ico": "image/vnd.microsoft.icon",
    "doc.pdf": "application/pdf",
    "a.zip": "application/zip",
    "a.tar.gz": "application/gzip",
    "m.wasm": "application/wasm",
    "pom.xml": "application/xml",
    "ci.yaml": "text/yaml",
    "ci.yml": "text/yaml",
    "Cargo.toml": "application/toml",
    "data.csv": "text/csv",
    "build.sh": "application/x-sh",
    "main.c": "text/x-c",
    "Main.java": "text/x-java-source",
    "font.woff2": "font/woff2",
    "song.mp3": "audio/mpeg",
    "clip.mp4": "video/mp4",
    "bundle.js.map": "application/json",
    "blob.bin": "application/octet-stream",
    "q.sql": "application/sql",
    "setup.exe": "application/x-msdos-program",
    "lib.dll": "application/x-msdownload",
    "pkg.deb": "application/x-debian-package",
    "disk.dmg": "application/x-apple-diskimage",
    "cd.iso": "application/x-iso9660-image",
    "setup.msi": "application/x-msdownload",
    "script.py": undefined,
    "main.go": undefined,
    "Makefile": undefined,
    "dir/.gitignore": undefined,
    "dir/.txt": undefined,
    "name.": undefined,
    "deno.lock": undefined,
  };
  for (const [path, type] of Object.entries(expected)) {
    assert.equal(mimeTypeOf(path), type, path);
  }
});

Deno.test("mimeTypeOf: TypeScript sources are text/x-typescript, not MPEG streams", () => {
  for (const path of ["main.ts", "src/App.tsx", "a.mts", "b.CTS", "x.d.ts"]) {
    assert.equal(mimeTypeOf(path), "text/x-typescript", path);
  }
});

Deno.test("mimeTypeOf: the extension is the last segment's, case-insensitive", () => {
  assert.equal(mimeTypeOf("a/b.png"), "image/png");
  assert.equal(mimeTypeOf("dir.png/notes.txt"), "text/plain");
  assert.equal(mimeTypeOf("dir.png/Makefile"), undefined);
  assert.equal(mimeTypeOf("a/b/C.HTML"), "text/html");
  assert.equal(mimeTypeOf("sp ace/é.json"), "application/json");
});
