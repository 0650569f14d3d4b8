/**
 * `deno task pack`: build the npm package `shipcode-mcp` in
 * `dist/npm/package/` and pack it as `dist/npm/shipcode-mcp-<version>.tgz`
 * (the version is `deno.json`'s). The task bundles the server first
 * (`deno task bundle`); this script adds:
 *
 * - `dist/shipcode-mcp.js`, `dist/scan_worker.js`, `dist/index_worker.js`
 *   and `dist/symbol_worker.js`, the bundle and the search, index and
 *   symbol parser workers it loads from beside itself
 *   (`tools/scan_pool.ts`, `workspace/text_index.ts`,
 *   `tools/symbol_parser.ts`);
 * - `dist/tree-sitter/`, the symbol tools' WebAssembly files, which the
 *   bundle loads from beside itself (`symbols/runtime.ts`);
 * - `dist/launch_flags.mjs`, `cli/invocation.ts` bundled for Node: the
 *   `deno run` flags the user's arguments need, computed by the code
 *   `config` and `deno task serve` use;
 * - `bin/shipcode-mcp.cjs`, the launcher (`scripts/npm/shipcode-mcp.cjs`),
 *   which runs the bundle on the `deno` npm package;
 * - `package.json` ({@linkcode packageJson}), the package's README
 *   (`scripts/npm/README.md`) and the repository's LICENSE when there is
 *   one.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import manifest from "../deno.json" with { type: "json" };
import { BESIDE_BUNDLE, wasmFiles } from "../symbols/runtime.ts";

/** The files of `dist/` the package carries: the bundle and its workers. */
const BUNDLE_FILES = [
  "shipcode-mcp.js",
  "scan_worker.js",
  "index_worker.js",
  "symbol_worker.js",
];

/** The `deno` npm package the server runs on: the Deno it is tested with. */
export const DENO_NPM_VERSION = "2.9.6";

/** The npm package's name, and the name of its command. */
export const PACKAGE_NAME = "shipcode-mcp";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** The npm package's `package.json` for `version`. */
export function packageJson(version: string): Record<string, unknown> {
  return {
    name: PACKAGE_NAME,
    version,
    description:
      "An MCP server for a read-only code workspace: list, read and search files, on stdio or Streamable HTTP.",
    keywords: ["mcp", "model-context-protocol", "mcp-server", "deno"],
    license: "MIT",
    bin: { [PACKAGE_NAME]: `bin/${PACKAGE_NAME}.cjs` },
    files: ["bin/", "dist/", "README.md", "LICENSE"],
    // Pinned exactly: the server is tested on this Deno, and its flags are
    // this Deno's.
    dependencies: { deno: DENO_NPM_VERSION },
    engines: { node: ">=18" },
  };
}

/** The tarball `npm pack` writes for `version`, under `dist/npm/`. */
export function tarballName(version: string): string {
  return `${PACKAGE_NAME}-${version}.tgz`;
}

async function run(command: string, args: string[], cwd = ROOT) {
  const out = await new Deno.Command(command, {
    args,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(
      `${command} ${args.join(" ")} failed:\n${
        new TextDecoder().decode(out.stderr)
      }`,
    );
  }
  return new TextDecoder().decode(out.stdout);
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/**
 * Build the package from the bundle in `dist/` in `out` (ending in `/`;
 * default `dist/npm/`) and pack it there; returns the tarball's path.
 * `npm` packs it (no network: the package has no dependency to resolve at
 * packing time).
 */
export async function buildNpmPackage(
  version: string = manifest.version,
  out = `${ROOT}dist/npm/`,
): Promise<string> {
  const pkg = `${out}package/`;
  const wasm = wasmFiles().map((file) => `${BESIDE_BUNDLE}${file}`);
  for (const file of [...BUNDLE_FILES, ...wasm]) {
    if (!await exists(`${ROOT}dist/${file}`)) {
      throw new Error(`dist/${file} is missing; run deno task bundle first.`);
    }
  }
  await Deno.remove(pkg, { recursive: true }).catch(() => {});
  await Deno.mkdir(`${pkg}bin`, { recursive: true });
  await Deno.mkdir(`${pkg}dist/${BESIDE_BUNDLE}`, { recursive: true });
  for (const file of [...BUNDLE_FILES, ...wasm]) {
    await Deno.copyFile(`${ROOT}dist/${file}`, `${pkg}dist/${file}`);
  }
  await run(Deno.execPath(), [
    "bundle",
    "--quiet",
    "--minify",
    "--platform=browser",
    "-o",
    `${pkg}dist/launch_flags.mjs`,
    `${ROOT}cli/invocation.ts`,
  ]);
  const launcher = `${pkg}bin/${PACKAGE_NAME}.cjs`;
  await Deno.copyFile(`${ROOT}scripts/npm/shipcode-mcp.cjs`, launcher);
  await Deno.chmod(launcher, 0o755);
  await Deno.copyFile(`${ROOT}scripts/npm/README.md`, `${pkg}README.md`);
  if (await exists(`${ROOT}LICENSE`)) {
    await Deno.copyFile(`${ROOT}LICENSE`, `${pkg}LICENSE`);
  }
  await Deno.writeTextFile(
    `${pkg}package.json`,
    JSON.stringify(packageJson(version), null, 2) + "\n",
  );
  const tarball = `${out}${tarballName(version)}`;
  await Deno.remove(tarball).catch(() => {});
  await run("npm", ["pack", "--silent", "--pack-destination", out], pkg);
  if (!await exists(tarball)) {
    throw new Error(`npm pack wrote no ${tarball}`);
  }
  return tarball;
}

if (import.meta.main) {
  const started = performance.now();
  const tarball = await buildNpmPackage();
  console.log(
    `${tarball} (${
      ((performance.now() - started) / 1000).toFixed(1)
    } s); try it: npx -y ${tarball} --help`,
  );
}
