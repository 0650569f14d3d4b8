/**
 * Agent CLIs for the model-eye matrix, installed from the npm registry at
 * pinned versions into a cache directory the test set-up owns (kept between
 * runs, so a second run installs nothing).
 *
 * @module
 */

import { join } from "node:path";

/** Where installed CLIs are kept: `$SHIPCODE_TEST_CACHE` or ~/.cache. */
export function cacheDir(): string {
  const set = Deno.env.get("SHIPCODE_TEST_CACHE");
  if (set) return set;
  const home = Deno.env.get("XDG_CACHE_HOME") ??
    join(Deno.env.get("HOME") ?? "/tmp", ".cache");
  return join(home, "shipcode-mcp-tests");
}

const installing = new Map<string, Promise<string>>();

/**
 * Install `name@version` (once per cache) and give the directory whose
 * `node_modules/` holds it. Fails with npm's own words when npm does.
 */
export function installPackage(name: string, version: string): Promise<string> {
  const key = `${name}@${version}`;
  let done = installing.get(key);
  if (done === undefined) {
    done = install(name, version);
    installing.set(key, done);
  }
  return done;
}

async function install(name: string, version: string): Promise<string> {
  const dir = join(cacheDir(), "npm", `${name.replace("/", "+")}@${version}`);
  const marker = join(dir, ".installed");
  try {
    await Deno.stat(marker);
    return dir;
  } catch { /* not yet */ }
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(join(dir, "package.json"), '{"private":true}\n');
  const output = await new Deno.Command("npm", {
    args: [
      "install",
      "--no-audit",
      "--no-fund",
      "--no-save",
      "--loglevel=error",
      `${name}@${version}`,
    ],
    cwd: dir,
    stdin: "null",
  }).output();
  if (!output.success) {
    throw new Error(
      `npm install ${name}@${version} failed:\n${
        new TextDecoder().decode(output.stderr)
      }`,
    );
  }
  await Deno.writeTextFile(marker, `${new Date().toISOString()}\n`);
  return dir;
}

/** The path of `bin` in an install from {@linkcode installPackage}. */
export function binPath(dir: string, bin: string): string {
  return join(dir, "node_modules", ".bin", bin);
}
