/**
 * Builds the bundle, `dist/shipcode-mcp.js`, its search worker
 * `dist/scan_worker.js`, its index worker `dist/index_worker.js` and its
 * symbol parser `dist/symbol_worker.js`, with `deno bundle`: one
 * JavaScript file each that
 * carries every module the server loads, npm packages (mime, Ajv) and
 * lazily imported ones included, so that running it fetches nothing and
 * needs no Deno cache (`tests/offline_test.ts`).
 *
 * ```sh
 * deno run --allow-read --allow-write=dist --allow-run --no-prompt scripts/bundle.ts
 * ```
 *
 * `deno bundle -o FILE` rewrites FILE in place, and `deno task start`
 * bundles while other servers may be starting from the same files (a test
 * run, a client): each file is written under a name of its own, then
 * renamed over the old one, so a server starting meanwhile reads the old
 * file or the new one, never half of one.
 *
 * The symbol tools' WebAssembly files (the tree-sitter runtime and its
 * grammars) cannot be inlined: they are copied from their npm packages
 * into `dist/tree-sitter/`, where the symbol worker (and the bundle, where
 * no worker can run) loads them from (`symbols/runtime.ts`).
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import {
  BESIDE_BUNDLE,
  packageWasmUrl,
  wasmFiles,
} from "../symbols/runtime.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Each bundle: its entry point and the file it is written to. */
export const BUNDLES: readonly { entry: string; output: string }[] = [
  { entry: "main.ts", output: "dist/shipcode-mcp.js" },
  { entry: "tools/scan_worker.ts", output: "dist/scan_worker.js" },
  { entry: "workspace/index_worker.ts", output: "dist/index_worker.js" },
  { entry: "tools/symbol_worker.ts", output: "dist/symbol_worker.js" },
];

/** Bundle `entry` into `output` (both relative to the repository). */
export async function bundle(entry: string, output: string): Promise<void> {
  const target = `${ROOT}${output}`;
  const dir = target.slice(0, target.lastIndexOf("/"));
  await Deno.mkdir(dir, { recursive: true });
  const part = await Deno.makeTempFile({ dir, prefix: ".bundle-" });
  try {
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["bundle", "--quiet", "--minify", "-o", part, `${ROOT}${entry}`],
      cwd: ROOT,
      stdout: "inherit",
      stderr: "piped",
    }).output();
    if (code !== 0) {
      throw new Error(
        `deno bundle ${entry} failed:\n${new TextDecoder().decode(stderr)}`,
      );
    }
    await Deno.chmod(part, 0o644);
    await Deno.rename(part, target);
  } catch (error) {
    await Deno.remove(part).catch(() => {});
    throw error;
  }
}

/**
 * Copy the symbol tools' WebAssembly files into `dist/tree-sitter/` (each
 * under a name of its own, then renamed; one already there at the same
 * size is kept).
 */
export async function copyWasm(): Promise<void> {
  const dir = `${ROOT}dist/${BESIDE_BUNDLE}`;
  await Deno.mkdir(dir, { recursive: true });
  let sources = wasmFiles().map((file) => ({
    file,
    url: packageWasmUrl(file),
  }));
  if (sources.some(({ url }) => url === undefined || !isFile(url))) {
    // Not in Deno's cache yet: the grammars' package is only type-imported.
    await new Deno.Command(Deno.execPath(), {
      args: ["cache", "--quiet", `${ROOT}symbols/runtime.ts`],
      cwd: ROOT,
    }).output();
    sources = wasmFiles().map((file) => ({ file, url: packageWasmUrl(file) }));
  }
  await Promise.all(sources.map(async ({ file, url }) => {
    if (url === undefined || !isFile(url)) {
      throw new Error(`${file} is not in Deno's npm cache; run deno install.`);
    }
    const target = `${dir}${file}`;
    const size = Deno.statSync(url).size;
    if (isFile(target) && Deno.statSync(target).size === size) return;
    const part = await Deno.makeTempFile({ dir, prefix: ".copy-" });
    try {
      await Deno.copyFile(url, part);
      await Deno.chmod(part, 0o644);
      await Deno.rename(part, target);
    } catch (error) {
      await Deno.remove(part).catch(() => {});
      throw error;
    }
  }));
}

function isFile(path: string | URL): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

if (import.meta.main) {
  try {
    // The first alone: on a cold cache it installs esbuild, and bundlers
    // started together each copy it into the same place (one failed with
    // "failed to copy esbuild binary": No such file or directory).
    const [first, ...rest] = BUNDLES;
    await bundle(first.entry, first.output);
    await Promise.all(rest.map((b) => bundle(b.entry, b.output)));
    // After the bundles: on a cold cache, fetching the grammars' package
    // would otherwise race the bundlers' own npm installs.
    await copyWasm();
  } catch (error) {
    console.error((error as Error).message);
    Deno.exit(1);
  }
}
