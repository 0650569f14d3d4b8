/**
 * Builds the bundle, `dist/shipcode-mcp.js`, its search worker
 * `dist/scan_worker.js` and its index worker `dist/index_worker.js`, with
 * `deno bundle`: one JavaScript file that
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
 * @module
 */

import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Each bundle: its entry point and the file it is written to. */
export const BUNDLES: readonly { entry: string; output: string }[] = [
  { entry: "main.ts", output: "dist/shipcode-mcp.js" },
  { entry: "tools/scan_worker.ts", output: "dist/scan_worker.js" },
  { entry: "workspace/index_worker.ts", output: "dist/index_worker.js" },
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

if (import.meta.main) {
  try {
    await Promise.all(BUNDLES.map((b) => bundle(b.entry, b.output)));
  } catch (error) {
    console.error((error as Error).message);
    Deno.exit(1);
  }
}
