/**
 * Unit tests of `cli/config.ts`: the configuration `shipcode-mcp config`
 * prints for each MCP client.
 */

import { strict as assert } from "node:assert";
import {
  BRIDGE_AUTH_VARIABLE,
  clientConfig,
  clientListText,
  CLIENTS,
  httpClientConfig,
  isClient,
  type Launch,
  launchCommand,
  MCP_REMOTE,
  serveArgs,
  SERVER_NAME,
  shellQuote,
  unknownClientMessage,
  unreachableAddressProblem,
  VSCODE_TOKEN_INPUT,
} from "./config.ts";
import { type Config, DEFAULTS, FEATURES } from "./flags.ts";
import { DENO_RUN_FLAGS, V8_FLAGS_ARG } from "./run_command.ts";

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
    allowRoots: ["/p", "/q"],
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
    orderWait: 1000,
    includeIgnored: true,
    index: true,
    indexCache: "/c",
    rg: "/usr/bin/rg",
    http: "127.0.0.1:8080",
    allowOrigins: ["https://a.example", "https://b.example"],
    allowHosts: ["mcp.example"],
    authTokenEnv: "MCP_TOKEN",
    stateKeyEnv: "MCP_STATE_KEY",
    maxBodyBytes: 1000,
    idleTimeout: 60,
    unusedSessionTimeout: 90,
    headerTimeout: 20,
    keepAliveTimeout: 30,
    writeTimeout: 40,
    maxConnections: 100,
    maxSessions: 5,
    maxKeptBytes: 2048,
    sseKeepAlive: 3,
  });
  assert.deepEqual(args, [
    "--root",
    "/r",
    // One directory per flag, as given.
    "--allow-roots",
    "/p",
    "--allow-roots",
    "/q",
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
    "--order-wait",
    "1000",
    "--include-ignored",
    "--index",
    "--index-cache",
    "/c",
    "--rg",
    "/usr/bin/rg",
    "--http",
    "127.0.0.1:8080",
    "--allow-origins",
    "https://a.example,https://b.example",
    "--allow-hosts",
    "mcp.example",
    "--auth-token-env",
    "MCP_TOKEN",
    "--state-key-env",
    "MCP_STATE_KEY",
    "--max-body-bytes",
    "1000",
    "--idle-timeout",
    "60",
    "--unused-session-timeout",
    "90",
    "--header-timeout",
    "20",
    "--keep-alive-timeout",
    "30",
    "--write-timeout",
    "40",
    "--max-connections",
    "100",
    "--max-sessions",
    "5",
    "--max-kept-bytes",
    "2048",
    "--sse-keep-alive",
    "3",
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
  assert.deepEqual(args.slice(0, 5), [
    "run",
    "--allow-read",
    "--allow-net=127.0.0.1:8080",
    "--allow-sys=uid",
    "--no-prompt",
  ]);
  assert.ok(!args.some((arg) => arg.startsWith("--allow-env")));
  assert.deepEqual(args.slice(-2), ["--http", "127.0.0.1:8080"]);
  const token = launchCommand(underDeno, { ...http, authTokenEnv: "TOK" });
  assert.deepEqual(token.args.slice(1, 6), [
    "--allow-read",
    "--allow-net=127.0.0.1:8080",
    "--allow-env=TOK",
    "--allow-sys=uid",
    "--no-prompt",
  ]);
});

const overHttp: Config = { ...config, http: "127.0.0.1:8080" };
const withToken: Config = { ...overHttp, authTokenEnv: "MCP_TOKEN" };
const URL_8080 = "http://127.0.0.1:8080/mcp";

/** The two lines of an HTTP configuration's hint. */
function hintLines(hint: string): [string, string] {
  const lines = hint.split("\n");
  assert.equal(lines.length, 2, hint);
  return [lines[0], lines[1]];
}

Deno.test("httpClientConfig: the second hint line starts the server with --allow-net at its address only", () => {
  const server = launchCommand(underDeno, overHttp);
  for (const client of CLIENTS) {
    const { hint } = httpClientConfig(client, server, overHttp);
    const [, start] = hintLines(hint);
    assert.equal(
      start,
      `Start the server separately, where clients can reach it: /usr/local/bin/deno run --allow-read --allow-net=127.0.0.1:8080 --allow-sys=uid --no-prompt ${V8_FLAGS_ARG} /src/shipcode/main.ts --root '${ROOT}' --http 127.0.0.1:8080`,
    );
  }
  const tokenServer = launchCommand(underDeno, withToken);
  const [, start] = hintLines(
    httpClientConfig("cursor", tokenServer, withToken).hint,
  );
  assert.match(start, /with the token in environment variable MCP_TOKEN: /);
  assert.match(start, / --allow-env=MCP_TOKEN --allow-sys=uid --no-prompt /);
  // A compiled binary, built to read files only, cannot be that server.
  const [, binary] = hintLines(
    httpClientConfig("cursor", undefined, overHttp).hint,
  );
  assert.match(
    binary,
    /compiled binary reads files only.*deno task serve .*--http 127\.0\.0\.1:8080$/,
  );
});

Deno.test("httpClientConfig: claude-code adds the URL over http, not a stdio command", () => {
  const { text, hint } = httpClientConfig("claude-code", launch, overHttp);
  assert.equal(
    text,
    `claude mcp add --transport http shipcode ${URL_8080}\n`,
  );
  assert.match(hintLines(hint)[0], /--scope project/);
});

Deno.test("httpClientConfig: claude-code with a token takes it from the variable through a real shell, after the URL", async () => {
  const { text, hint } = httpClientConfig("claude-code", launch, withToken);
  assert.ok(!text.includes("s3cret"));
  const script = text.trimEnd().replace(/^claude /, "printf '%s\\n' ");
  const out = await new Deno.Command("sh", {
    args: ["-c", script],
    env: { MCP_TOKEN: "s3cret value" },
  }).output();
  assert.equal(out.code, 0);
  // --header takes several values, so it comes after the name and URL.
  assert.deepEqual(new TextDecoder().decode(out.stdout).trimEnd().split("\n"), [
    "mcp",
    "add",
    "--transport",
    "http",
    SERVER_NAME,
    URL_8080,
    "--header",
    "Authorization: Bearer s3cret value",
  ]);
  const [where] = hintLines(hint);
  assert.match(where, /MCP_TOKEN/);
  assert.match(where, /do not add --scope project/);
});

Deno.test("httpClientConfig: cursor gets a url, and a header read from its environment with a token", () => {
  assert.deepEqual(
    JSON.parse(httpClientConfig("cursor", launch, overHttp).text),
    { mcpServers: { [SERVER_NAME]: { url: URL_8080 } } },
  );
  const { text, hint } = httpClientConfig("cursor", launch, withToken);
  assert.deepEqual(JSON.parse(text), {
    mcpServers: {
      [SERVER_NAME]: {
        url: URL_8080,
        headers: { Authorization: "Bearer ${env:MCP_TOKEN}" },
      },
    },
  });
  assert.match(hintLines(hint)[0], /\.cursor\/mcp\.json.*MCP_TOKEN/);
});

Deno.test("httpClientConfig: vscode gets type http and a url, and asks for a token as a password input", () => {
  assert.deepEqual(
    JSON.parse(httpClientConfig("vscode", launch, overHttp).text),
    { servers: { [SERVER_NAME]: { type: "http", url: URL_8080 } } },
  );
  const parsed = JSON.parse(httpClientConfig("vscode", launch, withToken).text);
  assert.deepEqual(parsed.servers[SERVER_NAME], {
    type: "http",
    url: URL_8080,
    headers: { Authorization: `Bearer \${input:${VSCODE_TOKEN_INPUT}}` },
  });
  assert.equal(parsed.inputs.length, 1);
  assert.equal(parsed.inputs[0].type, "promptString");
  assert.equal(parsed.inputs[0].id, VSCODE_TOKEN_INPUT);
  assert.equal(parsed.inputs[0].password, true);
  assert.match(parsed.inputs[0].description, /MCP_TOKEN/);
});

Deno.test("httpClientConfig: claude-desktop, which takes no URL, runs the pinned mcp-remote bridge", () => {
  const { text, hint } = httpClientConfig("claude-desktop", launch, overHttp);
  assert.deepEqual(JSON.parse(text), {
    mcpServers: {
      [SERVER_NAME]: { command: "npx", args: ["-y", MCP_REMOTE, URL_8080] },
    },
  });
  assert.match(MCP_REMOTE, /^mcp-remote@\d+\.\d+\.\d+$/);
  const [where] = hintLines(hint);
  assert.match(where, /claude_desktop_config\.json/);
  assert.match(where, /Settings > Connectors/);
  // Plain http:// beyond the loopback names needs the bridge's consent.
  const lan = { ...overHttp, http: "192.168.1.5:8080" };
  assert.deepEqual(
    JSON.parse(httpClientConfig("claude-desktop", launch, lan).text)
      .mcpServers[SERVER_NAME].args,
    ["-y", MCP_REMOTE, "http://192.168.1.5:8080/mcp", "--allow-http"],
  );
  const entry = JSON.parse(
    httpClientConfig("claude-desktop", launch, withToken).text,
  ).mcpServers[SERVER_NAME];
  // No space inside an argument (Windows splits those); a placeholder,
  // never a token.
  assert.deepEqual(entry.args, [
    "-y",
    MCP_REMOTE,
    URL_8080,
    "--header",
    `Authorization:\${${BRIDGE_AUTH_VARIABLE}}`,
  ]);
  assert.deepEqual(entry.env, {
    [BRIDGE_AUTH_VARIABLE]: "Bearer <the token in MCP_TOKEN>",
  });
});

Deno.test("httpClientConfig: no client is told to spawn the server itself", () => {
  for (const client of CLIENTS) {
    const { text } = httpClientConfig(client, launch, withToken);
    assert.ok(!text.includes("stdio"), `${client}: ${text}`);
    assert.ok(!text.includes(launch.command), `${client}: ${text}`);
    assert.ok(text.includes(URL_8080), `${client}: ${text}`);
  }
});

Deno.test("unreachableAddressProblem: every interface, or any free port, cannot be connected to", () => {
  for (const http of ["127.0.0.1:8080", "[::1]:9000", "mcp.example:80"]) {
    assert.equal(unreachableAddressProblem(http), undefined, http);
  }
  for (const http of ["0.0.0.0:8080", "[::]:8080", "0.0.0.0:0"]) {
    const problem = unreachableAddressProblem(http) ?? "";
    assert.match(problem, /every network interface/, http);
    assert.match(problem, /--http 127\.0\.0\.1:8080/, http);
    assert.ok(!problem.includes("\n"));
  }
  const problem = unreachableAddressProblem("[::1]:0") ?? "";
  assert.match(problem, /free/);
  assert.match(problem, /for example --http \[::1\]:8080\.$/);
});
