/**
 * A disposable copy of the fixture workspace (`tests/fixtures/ws`) with the
 * parts git cannot hold portably made at test time: symlinks (in, out,
 * looping, broken), a large file, and a secret file just outside the root
 * whose content must never reach a client.
 *
 * @module
 */

import { PROJECT_ROOT } from "./server_command.ts";

/** The committed fixture tree. */
export const FIXTURE_ROOT = `${PROJECT_ROOT}tests/fixtures/ws`;

/** The content of the secret file outside the root. */
export const SECRET = "SECRET-OUTSIDE-THE-ROOT-7f3a9c";

/** A temporary fixture workspace. */
export interface TempWorkspace {
  /** The workspace root (a copy of the fixture tree plus links). */
  root: string;
  /** The directory holding the root and the secret file. */
  base: string;
  /** Absolute path of the secret file outside the root. */
  secretPath: string;
  /** Remove everything. */
  cleanup(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const source = `${from}/${entry.name}`;
    const target = `${to}/${entry.name}`;
    if (entry.isDirectory) await copyTree(source, target);
    else if (entry.isFile) await Deno.copyFile(source, target);
  }
}

/** Size of the generated large file, in bytes (over the 1 MiB default cap). */
export const LARGE_FILE_BYTES = 1_500_000;

/** Make a fresh temporary workspace. */
export async function makeTempWorkspace(): Promise<TempWorkspace> {
  const base = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "shipcode-ws-" }),
  );
  const root = `${base}/ws`;
  await copyTree(FIXTURE_ROOT, root);
  const secretPath = `${base}/secret.txt`;
  await Deno.writeTextFile(secretPath, `${SECRET}\n`);
  await Deno.mkdir(`${base}/outside_dir`);
  await Deno.writeTextFile(`${base}/outside_dir/inner.txt`, `${SECRET}\n`);
  // Links out of the root, relative and absolute, to a file and a directory.
  await Deno.symlink("../secret.txt", `${root}/link_out`);
  await Deno.symlink(secretPath, `${root}/link_out_abs`);
  await Deno.symlink("../outside_dir", `${root}/link_dir_out`);
  await Deno.symlink("..", `${root}/link_parent`);
  await Deno.symlink("src/../../secret.txt", `${root}/link_sneaky`);
  await Deno.symlink("../missing.txt", `${root}/link_out_missing`);
  // Links that stay inside: to a file, to a directory, to itself (a loop).
  await Deno.symlink("src/main.ts", `${root}/link_in`);
  await Deno.symlink("../src", `${root}/docs/link_src`);
  await Deno.symlink(".", `${root}/link_self`);
  await Deno.symlink("nowhere.txt", `${root}/link_broken`);
  // A link inside the root to an ignored file.
  await Deno.symlink("secret.env", `${root}/link_to_ignored`);
  // A large text file: many short numbered lines.
  const line = "large file line padding padding padding\n";
  await Deno.writeTextFile(
    `${root}/large.txt`,
    line.repeat(Math.ceil(LARGE_FILE_BYTES / line.length)),
  );
  const cleanup = () => Deno.remove(base, { recursive: true });
  return { root, base, secretPath, cleanup, [Symbol.asyncDispose]: cleanup };
}
