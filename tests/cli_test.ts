/**
 * The command line of the real server process, for every build target:
 * `--help`, `--version`, usage errors (one line on stderr, exit 2, nothing
 * on stdout), `config`, `--root` checks, and the note shown when stdin is a
 * terminal.
 */

import { strict as assert } from "node:assert";
import { join } from "node:path";
import { CLIENT_PROTOCOL_VERSIONS, FLAG_NAMES, VERSION } from "../cli/flags.ts";
import { stableDenoCommand } from "../cli/run_command.ts";
import {
  PROJECT_ROOT,
  serverCommand,
  type Target,
  TARGETS,
  targetStatus,
} from "./server_command.ts";

const decoder = new TextDecoder();

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the server for `target` with `args`, `input` on stdin (or none). */
async function run(
  target: Target,
  args: string[],
  input?: string,
): Promise<Run> {
  const { command, args: full } = serverCommand(args, target);
  const child = new Deno.Command(command, {
    args: full,
    cwd: PROJECT_ROOT,
    stdin: input === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  if (input !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(input));
    await writer.close();
  }
  const out = await child.output();
  return {
    code: out.code,
    stdout: decoder.decode(out.stdout),
    stderr: decoder.decode(out.stderr),
  };
}

/** Each case: arguments, and what the one error line must mention. */
const USAGE_ERRORS: [string[], RegExp][] = [
  [["--bogus"], /unknown flag --bogus.*--help/],
  [["-x"], /unknown flag -x/],
  [["--page-size", "0"], /--page-size.*at least 1.*--page-size 100/],
  [
    ["--max-matches", "-1"],
    /--max-matches must be a positive whole number \(at least 1\), got "-1"; for example --max-matches 200\./,
  ],
  [["--page-size"], /--page-size needs a value/],
  [["--max-depth", "deep"], /--max-depth.*"deep"/],
  [["--max-read-bytes", "1.5"], /--max-read-bytes/],
  [["--log-level", "loud"], /--log-level.*debug, info, warn, error, silent/],
  [["--protocol-versions", "latest"], /--protocol-versions.*2025-06-18/],
  [["--watch=yes"], /--watch is a switch/],
  [["--root"], /--root needs a value/],
  [["--root", ""], /--root needs a directory/],
  [["--root", "no/such/dir"], /--root .*no\/such\/dir does not exist/],
  [["--root", "deno.json"], /--root .*deno\.json is not a directory/],
  // Each root given is checked.
  [
    ["--root", ".", "--root", "no/such/dir"],
    /--root .*no\/such\/dir does not exist/,
  ],
  [["--features", "everything"], /--features takes prompts, completion/],
  [["serve"], /unexpected argument "serve"/],
  [["config", "emacs"], /unknown client "emacs".*claude-desktop/],
  [
    ["--protocol-versions", "2025-06-18,2099-01-01"],
    /does not speak MCP 2099-01-01.*2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25/,
  ],
  [["config", "cursor", "vscode"], /config takes one client name/],
  [["config", "cursor", "--root", "no/such/dir"], /does not exist/],
  // A client cannot connect to every interface, nor to any free port.
  [
    ["config", "cursor", "--http", "0.0.0.0:8080"],
    /0\.0\.0\.0:8080 listens on every network interface.*--http 127\.0\.0\.1:8080/,
  ],
  [["config", "vscode", "--http", "0"], /127\.0\.0\.1:0 takes whichever port/],
];

for (const t of TARGETS) {
  const status = targetStatus(t);
  if (!status.available) {
    Deno.test({
      ignore: true,
      name: `cli [${t}] skipped: ${status.reason}`,
      fn() {},
    });
    continue;
  }

  Deno.test(`cli [${t}] --help lists every flag with its default, on stdout`, async () => {
    for (const flag of ["--help", "-h"]) {
      const r = await run(t, [flag]);
      assert.equal(r.code, 0);
      assert.equal(r.stderr, "");
      const lines = r.stdout.split("\n");
      for (const name of FLAG_NAMES) {
        const at = lines.findIndex((l) =>
          l.trimStart().startsWith(`--${name} `) || l.endsWith(`--${name}`) ||
          l.includes(`, --${name} `)
        );
        assert.ok(at >= 0, `--help does not list --${name}`);
        // The flag's line and those its description wraps onto.
        const end = lines.findIndex((l, i) => i > at && !/^ {29}\S/.test(l));
        const entry = lines.slice(at, end).map((l) => l.trim()).join(" ");
        if (name !== "help" && name !== "version") {
          assert.match(entry, /\(default: [^)]+\)$/, `no default: ${entry}`);
        }
      }
      for (const line of lines) {
        assert.ok(line.length <= 80, `over 80 columns: ${line}`);
      }
      assert.match(r.stdout, /shipcode-mcp config \[client\]/);
      assert.match(r.stdout, /Examples?:\n {2}echo '\{"jsonrpc"/);
    }
  });

  Deno.test(`cli [${t}] --version prints the version on stdout`, async () => {
    for (const flag of ["--version", "-V"]) {
      const r = await run(t, [flag]);
      assert.deepEqual(r, {
        code: 0,
        stdout: `shipcode-mcp ${VERSION}\n`,
        stderr: "",
      });
    }
  });

  Deno.test(`cli [${t}] usage errors: one line on stderr, exit 2, empty stdout`, async () => {
    for (const [args, mention] of USAGE_ERRORS) {
      const r = await run(t, args);
      const what = JSON.stringify(args);
      assert.equal(r.code, 2, `${what}: exit code`);
      assert.equal(r.stdout, "", `${what}: stdout`);
      assert.match(r.stderr, /^shipcode-mcp: [^\n]+\n$/, `${what}: one line`);
      assert.match(r.stderr, mention, what);
    }
  });

  Deno.test(`cli [${t}] config without a client lists the clients`, async () => {
    const r = await run(t, ["config"]);
    assert.equal(r.code, 0);
    for (
      const client of ["claude-desktop", "claude-code", "cursor", "vscode"]
    ) {
      assert.ok(r.stdout.includes(`config ${client}`), client);
    }
  });

  Deno.test(`cli [${t}] config vscode: JSON on stdout that starts this very build`, async () => {
    // A relative root is made absolute against the working directory.
    const r = await run(t, [
      "config",
      "vscode",
      "--root",
      "tests",
      "--root",
      "bench",
      "--watch",
    ]);
    assert.equal(r.code, 0, r.stderr);
    const entry = JSON.parse(r.stdout).servers.shipcode;
    assert.equal(entry.type, "stdio");
    const expected = serverCommand(
      [
        "--root",
        join(PROJECT_ROOT, "tests"),
        "--root",
        join(PROJECT_ROOT, "bench"),
        // Every version, so every client the user pastes it into works.
        "--protocol-versions",
        CLIENT_PROTOCOL_VERSIONS.join(","),
        // And every feature, so users get the whole server.
        "--features",
        "all",
        "--watch",
      ],
      t,
    );
    // Deno itself through a name that survives upgrades (npm's link).
    const deno = t === "binary" ? { command: expected.command, args: [] } : (
      stableDenoCommand({
        execPath: Deno.execPath(),
        version: Deno.version.deno,
        windows: Deno.build.os === "windows",
        exists: (path) => {
          try {
            return Deno.statSync(path).isFile;
          } catch {
            return false;
          }
        },
      })
    );
    assert.equal(entry.command, deno.command);
    assert.ok(!/node_modules[\\/]deno[\\/]/.test(entry.command));
    assert.deepEqual(entry.args, [...deno.args, ...expected.args]);
    // The hint says where the text goes, on stderr, in one line.
    assert.match(r.stderr, /^[^\n]*\.vscode\/mcp\.json[^\n]*\n$/);
  });

  Deno.test(`cli [${t}] config claude-code: a claude mcp add command line`, async () => {
    const r = await run(t, ["config", "claude-code"]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(
      r.stdout.startsWith("claude mcp add --transport stdio shipcode -- "),
      r.stdout,
    );
    assert.ok(
      r.stdout.endsWith(
        ` --root ${PROJECT_ROOT.replace(/\/$/, "")} --protocol-versions ${
          CLIENT_PROTOCOL_VERSIONS.join(",")
        } --features all\n`,
      ),
      r.stdout,
    );
  });

  Deno.test(`cli [${t}] config claude-code --http: the URL over http, and how to start that server`, async () => {
    const r = await run(t, [
      "config",
      "claude-code",
      "--http",
      "127.0.0.1:8080",
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout,
      "claude mcp add --transport http shipcode http://127.0.0.1:8080/mcp\n",
    );
    const lines = r.stderr.split("\n");
    assert.equal(lines.length, 3, r.stderr);
    assert.match(lines[0], /--scope project/);
    // The server command: this build, listening where the client connects.
    const expected = serverCommand(
      [
        "--root",
        PROJECT_ROOT.replace(/\/$/, ""),
        "--protocol-versions",
        CLIENT_PROTOCOL_VERSIONS.join(","),
        "--features",
        "all",
        "--http",
        "127.0.0.1:8080",
      ],
      t,
    ).args.map((arg) =>
      arg === "--allow-read" ? "--allow-read --allow-net=127.0.0.1:8080" : arg
    ).join(" ");
    assert.match(lines[1], /^Start the server separately/);
    if (t === "binary") {
      // Built to read files only, it cannot listen: it says so.
      assert.match(lines[1], /compiled binary.*deno task serve/);
    } else assert.ok(lines[1].endsWith(` ${expected}`), lines[1]);
  });

  Deno.test(`cli [${t}] piped stdin: no note, only protocol on stdout`, async () => {
    const r = await run(
      t,
      ["--root", "tests"],
      '{"jsonrpc":"2.0","id":1,"method":"ping"}\n',
    );
    assert.deepEqual(r, {
      code: 0,
      stdout: '{"jsonrpc":"2.0","id":1,"result":{}}\n',
      stderr: "",
    });
  });

  Deno.test({
    name:
      `cli [${t}] stdin a terminal: a two-line note on stderr, none on stdout`,
    // util-linux `script` gives the server a pseudo-terminal as stdin.
    ignore: Deno.build.os !== "linux" || !hasScript(),
    async fn() {
      const errFile = await Deno.makeTempFile();
      try {
        const { command, args } = serverCommand(["--root", "tests"], t);
        const line = [command, ...args].map((w) => `'${w}'`).join(" ") +
          ` 2>'${errFile}'`;
        // With its own stdin at end of input, `script` closes the terminal
        // and the server sees EOF and exits.
        const out = await new Deno.Command("script", {
          args: ["-qec", line, "/dev/null"],
          cwd: PROJECT_ROOT,
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).output();
        assert.equal(out.code, 0, decoder.decode(out.stderr));
        const terminal = decoder.decode(out.stdout);
        assert.ok(!terminal.includes("shipcode-mcp"), `stdout: ${terminal}`);
        const note = await Deno.readTextFile(errFile);
        const lines = note.split("\n");
        assert.equal(lines.length, 3, note);
        assert.equal(lines[2], "");
        assert.match(lines[0], /JSON-RPC.*stdin.*Ctrl\+D/);
        assert.match(lines[0], new RegExp(join(PROJECT_ROOT, "tests")));
        assert.match(lines[1], /README\.md/);
        assert.match(lines[1], /shipcode-mcp config/);
      } finally {
        await Deno.remove(errFile);
      }
    },
  });
}

function hasScript(): boolean {
  try {
    return new Deno.Command("script", { args: ["--version"] }).outputSync()
      .success;
  } catch {
    return false;
  }
}

Deno.test("docs/flags.md: every flag documented; CONTRIBUTING.md: the piped example's output is exact", async () => {
  const flags = await Deno.readTextFile(
    join(PROJECT_ROOT, "docs", "flags.md"),
  );
  for (const name of FLAG_NAMES) {
    assert.ok(flags.includes(`\`--${name}`), `docs/flags.md lacks --${name}`);
  }
  const readme = await Deno.readTextFile(
    join(PROJECT_ROOT, "CONTRIBUTING.md"),
  );
  const example = /```sh\n(echo '[^\n]*' \| deno task start)\n```/.exec(
    readme,
  );
  assert.ok(example, "CONTRIBUTING.md has no piped deno task start example");
  const input = /echo '([^']*)'/.exec(example[1])![1];
  const printed = /prints exactly this line[\s\S]*?```\n([^\n]*)\n```/.exec(
    readme,
  );
  assert.ok(printed, "CONTRIBUTING.md does not show the example's output");
  // As written: deno task start, from the repository (INIT_CWD unset, as
  // in a shell; this test may itself run under deno task).
  const env = Deno.env.toObject();
  delete env.INIT_CWD;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "start"],
    cwd: PROJECT_ROOT,
    env: { ...env, NO_COLOR: "1" },
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(input + "\n"));
  await writer.close();
  const out = await child.output();
  assert.equal(decoder.decode(out.stdout), printed[1] + "\n");
  assert.equal(out.code, 0);
});

Deno.test("CONTRIBUTING.md set-up: two npx commands and installer lines, all pinned to the tested Deno", async () => {
  const readme = await Deno.readTextFile(
    join(PROJECT_ROOT, "CONTRIBUTING.md"),
  );
  const version = Deno.version.deno;
  const setup = readme.slice(readme.indexOf("## Set up"));
  const first = /```sh\n([\s\S]*?)```/.exec(setup)![1];
  assert.deepEqual(
    first.trimEnd().split("\n").map((line) => line.replace(/\s+#.*$/, "")),
    [`npx -y deno@${version} task start`, `npx -y deno@${version} task test`],
  );
  assert.ok(
    readme.includes(
      `curl -fsSL https://deno.land/install.sh | sh -s v${version}`,
    ),
  );
  assert.ok(readme.includes(`install.ps1) } v${version}`));
  assert.ok(readme.includes(`npm install -g deno@${version}`));
  // No other Deno version, and no unpinned installer, anywhere in it, in
  // the README or in docs/.
  const texts = [
    readme,
    await Deno.readTextFile(join(PROJECT_ROOT, "README.md")),
  ];
  for await (const entry of Deno.readDir(join(PROJECT_ROOT, "docs"))) {
    texts.push(await Deno.readTextFile(join(PROJECT_ROOT, "docs", entry.name)));
  }
  for (const text of texts) {
    for (const match of text.matchAll(/deno@(\d+\.\d+\.\d+)/g)) {
      assert.equal(match[1], version, match[0]);
    }
    assert.ok(!/install\.sh \| sh\s*(#|$)/m.test(text));
  }
});
