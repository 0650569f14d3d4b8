/**
 * Unit tests of `cli/config.ts`: the configuration `shipcode-mcp config`
 * prints for each MCP client.
 */

import { strict as assert } from "node:assert";
import {
  clientConfig,
  clientListText,
  CLIENTS,
  isClient,
  type Launch,
  launchCommand,
  serveArgs,
  SERVER_NAME,
  shellQuote,
  unknownClientMessage,
} from "./config.ts";
import { type Config, DEFAULTS, FEATURES } from "./flags.ts";
import { DENO_RUN_FLAGS } from "./run_command.ts";

const ROOT = "/home/ada/my project";
const config: Config = { root: [ROOT], ...DEFAULTS };

const compiled = {
  standalone: true,
  execPath: "/opt/shipcode/shipcode-mcp",
  mainScript: "file-that-must-not-appear",
  denoVersion: "2.9.6",
  exists: () => false,
};
const underDeno = {
  standalone: false,
  execPath: "/usr/local/bin/deno",
  mainScript: "/src/shipcode/main.ts",
  denoVersion: "2.9.6",
  exists: () => false,
};

Deno.test("serveArgs: only the root when every other flag is default", () => {
  assert.deepEqual(serveArgs(config), ["--root", ROOT]);
});

Deno.test("serveArgs: --root once per root, in order", () => {
  assert.deepEqual(serveArgs({ ...config, root: ["/a", "/b"] }), [
    "--root",
    "/a",
    "--root",
    "/b",
  ]);
});

Deno.test("serveArgs: carries every flag that differs from its default", () => {
  const args = serveArgs({
    root: ["/r"],
    logLevel: "debug",
    protocolVersions: ["2025-06-18", "2025-03-26"],
    features: ["prompts", "logging"],
    watch: true,
    pageSize: 7,
    maxResources: 9,
    maxLineBytes: 4096,
    maxEntries: 50,
    maxMatches: 5,
    maxReadBytes: 1000,
    maxDepth: 2,
    includeIgnored: true,
    http: "127.0.0.1:8080",
    allowOrigins: ["https://a.example", "https://b.example"],
    allowHosts: ["mcp.example"],
    authTokenEnv: "MCP_TOKEN",
    maxBodyBytes: 1000,
    idleTimeout: 60,
    maxSessions: 5,
  });
  assert.deepEqual(args, [
    "--root",
    "/r",
    "--log-level",
    "debug",
    "--protocol-versions",
    "2025-06-18,2025-03-26",
    "--features",
    "prompts,logging",
    "--watch",
    "--page-size",
    "7",
    "--max-resources",
    "9",
    "--max-line-bytes",
    "4096",
    "--max-entries",
    "50",
    "--max-matches",
    "5",
    "--max-read-bytes",
    "1000",
    "--max-depth",
    "2",
    "--include-ignored",
    "--http",
    "127.0.0.1:8080",
    "--allow-origins",
    "https://a.example,https://b.example",
    "--allow-hosts",
    "mcp.example",
    "--auth-token-env",
    "MCP_TOKEN",
    "--max-body-bytes",
    "1000",
    "--idle-timeout",
    "60",
    "--max-sessions",
    "5",
  ]);
});

Deno.test("serveArgs: every feature is written as --features all", () => {
  assert.deepEqual(serveArgs({ ...config, features: [...FEATURES] }), [
    "--root",
    ROOT,
    "--features",
    "all",
  ]);
});

Deno.test("launchCommand: a compiled binary runs itself", () => {
  assert.deepEqual(launchCommand(compiled, config), {
    command: "/opt/shipcode/shipcode-mcp",
    args: ["--root", ROOT],
  });
});

Deno.test("launchCommand: under deno, deno run with read-only, no-prompt permissions", () => {
  assert.deepEqual(launchCommand(underDeno, config), {
    command: "/usr/local/bin/deno",
    args: [
      "run",
      ...DENO_RUN_FLAGS,
      "/src/shipcode/main.ts",
      "--root",
      ROOT,
    ],
  });
});

Deno.test("launchCommand: deno from npm runs through npm's link, which upgrades keep", () => {
  const fromNpm = {
    ...underDeno,
    execPath: "/usr/lib/node_modules/deno/deno",
    exists: (path: string) => path === "/usr/bin/deno",
  };
  assert.equal(launchCommand(fromNpm, config).command, "/usr/bin/deno");
  const fromNpx = {
    ...underDeno,
    execPath: "/home/ada/.npm/_npx/ab12/node_modules/deno/deno",
  };
  assert.deepEqual(launchCommand(fromNpx, config), {
    command: "npx",
    args: [
      "--prefer-offline",
      "-y",
      "deno@2.9.6",
      "run",
      ...DENO_RUN_FLAGS,
      "/src/shipcode/main.ts",
      "--root",
      ROOT,
    ],
  });
});

const launch: Launch = launchCommand(compiled, config);

Deno.test("claude-desktop: mcpServers entry with command and args", () => {
  const { text, hint } = clientConfig("claude-desktop", launch);
  assert.ok(text.endsWith("}\n"));
  assert.deepEqual(JSON.parse(text), {
    mcpServers: {
      [SERVER_NAME]: {
        command: "/opt/shipcode/shipcode-mcp",
        args: ["--root", ROOT],
      },
    },
  });
  assert.match(hint, /claude_desktop_config\.json/);
  assert.ok(!hint.includes("\n"));
});

Deno.test("cursor: the same mcpServers shape, for .cursor/mcp.json", () => {
  const { text, hint } = clientConfig("cursor", launch);
  assert.deepEqual(JSON.parse(text), {
    mcpServers: {
      [SERVER_NAME]: { command: launch.command, args: launch.args },
    },
  });
  assert.match(hint, /\.cursor\/mcp\.json/);
});

Deno.test("vscode: a servers entry of type stdio, type first", () => {
  const { text, hint } = clientConfig("vscode", launch);
  const parsed = JSON.parse(text);
  assert.deepEqual(parsed, {
    servers: {
      [SERVER_NAME]: {
        type: "stdio",
        command: launch.command,
        args: launch.args,
      },
    },
  });
  assert.deepEqual(Object.keys(parsed.servers[SERVER_NAME]), [
    "type",
    "command",
    "args",
  ]);
  assert.match(hint, /\.vscode\/mcp\.json/);
});

Deno.test("claude-code: one shell command line, paths with spaces quoted", () => {
  const { text, hint } = clientConfig("claude-code", launch);
  assert.equal(
    text,
    "claude mcp add --transport stdio shipcode -- /opt/shipcode/shipcode-mcp --root '/home/ada/my project'\n",
  );
  assert.match(hint, /--scope project/);
});

Deno.test("claude-code: the command line round-trips through a real shell", async () => {
  const tricky = launchCommand(underDeno, {
    ...config,
    root: ['/tmp/it\'s a $HOME "dir"'],
  });
  const { text } = clientConfig("claude-code", tricky);
  // printf prints each word the shell parsed on its own line.
  const script = text.trimEnd().replace(/^claude /, "printf '%s\\n' ");
  const out = await new Deno.Command("sh", { args: ["-c", script] }).output();
  assert.equal(out.code, 0);
  assert.deepEqual(new TextDecoder().decode(out.stdout).trimEnd().split("\n"), [
    "mcp",
    "add",
    "--transport",
    "stdio",
    "shipcode",
    "--",
    tricky.command,
    ...tricky.args,
  ]);
});

Deno.test("shellQuote: plain words stay bare, others are single-quoted", () => {
  assert.equal(shellQuote("/usr/bin/deno"), "/usr/bin/deno");
  assert.equal(shellQuote("--root"), "--root");
  assert.equal(shellQuote("a b"), "'a b'");
  assert.equal(shellQuote("it's"), `'it'"'"'s'`);
  assert.equal(shellQuote(""), "''");
});

Deno.test("every client has a configuration, and the list names them all", () => {
  for (const client of CLIENTS) {
    assert.ok(isClient(client));
    const { text } = clientConfig(client, launch);
    assert.ok(text.includes(ROOT), `${client} config lacks the root`);
    assert.ok(clientListText().includes(`config ${client}`));
  }
  assert.ok(!isClient("emacs"));
  assert.ok(!isClient("constructor"));
});

Deno.test("unknownClientMessage: one line naming the client and the choices", () => {
  const message = unknownClientMessage("emacs");
  assert.ok(!message.includes("\n"));
  assert.match(message, /"emacs"/);
  for (const client of CLIENTS) assert.ok(message.includes(client));
});

Deno.test("launchCommand: with --http, the network only at that address, the environment only for the token", () => {
  const http = { ...config, http: "127.0.0.1:8080" };
  const args = launchCommand(underDeno, http).args;
  assert.deepEqual(args.slice(0, 4), [
    "run",
    "--allow-read",
    "--allow-net=127.0.0.1:8080",
    "--no-prompt",
  ]);
  assert.ok(!args.some((arg) => arg.startsWith("--allow-env")));
  assert.deepEqual(args.slice(-2), ["--http", "127.0.0.1:8080"]);
  const token = launchCommand(underDeno, { ...http, authTokenEnv: "TOK" });
  assert.deepEqual(token.args.slice(1, 5), [
    "--allow-read",
    "--allow-net=127.0.0.1:8080",
    "--allow-env=TOK",
    "--no-prompt",
  ]);
});
