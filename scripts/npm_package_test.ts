import assert from "node:assert/strict";
import { DENO_NPM_VERSION, packageJson, tarballName } from "./npm_package.ts";
import { installArgs, installedPath, installRoot } from "./install.ts";
import { DENO_RUN_FLAGS } from "../cli/run_command.ts";

Deno.test("packageJson: the bin, the pinned deno, MIT", () => {
  const json = packageJson("1.2.3");
  assert.equal(json.name, "shipcode-mcp");
  assert.equal(json.version, "1.2.3");
  assert.deepEqual(json.bin, { "shipcode-mcp": "bin/shipcode-mcp.cjs" });
  assert.deepEqual(json.dependencies, { deno: DENO_NPM_VERSION });
  assert.match(DENO_NPM_VERSION, /^\d+\.\d+\.\d+$/);
  assert.equal(json.license, "MIT");
  assert.equal(tarballName("1.2.3"), "shipcode-mcp-1.2.3.tgz");
});

Deno.test("install: the bundle with the server's flags, and a hint naming the command", () => {
  const args = installArgs("/repo/", "/opt/deno");
  for (const flag of ["--global", "--force", "--no-config"]) {
    assert.ok(args.includes(flag), flag);
  }
  assert.deepEqual(
    args.slice(args.indexOf("--name"), args.indexOf("--name") + 2),
    [
      "--name",
      "shipcode-mcp",
    ],
  );
  const script = args.indexOf("/repo/dist/shipcode-mcp.js");
  assert.deepEqual(args.slice(script - DENO_RUN_FLAGS.length, script), [
    ...DENO_RUN_FLAGS,
  ]);
  assert.equal(args[script + 1], "--");
  assert.match(
    args[script + 2],
    /^--invocation=\{.*"\/opt\/deno\/bin\/shipcode-mcp"/,
  );
  assert.equal(installedPath("/opt/deno/"), "/opt/deno/bin/shipcode-mcp");
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  assert.equal(installRoot(["--root", "r"], env({}), "/here"), "/here/r");
  assert.equal(
    installRoot([], env({ DENO_INSTALL_ROOT: "/d", HOME: "/h" }), "/"),
    "/d",
  );
  assert.equal(installRoot([], env({ HOME: "/h" }), "/"), "/h/.deno");
});
