import { strict as assert } from "node:assert";
import {
  DENO_RUN_FLAGS,
  PERMISSION_FLAGS,
  permissionFlags,
  stableDenoCommand,
  V8_FLAGS_ARG,
  V8_REGEX_FLAGS,
} from "./run_command.ts";

function install(execPath: string, files: string[], windows = false) {
  return {
    execPath,
    version: "2.9.6",
    windows,
    exists: (path: string) => files.includes(path),
  };
}

Deno.test("stableDenoCommand: npm's global link, not the binary inside the package", () => {
  assert.deepEqual(
    stableDenoCommand(
      install("/usr/lib/node_modules/deno/deno", ["/usr/bin/deno"]),
    ),
    { command: "/usr/bin/deno", args: [] },
  );
  assert.deepEqual(
    stableDenoCommand(
      install("/home/a/.nvm/versions/node/v22/lib/node_modules/deno/deno", [
        "/home/a/.nvm/versions/node/v22/bin/deno",
      ]),
    ),
    { command: "/home/a/.nvm/versions/node/v22/bin/deno", args: [] },
  );
});

Deno.test("stableDenoCommand: a project install uses node_modules/.bin", () => {
  assert.deepEqual(
    stableDenoCommand(
      install("/p/node_modules/deno/deno", ["/p/node_modules/.bin/deno"]),
    ),
    { command: "/p/node_modules/.bin/deno", args: [] },
  );
});

Deno.test("stableDenoCommand: npx's cache, or no link found, becomes npx deno@version", () => {
  const npx = {
    command: "npx",
    args: ["--prefer-offline", "-y", "deno@2.9.6"],
  };
  assert.deepEqual(
    stableDenoCommand(
      install("/root/.npm/_npx/3078b46d/node_modules/deno/deno", [
        "/root/.npm/_npx/3078b46d/node_modules/.bin/deno",
      ]),
    ),
    npx,
  );
  assert.deepEqual(
    stableDenoCommand(install("/usr/lib/node_modules/deno/deno", [])),
    npx,
  );
});

Deno.test("stableDenoCommand: Windows npm prefix has deno.cmd", () => {
  assert.deepEqual(
    stableDenoCommand(
      install(
        "C:\\Users\\a\\AppData\\Roaming\\npm\\node_modules\\deno\\deno.exe",
        ["C:\\Users\\a\\AppData\\Roaming\\npm\\deno.cmd"],
        true,
      ),
    ),
    { command: "C:\\Users\\a\\AppData\\Roaming\\npm\\deno.cmd", args: [] },
  );
});

Deno.test("stableDenoCommand: Homebrew's link, not its versioned Cellar", () => {
  assert.deepEqual(
    stableDenoCommand(
      install("/opt/homebrew/Cellar/deno/2.9.6/bin/deno", [
        "/opt/homebrew/bin/deno",
      ]),
    ),
    { command: "/opt/homebrew/bin/deno", args: [] },
  );
});

Deno.test("stableDenoCommand: other installs are used as they are", () => {
  for (const path of ["/home/a/.deno/bin/deno", "/usr/local/bin/deno"]) {
    assert.deepEqual(stableDenoCommand(install(path, [])), {
      command: path,
      args: [],
    });
  }
});

const ROOT = new URL("../", import.meta.url);

Deno.test("DENO_RUN_FLAGS: the start task and shipcode.yml run the server with them", async () => {
  const tasks = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)))
    .tasks as Record<string, string>;
  const flags = DENO_RUN_FLAGS.join(" ");
  assert.ok(tasks.start.includes(`deno run ${flags} `), tasks.start);
  const yml = await Deno.readTextFile(new URL("shipcode.yml", ROOT));
  assert.match(yml, new RegExp(`^run: deno run ${flags} `, "m"));
});

Deno.test("the serve task runs scripts/serve.ts, which gives the server permissionFlags, as start does from the directory it is run in", async () => {
  const tasks = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)))
    .tasks as Record<string, string>;
  const launcher =
    'deno run --allow-read --allow-run --no-prompt "$ROOT/scripts/serve.ts"';
  assert.ok(tasks.serve.endsWith(launcher), tasks.serve);
  // The same set-up as start: cache every module, then go back to where the
  // task was run from.
  const setUp = tasks.start.slice(0, tasks.start.indexOf("deno run"));
  assert.equal(tasks.serve, setUp + launcher);
  const source = await Deno.readTextFile(new URL("scripts/serve.ts", ROOT));
  assert.match(source, /\.\.\.permissionFlags\(needs\), V8_FLAGS_ARG/);
});

Deno.test("DENO_RUN_FLAGS: every deno run command line in the README, CONTRIBUTING.md and docs/ grants the same permissions and V8 flags", async () => {
  const files = [new URL("README.md", ROOT), new URL("CONTRIBUTING.md", ROOT)];
  for await (const entry of Deno.readDir(new URL("docs/", ROOT))) {
    if (entry.name.endsWith(".md")) {
      files.push(new URL(`docs/${entry.name}`, ROOT));
    }
  }
  let text = "";
  for (const file of files) text += await Deno.readTextFile(file) + "\n";
  // Shell continuations (also inside `#` comments) joined into one line.
  const readme = text.replace(/ *\\\n[ #]*/g, " ");
  const runs = [...readme.matchAll(/deno run (--[^`\n]*)/g)].map((m) => m[1]);
  assert.ok(runs.length >= 3, `only ${runs.length} deno run lines found`);
  for (const run of runs) {
    // With --http, the network at that address (and the token's variable).
    const http = /--http (\S+)/.exec(run)?.[1] ?? "";
    const authTokenEnv = /--auth-token-env (\S+)/.exec(run)?.[1] ?? "";
    const stateKeyEnv = /--state-key-env (\S+)/.exec(run)?.[1] ?? "";
    const flags = permissionFlags({ http, authTokenEnv, stateKeyEnv }).join(
      " ",
    );
    assert.ok(run.startsWith(`${flags} `), run);
  }
  const v8 = [...readme.matchAll(/--v8-flags=[^\s`]*/g)].map((m) => m[0]);
  assert.ok(v8.length >= 2, `only ${v8.length} --v8-flags found`);
  for (const arg of v8) {
    assert.ok(
      [V8_FLAGS_ARG, `--v8-flags=${V8_REGEX_FLAGS}`, "--v8-flags=…"].includes(
        arg,
      ),
      arg,
    );
  }
});

Deno.test("permissionFlags: stdio reads (and knows its own user id) only; --http adds the network at its address, a token its variable", () => {
  assert.deepEqual(permissionFlags({ http: "", authTokenEnv: "X" }), [
    ...PERMISSION_FLAGS,
  ]);
  assert.deepEqual(
    permissionFlags({ http: "[::1]:9000", authTokenEnv: "" }),
    [
      "--allow-read",
      "--allow-net=[::1]:9000",
      "--allow-sys=uid",
      "--no-prompt",
    ],
  );
  assert.deepEqual(
    permissionFlags({ http: "0.0.0.0:80", authTokenEnv: "TOKEN" }),
    [
      "--allow-read",
      "--allow-net=0.0.0.0:80",
      "--allow-env=TOKEN",
      "--allow-sys=uid",
      "--no-prompt",
    ],
  );
});

Deno.test("permissionFlags: --state-key-env adds its variable on either transport, beside the token's", () => {
  assert.deepEqual(
    permissionFlags({ http: "", authTokenEnv: "", stateKeyEnv: "KEY" }),
    ["--allow-read", "--allow-env=KEY", "--allow-sys=uid", "--no-prompt"],
  );
  assert.deepEqual(
    permissionFlags({
      http: "127.0.0.1:8080",
      authTokenEnv: "TOKEN",
      stateKeyEnv: "KEY",
    }),
    [
      "--allow-read",
      "--allow-net=127.0.0.1:8080",
      "--allow-env=TOKEN,KEY",
      "--allow-sys=uid",
      "--no-prompt",
    ],
  );
  // One variable for both is granted once.
  assert.deepEqual(
    permissionFlags({ http: "0:1", authTokenEnv: "S", stateKeyEnv: "S" }),
    [
      "--allow-read",
      "--allow-net=0:1",
      "--allow-env=S",
      "--allow-sys=uid",
      "--no-prompt",
    ],
  );
});

Deno.test("permissionFlags: --index-cache DIR may write in DIR and nowhere else", () => {
  assert.deepEqual(
    permissionFlags({ http: "", authTokenEnv: "", indexCache: "/c/idx" }),
    ["--allow-read", "--allow-write=/c/idx", "--allow-sys=uid", "--no-prompt"],
  );
  assert.ok(
    !permissionFlags({ http: "", authTokenEnv: "", indexCache: "" })
      .some((flag) => flag.startsWith("--allow-write")),
  );
});
