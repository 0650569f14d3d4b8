/**
 * The flag tokenizer in-process: the accepted spellings, the refusals, and
 * how --root is made absolute. (tests/cli_test.ts runs the real program.)
 *
 * @module
 */

import { strict as assert } from "node:assert";
import {
  CLIENT_PROTOCOL_VERSIONS,
  type Command,
  DEFAULTS,
  FEATURES,
  parseAddress,
  parseFlags,
  UsageError,
} from "./flags.ts";

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
  assert.equal(c.pageSize, 7);
  assert.equal(c.maxDepth, 3);
  assert.equal(c.maxEntries, DEFAULTS.maxEntries);
  assert.deepEqual(c.root, []);
});

Deno.test("flags: switches, grouped short flags, and -- before positionals", () => {
  assert.equal(parseFlags(["-V"], "/w").kind, "version");
  assert.equal(parseFlags(["-Vh"], "/w").kind, "help");
  const c = config(parseFlags(["--watch", "--include-ignored"], "/w"));
  assert.equal(c.watch, true);
  assert.equal(c.includeIgnored, true);
  // config writes every protocol version unless told otherwise.
  assert.deepEqual(parseFlags(["--", "config", "cursor"], "/w"), {
    kind: "config",
    client: "cursor",
    config: {
      ...config(parseFlags([], "/w")),
      // A configuration always names its root: the cwd when not given.
      root: ["/w"],
      protocolVersions: [...CLIENT_PROTOCOL_VERSIONS],
      features: [...FEATURES],
    },
  });
  assert.deepEqual(
    config(
      parseFlags(
        ["config", "cursor", "--protocol-versions", "2025-03-26"],
        "/w",
      ),
    ).protocolVersions,
    ["2025-03-26"],
  );
});

Deno.test("flags: --features takes a list or all; none by default", () => {
  assert.deepEqual(config(parseFlags([], "/w")).features, []);
  assert.deepEqual(
    config(parseFlags(["--features", "completion, prompts,prompts"], "/w"))
      .features,
    ["prompts", "completion"],
  );
  assert.deepEqual(
    config(parseFlags(["--features=all"], "/w")).features,
    [...FEATURES],
  );
  assert.deepEqual(
    config(parseFlags(["config", "cursor", "--features", "logging"], "/w"))
      .features,
    ["logging"],
  );
});

Deno.test("flags: refusals name the flag and the fix", () => {
  const cases: [string[], RegExp][] = [
    [["--nope"], /^unknown flag --nope; run shipcode-mcp --help/],
    [["-hx"], /^unknown flag -x;/],
    [["--watch=1"], /^--watch is a switch and takes no value/],
    [["--root"], /^--root needs a value; for example: --root \.$/],
    [["--page-size", "--watch"], /^--page-size needs a value/],
    [
      ["--page-size", "-1"],
      /^--page-size must be a positive whole number \(at least 1\), got "-1"; for example --page-size 1000\.$/,
    ],
    [["--max-matches", "-1"], /^--max-matches must be a positive whole/],
    [["--max-matches=-5"], /^--max-matches must be a positive whole/],
    [["--max-read-bytes", "-1.5"], /^--max-read-bytes must be a positive/],
    [["--page-size", "-x"], /^--page-size needs a value/],
    [["--page-size", "01x"], /^--page-size must be a positive whole number/],
    [["--protocol-versions", ","], /^--protocol-versions takes dates/],
    [
      ["--features", "prompts,sampling"],
      /^--features takes prompts, completion, logging, list-changed \(comma-separated\) or all; got "sampling"\.$/,
    ],
    [["--features", ","], /^--features takes prompts, completion,/],
    [["--features", "all,prompts"], /got "all"/],
    [
      ["--index-cache", "/a,b"],
      /^--index-cache cannot take a path with a comma/,
    ],
  ];
  for (const [args, message] of cases) {
    assert.throws(() => parseFlags(args, "/w"), (error: unknown) => {
      assert.equal(error instanceof UsageError, true, args.join(" "));
      assert.equal(
        message.test((error as Error).message),
        true,
        args.join(" "),
      );
      return true;
    });
  }
});

Deno.test("flags: --root is made absolute and normalised", () => {
  // workspace/path_test.ts covers the normalising itself.
  assert.deepEqual(config(parseFlags(["--root", "sub/"], "/w")).root, [
    "/w/sub",
  ]);
});

Deno.test("flags: --root repeats; not given, it is empty (serve) or the cwd (config)", () => {
  assert.deepEqual(config(parseFlags([], "/w")).root, []);
  assert.deepEqual(
    config(parseFlags(["--root", "a", "--root=/b", "--root", "a/"], "/w"))
      .root,
    ["/w/a", "/b"],
  );
  const made = parseFlags(["config", "cursor"], "/w");
  assert.equal(made.kind, "config");
  assert.deepEqual(made.kind === "config" && made.config.root, ["/w"]);
  // Other flags still keep their last value only.
  assert.equal(
    config(parseFlags(["--max-depth", "2", "--max-depth", "3"], "/w"))
      .maxDepth,
    3,
  );
});

Deno.test("flags: --features takes names or all", () => {
  assert.deepEqual(config(parseFlags([], "/w")).features, []);
  assert.deepEqual(
    config(parseFlags(["--features", "list-changed,list-changed"], "/w"))
      .features,
    ["list-changed"],
  );
  assert.deepEqual(
    config(parseFlags(["--features=all"], "/w")).features.length,
    4,
  );
  assert.throws(
    () => parseFlags(["--features", "nope"], "/w"),
    /--features takes prompts, completion, logging, list-changed/,
  );
});

Deno.test("flags: --http [HOST:]PORT is kept as HOST:PORT, 127.0.0.1 by default", () => {
  assert.equal(config(parseFlags([], "/w")).http, "");
  assert.equal(
    config(parseFlags(["--http", "8080"], "/w")).http,
    "127.0.0.1:8080",
  );
  assert.equal(
    config(parseFlags(["--http=0.0.0.0:0"], "/w")).http,
    "0.0.0.0:0",
  );
  assert.equal(
    config(parseFlags(["--http", "[::1]:9000"], "/w")).http,
    "[::1]:9000",
  );
  assert.deepEqual(parseAddress("[::1]:9000"), { hostname: "::1", port: 9000 });
  for (const bad of ["x", "65536", "host:", ":80", "a b:1"]) {
    assert.throws(
      () => parseFlags(["--http", bad], "/w"),
      (error: Error) =>
        error instanceof UsageError && /\[HOST:\]PORT/.test(error.message),
      bad,
    );
  }
});

Deno.test("flags: the HTTP flags' lists and environment variable name", () => {
  const c = config(
    parseFlags([
      "--allow-origins",
      "https://a.example, https://b.example",
      "--allow-hosts=mcp.example",
      "--auth-token-env",
      "MCP_TOKEN",
      "--idle-timeout",
      "60",
    ], "/w"),
  );
  assert.deepEqual(c.allowOrigins, ["https://a.example", "https://b.example"]);
  assert.deepEqual(c.allowHosts, ["mcp.example"]);
  assert.equal(c.authTokenEnv, "MCP_TOKEN");
  assert.equal(c.idleTimeout, 60);
  assert.deepEqual(DEFAULTS.allowOrigins, []);
  assert.throws(
    () => parseFlags(["--auth-token-env", "A-B"], "/w"),
    /environment variable/,
  );
});

Deno.test("flags: --idle-timeout, --header-timeout, --keep-alive-timeout and --write-timeout take at most what a timer can wait, in seconds", () => {
  for (
    const [flag, key] of [
      ["--idle-timeout", "idleTimeout"],
      ["--header-timeout", "headerTimeout"],
      ["--keep-alive-timeout", "keepAliveTimeout"],
      ["--write-timeout", "writeTimeout"],
    ] as const
  ) {
    assert.equal(config(parseFlags([flag, "2147483"], "/w"))[key], 2_147_483);
    assert.throws(
      () => parseFlags([flag, "2147484"], "/w"),
      (error: Error) =>
        error instanceof UsageError && /from 1 to 2147483/.test(error.message),
    );
    assert.throws(
      () => parseFlags([flag, "0"], "/w"),
      (error: Error) =>
        error instanceof UsageError && /at least 1/.test(error.message),
    );
  }
  assert.equal(DEFAULTS.headerTimeout, 10);
  assert.equal(DEFAULTS.keepAliveTimeout, 75);
  assert.equal(DEFAULTS.writeTimeout, 30);
  assert.equal(DEFAULTS.maxConnections, 4096);
});
