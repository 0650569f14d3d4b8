/**
 * The flag tokenizer in-process: the accepted spellings, the refusals, and
 * how --root is made absolute. (tests/cli_test.ts runs the real program.)
 *
 * @module
 */

import { deepStrictEqual, strictEqual, throws } from "node:assert/strict";
import {
  CLIENT_PROTOCOL_VERSIONS,
  type Command,
  DEFAULTS,
  parseFlags,
  UsageError,
} from "../cli/flags.ts";

function config(command: Command) {
  if (command.kind !== "serve" && command.kind !== "config") {
    throw new Error(`expected a config, got ${command.kind}`);
  }
  return command.config;
}

Deno.test("flags: --name value, --name=value, the last one wins", () => {
  const c = config(
    parseFlags(["--page-size", "5", "--max-depth=3", "--page-size=7"], "/w"),
  );
  strictEqual(c.pageSize, 7);
  strictEqual(c.maxDepth, 3);
  strictEqual(c.maxEntries, DEFAULTS.maxEntries);
  strictEqual(c.root, "/w");
});

Deno.test("flags: switches, grouped short flags, and -- before positionals", () => {
  strictEqual(parseFlags(["-V"], "/w").kind, "version");
  strictEqual(parseFlags(["-Vh"], "/w").kind, "help");
  const c = config(parseFlags(["--watch", "--include-ignored"], "/w"));
  strictEqual(c.watch, true);
  strictEqual(c.includeIgnored, true);
  // config writes every protocol version unless told otherwise.
  deepStrictEqual(parseFlags(["--", "config", "cursor"], "/w"), {
    kind: "config",
    client: "cursor",
    config: {
      ...config(parseFlags([], "/w")),
      protocolVersions: [...CLIENT_PROTOCOL_VERSIONS],
    },
  });
  deepStrictEqual(
    config(
      parseFlags(
        ["config", "cursor", "--protocol-versions", "2025-03-26"],
        "/w",
      ),
    ).protocolVersions,
    ["2025-03-26"],
  );
});

Deno.test("flags: refusals name the flag and the fix", () => {
  const cases: [string[], RegExp][] = [
    [["--nope"], /^unknown flag --nope; run shipcode-mcp --help/],
    [["-hx"], /^unknown flag -x;/],
    [["--watch=1"], /^--watch is a switch and takes no value/],
    [["--root"], /^--root needs a value; for example: --root \.$/],
    [["--page-size", "--watch"], /^--page-size needs a value/],
    [["--page-size", "-1"], /^--page-size needs a value/],
    [["--page-size", "01x"], /^--page-size must be a whole number/],
    [["--protocol-versions", ","], /^--protocol-versions takes dates/],
  ];
  for (const [args, message] of cases) {
    throws(() => parseFlags(args, "/w"), (error: unknown) => {
      strictEqual(error instanceof UsageError, true, args.join(" "));
      strictEqual(message.test((error as Error).message), true, args.join(" "));
      return true;
    });
  }
});

Deno.test("flags: --root is made absolute and normalised", () => {
  // workspace/path_test.ts covers the normalising itself.
  strictEqual(config(parseFlags([], "/w")).root, "/w");
  strictEqual(config(parseFlags(["--root", "sub/"], "/w")).root, "/w/sub");
});
