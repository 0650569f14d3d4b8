import assert from "node:assert/strict";
import {
  DEFAULT_INVOCATION,
  invocationArg,
  renameCommand,
  serveFlags,
  takeInvocation,
} from "./invocation.ts";
import { helpText } from "./help.ts";
import { permissionFlags, V8_FLAGS_ARG } from "./run_command.ts";

Deno.test("takeInvocation: only a first argument is a hint; names and JSON round-trip", () => {
  assert.deepEqual(takeInvocation(["--root", "x"]), {
    invocation: DEFAULT_INVOCATION,
    args: ["--root", "x"],
  });
  assert.deepEqual(takeInvocation(["--invocation=deno task start", "-h"]), {
    invocation: { name: "deno task start" },
    args: ["-h"],
  });
  const installed = {
    name: "shipcode-mcp",
    command: ["/home/me/.deno/bin/shipcode-mcp"],
    fixedPermissions: true,
  };
  assert.deepEqual(
    takeInvocation([invocationArg(installed), "config"]).invocation,
    installed,
  );
  assert.deepEqual(
    takeInvocation(["--root", invocationArg(installed)]).args.length,
    2,
  );
  assert.deepEqual(
    takeInvocation(["--invocation={not json"]).invocation,
    DEFAULT_INVOCATION,
  );
});

Deno.test("renameCommand: commands to type get the name, the program's own name stays", () => {
  const help = helpText();
  assert.equal(renameCommand(help, "shipcode-mcp"), help);
  const renamed = renameCommand(help, "npx shipcode-mcp");
  assert.match(renamed, /^shipcode-mcp \d/);
  assert.match(renamed, /^ {2}npx shipcode-mcp \[flags\] {2,}serve/m);
  assert.match(renamed, /\| npx shipcode-mcp --root/);
  assert.equal(
    renameCommand(
      "unknown flag --x; run shipcode-mcp --help for the flags.",
      "deno task start",
    ),
    "unknown flag --x; run deno task start --help for the flags.",
  );
});

Deno.test("serveFlags: the permissions the arguments need, as config gives them", () => {
  assert.deepEqual(serveFlags([], "/"), [
    ...permissionFlags({ http: "", authTokenEnv: "" }),
    V8_FLAGS_ARG,
  ]);
  assert.deepEqual(
    serveFlags(["--http", "8080", "--auth-token-env", "T"], "/"),
    [
      ...permissionFlags({ http: "127.0.0.1:8080", authTokenEnv: "T" }),
      V8_FLAGS_ARG,
    ],
  );
  // Not serving, or not parsing: stdio's.
  for (const args of [["config", "cursor", "--http", "1"], ["--nope"]]) {
    assert.deepEqual(serveFlags(args, "/"), serveFlags([], "/"));
  }
});
