/**
 * How the server is run: the `deno run` flags every launcher uses (the
 * `start` task, `shipcode.yml`, the command `config` prints, the bundle's
 * and the benchmark's command lines, the tests), and the `deno` command a
 * client should spawn.
 *
 * The flags live here once. Code imports them; the text files that cannot
 * (`deno.json`, `shipcode.yml`, the README) are checked against them by
 * `run_command_test.ts`.
 *
 * @module
 */

/**
 * Deno's permissions for the server: read files, know its own user id
 * (directories of other owners are watched more closely: see
 * `workspace/secure_fs.ts`), and nothing else; never a permission prompt,
 * which would wait on the stdin that carries the protocol.
 */
export const PERMISSION_FLAGS: readonly string[] = [
  "--allow-read",
  "--allow-sys=uid",
  "--no-prompt",
];

/**
 * {@linkcode PERMISSION_FLAGS} for a server started with `http` (the
 * `--http` value, `HOST:PORT`, or "" for stdio), `authTokenEnv` (the
 * `--auth-token-env` name, or "") and `stateKeyEnv` (the `--state-key-env`
 * name, or "", the default when left out): the network only at the
 * address it listens on, and the environment only for the variables
 * holding the token (with `--http`) and the request-state key (on either
 * transport); with `rg` (the `--rg` value, "" or left out: none), running
 * that one program; with `indexCache` (the `--index-cache` directory, ""
 * or left out: none), writing in that directory and nowhere else.
 */
export function permissionFlags(
  options: {
    http: string;
    authTokenEnv: string;
    stateKeyEnv?: string;
    rg?: string;
    indexCache?: string;
  },
): string[] {
  const names: string[] = [];
  if (options.http !== "" && options.authTokenEnv !== "") {
    names.push(options.authTokenEnv);
  }
  const stateKeyEnv = options.stateKeyEnv ?? "";
  if (stateKeyEnv !== "" && !names.includes(stateKeyEnv)) {
    names.push(stateKeyEnv);
  }
  const extra = options.http === "" ? [] : [`--allow-net=${options.http}`];
  if (names.length > 0) extra.push(`--allow-env=${names.join(",")}`);
  if ((options.rg ?? "") !== "") extra.push(`--allow-run=${options.rg}`);
  if ((options.indexCache ?? "") !== "") {
    extra.push(`--allow-write=${options.indexCache}`);
  }
  return [PERMISSION_FLAGS[0], ...extra, ...PERMISSION_FLAGS.slice(1)];
}

/**
 * V8's linear-time regex engine, and the fallback to it when a regex
 * backtracks too much: with it `search_text`'s regexes stay finite (see
 * `tools/regex.ts`, which refuses the regexes that engine cannot run).
 */
export const V8_REGEX_FLAGS =
  "--enable-experimental-regexp-engine-on-excessive-backtracks,--enable-experimental-regexp-engine";

/**
 * V8's young generation capped at 4 MiB a half: under a flood of large
 * answers (2,000 reads of 1 MB files) the default let the young generation
 * alone take a few hundred MB of RSS; at 4 MiB peak memory stays under
 * 300 MB, and `deno task bench` shows no cost in speed.
 */
export const V8_MEMORY_FLAGS = "--max-semi-space-size=4";

/** Every V8 flag the server runs with, as one `--v8-flags=…` argument. */
export const V8_FLAGS_ARG = `--v8-flags=${V8_REGEX_FLAGS},${V8_MEMORY_FLAGS}`;

/**
 * The flags of `deno run` that run the server from source or as the
 * bundle: {@linkcode PERMISSION_FLAGS}, then {@linkcode V8_FLAGS_ARG}.
 */
export const DENO_RUN_FLAGS: readonly string[] = [
  ...PERMISSION_FLAGS,
  V8_FLAGS_ARG,
];

/** A program and the arguments that come before `run`: how to start Deno. */
export interface DenoCommand {
  /** The program a client spawns. */
  command: string;
  /** Arguments before Deno's own (`run ...`). */
  args: string[];
}

/** Where Deno was found; see {@linkcode stableDenoCommand}. */
export interface DenoInstall {
  /** `Deno.execPath()`: the `deno` executable that is running. */
  execPath: string;
  /** `Deno.version.deno`, for an `npx deno@<version>` command. */
  version: string;
  /** Windows paths (`\`) and shims (`deno.cmd`). */
  windows?: boolean;
  /** Whether a file exists (a shim beside the npm package). */
  exists: (path: string) => boolean;
}

/**
 * A command that starts this Deno and keeps working after Deno is upgraded.
 *
 * Installed from npm, `Deno.execPath()` is the binary inside npm's package
 * directory (`<prefix>/lib/node_modules/deno/deno`), which npm replaces on
 * upgrade; the stable name is npm's link to it (`<prefix>/bin/deno`, or
 * `node_modules/.bin/deno` for a project install, `deno.cmd` on Windows).
 * Run through `npx`, the binary sits in npx's cache, so the command is
 * `npx --prefer-offline -y deno@<version>` (offline it starts at once from
 * that cache). Homebrew's binary lives in a versioned `Cellar` directory;
 * its stable name is `<prefix>/bin/deno`. Any other install (the official
 * installer, a package manager) is used as it is.
 */
export function stableDenoCommand(install: DenoInstall): DenoCommand {
  const sep = install.windows ? "\\" : "/";
  const parts = install.execPath.split(install.windows ? /[\\/]/ : "/");
  const cellar = parts.lastIndexOf("Cellar");
  if (!install.windows && cellar > 0 && parts[cellar + 1] === "deno") {
    const link = [...parts.slice(0, cellar), "bin", "deno"].join(sep);
    if (install.exists(link)) return { command: link, args: [] };
  }
  const at = parts.lastIndexOf("node_modules");
  if (at < 0 || parts[at + 1] !== "deno") {
    return { command: install.execPath, args: [] };
  }
  const npx = {
    command: "npx",
    args: ["--prefer-offline", "-y", `deno@${install.version}`],
  };
  if (parts.includes("_npx")) return npx;
  const above = parts.slice(0, at);
  const candidates: string[] = [];
  if (install.windows) {
    candidates.push([...above, "deno.cmd"].join(sep));
  } else if (above.at(-1) === "lib") {
    candidates.push([...above.slice(0, -1), "bin", "deno"].join(sep));
  }
  candidates.push(
    [...above, "node_modules", ".bin", install.windows ? "deno.cmd" : "deno"]
      .join(sep),
  );
  const shim = candidates.find((path) => install.exists(path));
  return shim === undefined ? npx : { command: shim, args: [] };
}
