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

/** The path of the `index`th file of a flat directory: `f000042.txt`. */
export function flatPath(index: number): string {
  return `f${String(index).padStart(6, "0")}.txt`;
}

/**
 * `bytes` bytes of ASCII text that look like source code, with quotes and
 * backslashes that JSON must escape, as real source has: lines of `calls`
 * calls of about 70 characters each; `variant` varies the text between files.
 */
export function sourceText(bytes: number, variant = 0, calls = 1): string {
  const lines: string[] = [];
  let length = 0;
  for (let i = 0; length < bytes; i++) {
    let line = `  const item${variant}_${i} = [`;
    for (let call = 0; call < calls; call++) {
      line += ` lookup("key-${(i + call) % 97}", { path: "src\\dir\\file${
        i % 13
      }.ts", count: ${i} }),`;
    }
    line += " ];\n";
    lines.push(line);
    length += line.length;
  }
  return lines.join("").slice(0, bytes - 1) + "\n";
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
  readonly #others = new Map<string, Promise<Fixture>>();

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

  /**
   * A directory of `count` files of exactly `bytes` bytes each, `big00.txt`,
   * `big01.txt`…: ASCII source text (see {@linkcode sourceText}) in lines
   * of some 700 bytes, so that a read with the default line limit (2,000)
   * returns a whole megabyte.
   */
  bigFiles(count: number, bytes: number): Promise<Fixture> {
    const key = `big:${count}:${bytes}`;
    return this.#once(key, async () => {
      const root = await this.#tempDir("shipcode-bench-big-");
      const files: FixtureFile[] = [];
      for (let i = 0; i < count; i++) {
        const relative = `big${String(i).padStart(2, "0")}.txt`;
        const data = new TextEncoder().encode(sourceText(bytes, i, 10));
        await Deno.writeFile(`${root}/${relative}`, data);
        files.push({ relative, bytes: data });
      }
      return { root, files };
    });
  }

  /**
   * A directory of `count` small files in one directory, `f000000.txt`…
   * (see {@linkcode flatPath}), and a `.gitignore` that ignores none of them.
   */
  flat(count: number): Promise<Fixture> {
    return this.#once(`flat:${count}`, async () => {
      const root = await this.#tempDir("shipcode-bench-flat-");
      const encoder = new TextEncoder();
      const files: FixtureFile[] = [];
      const batch = 1000;
      for (let start = 0; start < count; start += batch) {
        const writes: Promise<void>[] = [];
        for (let i = start; i < Math.min(count, start + batch); i++) {
          const relative = flatPath(i);
          const bytes = encoder.encode(treeText(relative));
          files.push({ relative, bytes });
          writes.push(Deno.writeFile(`${root}/${relative}`, bytes));
        }
        await Promise.all(writes);
      }
      await Deno.writeTextFile(`${root}/.gitignore`, "*.log\n");
      return { root, files };
    });
  }

  /**
   * A directory whose `count` files each hold `lines` lines containing
   * `needle`, and a `.gitignore`: every search for `needle` stops at its
   * match limit after a few files.
   */
  needles(count: number, lines: number, needle: string): Promise<Fixture> {
    return this.#once(`needles:${count}:${lines}:${needle}`, async () => {
      const root = await this.#tempDir("shipcode-bench-needles-");
      const files: FixtureFile[] = [];
      for (let i = 0; i < count; i++) {
        const relative = `n${String(i).padStart(2, "0")}.ts`;
        let text = "";
        for (let line = 0; line < lines; line++) {
          text += `export const value_${i}_${line} = "${needle} ${line}";\n`;
        }
        const data = new TextEncoder().encode(text);
        await Deno.writeFile(`${root}/${relative}`, data);
        files.push({ relative, bytes: data });
      }
      await Deno.writeTextFile(`${root}/.gitignore`, "*.log\nbuild/\n");
      return { root, files };
    });
  }

  #once(key: string, make: () => Promise<Fixture>): Promise<Fixture> {
    let made = this.#others.get(key);
    if (made === undefined) {
      made = make();
      this.#others.set(key, made);
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
