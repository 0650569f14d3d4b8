#!/usr/bin/env node
// The `shipcode-mcp` command of the npm package: runs the bundled server
// (`dist/shipcode-mcp.js`) on the `deno` npm package this package depends
// on, with exactly the permission and V8 flags the user's arguments need
// (`serveFlags`, bundled from the repository's `cli/invocation.ts` into
// `dist/launch_flags.mjs`), stdin, stdout and stderr handed over, SIGINT,
// SIGTERM and SIGHUP passed on, and exits as the server did. Nothing is
// fetched at run time: the bundle carries its npm modules, and Deno's
// update check is off.
"use strict";

const childProcess = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const { pathToFileURL } = require("node:url");

const PACKAGE = path.join(__dirname, "..");
const { name, version } = require("../package.json");
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"];

/** The `deno` executable of the `deno` npm package. */
function denoExecutable() {
  const dir = path.dirname(require.resolve("deno/package.json"));
  const exe = path.join(
    dir,
    process.platform === "win32" ? "deno.exe" : "deno",
  );
  if (fs.existsSync(exe)) return exe;
  // Installed with --ignore-scripts: still in its platform's package.
  return require("deno/install_api.cjs").runInstall();
}

function sameFile(a, b) {
  try {
    return fs.realpathSync(a) === fs.realpathSync(b);
  } catch {
    return false;
  }
}

/**
 * How the user runs this command, for the server's `--help`, errors and
 * `config`: its name (`npx shipcode-mcp` under npx), and a command line that
 * starts it from any directory: `npx -y shipcode-mcp@VERSION` from npx's
 * cache (which npx may clear), else npm's link to this file (global:
 * `PREFIX/bin`, in a project: `node_modules/.bin`), else node and this file.
 */
function invocation() {
  const shown = process.env.npm_command === "exec" ? `npx ${name}` : name;
  if (__dirname.split(path.sep).includes("_npx")) {
    return { name: shown, command: ["npx", "-y", `${name}@${version}`] };
  }
  const above = path.resolve(PACKAGE, "..", "..");
  const windows = process.platform === "win32";
  const links = windows
    ? [
      path.join(above, `${name}.cmd`),
      path.join(above, "node_modules", ".bin", `${name}.cmd`),
    ]
    : [
      ...(path.basename(above) === "lib"
        ? [path.join(above, "..", "bin", name)]
        : []),
      path.join(above, "node_modules", ".bin", name),
    ];
  const link = links.find((file) =>
    windows ? fs.existsSync(file) : sameFile(file, __filename)
  );
  return {
    name: shown,
    command: link === undefined ? [process.execPath, __filename] : [link],
  };
}

/** The arguments of `deno` that serve `args`. */
async function denoArgs(args) {
  const flags = await import(
    pathToFileURL(path.join(PACKAGE, "dist", "launch_flags.mjs")).href
  );
  return [
    "run",
    ...flags.serveFlags(args, process.cwd()),
    path.join(PACKAGE, "dist", "shipcode-mcp.js"),
    flags.invocationArg(invocation()),
    ...args,
  ];
}

async function main() {
  const child = childProcess.spawn(
    denoExecutable(),
    await denoArgs(process.argv.slice(2)),
    {
      stdio: "inherit",
      env: { ...process.env, DENO_NO_UPDATE_CHECK: "1" },
      // Its own process group: a Ctrl+C in a terminal reaches the server
      // once, passed on from here, not twice (a second one ends it at once).
      detached: process.platform !== "win32",
    },
  );
  const forward = (signal) => {
    try {
      child.kill(signal);
    } catch {
      // Already gone.
    }
  };
  for (const signal of SIGNALS) process.on(signal, forward);
  child.on("error", (error) => {
    console.error(`${name}: cannot start Deno: ${error.message}`);
    process.exit(1);
  });
  child.on("exit", (code, signal) => {
    if (signal !== null) {
      // End as the server ended: by the same signal.
      for (const each of SIGNALS) process.removeListener(each, forward);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
}

if (require.main === module) {
  main().catch((error) => {
    console.error(`${name}: ${error.message}`);
    process.exit(1);
  });
} else {
  module.exports = { denoArgs, denoExecutable, invocation };
}
