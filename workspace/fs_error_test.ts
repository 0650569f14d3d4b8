import { strict as assert } from "node:assert";
import { errnoOf, FsError } from "./fs_error.ts";

Deno.test("FsError: a typed code, a message, and waitMs only with EAGAIN", () => {
  const stale = new FsError("ESTALE", "a directory changed");
  assert.ok(stale instanceof Error);
  assert.equal(stale.code, "ESTALE");
  assert.equal(stale.message, "a directory changed");
  assert.equal(stale.waitMs, undefined);
  const again = new FsError("EAGAIN", "changed just now", 25);
  assert.equal(again.waitMs, 25);
  assert.equal(errnoOf(again), "EAGAIN");
});

Deno.test("errnoOf: Node codes as they are, Deno errors by name, else empty", () => {
  assert.equal(errnoOf(Object.assign(new Error(), { code: "ELOOP" })), "ELOOP");
  assert.equal(errnoOf(new Deno.errors.NotFound()), "ENOENT");
  assert.equal(errnoOf({ name: "NotADirectory" }), "ENOTDIR");
  assert.equal(errnoOf({ name: "PermissionDenied" }), "EACCES");
  assert.equal(errnoOf({ name: "FilesystemLoop" }), "ELOOP");
  assert.equal(errnoOf({ name: "InvalidData" }), "EINVAL");
  assert.equal(errnoOf(new Error("plain")), "");
  assert.equal(errnoOf("ENOENT"), "");
  assert.equal(errnoOf(null), "");
});
