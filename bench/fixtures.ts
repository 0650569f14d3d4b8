/**
 * The directories the tools and resources workloads serve, made in a
 * temporary directory on first need (so `--workloads pings` makes none)
 * and removed when the bench ends. Making 50,000 files is the slow part
 * (some 15 s of kernel time on this machine's disk; /dev/shm would be
 * faster, but Deno grants `/dev` paths only with `--allow-all`).
 *
 * @module
 */

import { PROJECT_ROOT } from "../tests/server_command.ts";

/** One file of a fixture directory, as the bench expects to read it back. */
export interface FixtureFile {
  /** Path relative to the fixture's root, with `/` separators. */
  relative: string;
  /** Its bytes. */
  bytes: Uint8Array;
}

/** A fixture directory and every regular file in it. */
export interface Fixture {
  /** Its real absolute path (what the servers report in `file://` URIs). */
  root: string;
  /** Its regular files, in no particular order. */
  files: FixtureFile[];
}

/** Files per directory of the generated tree. */
export const FILES_PER_DIRECTORY = 500;

/**
 * The path of the `index`th file of a generated tree: directories of
 * {@linkcode FILES_PER_DIRECTORY} files, `d000/f000.txt`, `d000/f001.txt`…
 */
export function treePath(index: number): string {
  const dir = Math.floor(index / FILES_PER_DIRECTORY);
  const file = index % FILES_PER_DIRECTORY;
  return `d${String(dir).padStart(3, "0")}/f${
    String(file).padStart(3, "0")
  }.txt`;
}

/** The text of a generated tree's file at `relative`: small, and its own. */
export function treeText(relative: string): string {
  return `This is ${relative}, one of the bench's generated files.\n`;
}

async function tracked(): Promise<string[]> {
  const out = await new Deno.Command("git", {
    args: ["ls-files", "-z"],
    cwd: PROJECT_ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(
      `git ls-files failed: ${new TextDecoder().decode(out.stderr)}`,
    );
  }
  return new TextDecoder().decode(out.stdout).split("\0").filter(Boolean);
}

/** Makes fixture directories on first need and removes them all at the end. */
export class Fixtures {
  readonly #made: string[] = [];
  #snapshot: Promise<Fixture> | undefined;
  readonly #trees = new Map<number, Promise<Fixture>>();

  /**
   * A copy of this repository's tracked regular files as they are in the
   * working tree now. The bench searches the copy, not the checkout: the
   * checkout changes while others work in it, and holds build output
   * (`dist/`, `.bench/`) that shipcode-mcp skips by `.gitignore` and the SDK
   * baseline would search; the copy gives every server the same files.
   */
  repository(): Promise<Fixture> {
    this.#snapshot ??= this.#copyRepository();
    return this.#snapshot;
  }

  /** A generated tree of `count` small text files (see {@linkcode treePath}). */
  tree(count: number): Promise<Fixture> {
    let made = this.#trees.get(count);
    if (made === undefined) {
      made = this.#generate(count);
      this.#trees.set(count, made);
    }
    return made;
  }

  /** Remove every directory made so far. */
  async remove(): Promise<void> {
    for (const dir of this.#made.splice(0)) {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  }

  async #tempDir(prefix: string): Promise<string> {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix }));
    this.#made.push(dir);
    return dir;
  }

  async #copyRepository(): Promise<Fixture> {
    const root = await this.#tempDir("shipcode-bench-repo-");
    const files: FixtureFile[] = [];
    for (const relative of await tracked()) {
      const source = `${PROJECT_ROOT}${relative}`;
      let info: Deno.FileInfo;
      try {
        info = await Deno.lstat(source);
      } catch {
        continue; // Deleted in the working tree, not yet in git.
      }
      // Regular files only: a symlink could point out of the copy.
      if (!info.isFile) continue;
      const bytes = await Deno.readFile(source);
      const slash = relative.lastIndexOf("/");
      if (slash > 0) {
        await Deno.mkdir(`${root}/${relative.slice(0, slash)}`, {
          recursive: true,
        });
      }
      await Deno.writeFile(`${root}/${relative}`, bytes);
      files.push({ relative, bytes });
    }
    return { root, files };
  }

  async #generate(count: number): Promise<Fixture> {
    const root = await this.#tempDir("shipcode-bench-tree-");
    const encoder = new TextEncoder();
    const files: FixtureFile[] = [];
    for (let start = 0; start < count; start += FILES_PER_DIRECTORY) {
      await Deno.mkdir(`${root}/${treePath(start).split("/")[0]}`);
      const writes: Promise<void>[] = [];
      const end = Math.min(count, start + FILES_PER_DIRECTORY);
      for (let index = start; index < end; index++) {
        const relative = treePath(index);
        const bytes = encoder.encode(treeText(relative));
        files.push({ relative, bytes });
        writes.push(Deno.writeFile(`${root}/${relative}`, bytes));
      }
      await Promise.all(writes);
    }
    return { root, files };
  }
}
