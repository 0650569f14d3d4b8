/**
 * `deno task bench:trees`: prepares the large trees the `search` bench runs
 * on, once, in a cache directory outside the repository
 * (`$SHIPCODE_BENCH_TREES`, default `/tmp/shipcode-bench-trees`):
 *
 * - `linux/`: the Linux 6.1 source from Debian's `linux-source-6.1`
 *   package (`/usr/src/linux-source-6.1.tar.xz`), about 82,000 files with
 *   upstream's `.gitignore` files. Debian appends a stanza (`/*` then
 *   `!/debian/`) to the root `.gitignore` that hides everything but
 *   `debian/` from any tool honouring it; the copy drops that stanza.
 * - `npm/`: a `node_modules` tree of about 8,000 files, `npm install`ed
 *   from the pinned packages of {@linkcode NPM_PACKAGES}.
 * - `symbols/`: {@linkcode SYMBOL_FILES} generated TypeScript files in
 *   100 directories (`symbolSource`), for `find_symbol`.
 *
 * Idempotent: a tree whose marker file says it is complete is left alone.
 * Prints what it did.
 *
 * @module
 */

/** The kernel tarball Debian's `linux-source-6.1` installs. */
export const KERNEL_TARBALL = "/usr/src/linux-source-6.1.tar.xz";

/** Pinned npm packages that make the node_modules tree (~8,000 files). */
export const NPM_PACKAGES = [
  "typescript@5.6.3",
  "lodash@4.17.21",
  "date-fns@2.30.0",
  "@babel/core@7.26.0",
];

/** The cache directory of the trees. */
export function treesDir(): string {
  return Deno.env.get("SHIPCODE_BENCH_TREES") ?? "/tmp/shipcode-bench-trees";
}

/** The lines Debian appends to the kernel's root `.gitignore`. */
const DEBIAN_STANZA = ["/*", "!/debian/"];

// Bump when the way a tree is made changes: its marker then no longer matches.
const KERNEL_MARK = "kernel v1: debian stanza dropped";
const NPM_MARK = `npm v1: ${NPM_PACKAGES.join(" ")}`;

/** How many files the generated `symbols/` tree holds. */
export const SYMBOL_FILES = 10_000;

const SYMBOLS_MARK = `symbols v1: ${SYMBOL_FILES} files`;

async function readText(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
}

async function run(command: string, args: string[], cwd?: string) {
  const output = await new Deno.Command(command, {
    args,
    cwd,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!output.success) {
    throw new Error(
      `"${command} ${
        args.join(" ")
      }" failed (exit ${output.code}); see its output above.`,
    );
  }
}

/**
 * Drop Debian's stanza (`/*`, `!/debian/`, and the comment lines just
 * before them) from a `.gitignore`'s text. Returns the text unchanged when
 * it holds no such stanza.
 */
export function dropDebianStanza(text: string): string {
  const lines = text.split("\n");
  for (let i = 0; i + 1 < lines.length; i++) {
    if (lines[i] === DEBIAN_STANZA[0] && lines[i + 1] === DEBIAN_STANZA[1]) {
      let start = i;
      while (start > 0 && lines[start - 1].startsWith("#")) start--;
      while (start > 0 && lines[start - 1] === "") start--;
      lines.splice(start, i + 2 - start);
      return lines.join("\n");
    }
  }
  return text;
}

async function countFiles(dir: string): Promise<number> {
  const out = await new Deno.Command("find", {
    args: [dir, "-type", "f"],
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout).split("\n").filter((l) => l)
    .length;
}

/** Make `linux/` unless it is there already; returns its path. */
export async function prepareKernel(base: string): Promise<string> {
  const dir = `${base}/linux`;
  const marker = `${base}/.linux.done`;
  if ((await readText(marker)) === KERNEL_MARK) {
    console.log(`kernel: ${dir} is ready (${marker})`);
    return dir;
  }
  try {
    await Deno.stat(KERNEL_TARBALL);
  } catch {
    throw new Error(
      `${KERNEL_TARBALL} is missing; install Debian's linux-source-6.1 package (apt-get install linux-source-6.1).`,
    );
  }
  const partial = `${base}/linux.partial`;
  await Deno.remove(partial, { recursive: true }).catch(() => {});
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  await Deno.mkdir(partial, { recursive: true });
  console.log(`kernel: extracting ${KERNEL_TARBALL} (about a minute)…`);
  const started = performance.now();
  await run("tar", ["-xJf", KERNEL_TARBALL, "-C", partial]);
  const top = [...Deno.readDirSync(partial)];
  if (top.length !== 1 || !top[0].isDirectory) {
    throw new Error(
      `${KERNEL_TARBALL} did not hold one top directory; check the package.`,
    );
  }
  await Deno.rename(`${partial}/${top[0].name}`, dir);
  await Deno.remove(partial, { recursive: true });
  const gitignore = `${dir}/.gitignore`;
  const before = await Deno.readTextFile(gitignore);
  const after = dropDebianStanza(before);
  if (after === before) {
    console.log("kernel: the root .gitignore held no Debian stanza");
  } else {
    await Deno.writeTextFile(gitignore, after);
    console.log("kernel: dropped Debian's `/*` `!/debian/` stanza");
  }
  const files = await countFiles(dir);
  await Deno.writeTextFile(marker, KERNEL_MARK);
  console.log(
    `kernel: ${dir}: ${files} files, in ${
      ((performance.now() - started) / 1000).toFixed(0)
    } s`,
  );
  return dir;
}

/** Make `npm/` (a node_modules tree) unless it is there; returns its path. */
export async function prepareNpm(base: string): Promise<string> {
  const dir = `${base}/npm`;
  const marker = `${base}/.npm.done`;
  if ((await readText(marker)) === NPM_MARK) {
    console.log(`npm: ${dir} is ready (${marker})`);
    return dir;
  }
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/package.json`,
    JSON.stringify({ name: "bench-tree", private: true }) + "\n",
  );
  console.log(`npm: npm install ${NPM_PACKAGES.join(" ")} …`);
  const started = performance.now();
  await run("npm", [
    "install",
    "--no-audit",
    "--no-fund",
    "--ignore-scripts",
    "--no-package-lock",
    "--save-exact",
    ...NPM_PACKAGES,
  ], dir);
  const seconds = (performance.now() - started) / 1000;
  const files = await countFiles(dir);
  await Deno.writeTextFile(marker, NPM_MARK);
  console.log(
    `npm: ${dir}: ${files} files, installed in ${seconds.toFixed(0)} s${
      seconds > 120 ? " (the npm registry was slow)" : ""
    }`,
  );
  return dir;
}

/**
 * The text of file `i` of the generated tree: an interface, a class with
 * methods, and functions, each name numbered after the file, and calls
 * to another file's function, so that a name is defined in few files and
 * used in a few more. `parseConfig<i % 200>` is defined in 50 files.
 */
export function symbolSource(i: number): string {
  const other = (i * 7919 + 13) % SYMBOL_FILES;
  return [
    `import { helper${other} } from "../mod${other % 100}/file${other}.ts";`,
    "",
    `/** Options of Service${i}. */`,
    `export interface Options${i} {`,
    "  size: number;",
    "  name: string;",
    "}",
    "",
    `export class Service${i} {`,
    `  constructor(private readonly options: Options${i}) {}`,
    "",
    "  start(): number {",
    `    return helper${other}(this.options.size);`,
    "  }",
    "",
    "  stop(): void {",
    `    console.log("stopping", this.options.name);`,
    "  }",
    "}",
    "",
    `export function helper${i}(n: number): number {`,
    `  return n * ${i} + ${other};`,
    "}",
    "",
    `export function parseConfig${i % 200}(text: string): Options${i} {`,
    `  const [size, name] = text.split(":");`,
    "  return { size: Number(size), name };",
    "}",
    "",
    `export const defaults${i} = (): Options${i} => ({ size: ${i}, name: "f${i}" });`,
    "",
  ].join("\n");
}

/** Make `symbols/` unless it is there; returns its path. */
export async function prepareSymbols(base: string): Promise<string> {
  const dir = `${base}/symbols`;
  const marker = `${base}/.symbols.done`;
  if ((await readText(marker)) === SYMBOLS_MARK) {
    console.log(`symbols: ${dir} is ready (${marker})`);
    return dir;
  }
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  for (let d = 0; d < 100; d++) {
    await Deno.mkdir(`${dir}/mod${d}`, { recursive: true });
  }
  for (let i = 0; i < SYMBOL_FILES; i++) {
    await Deno.writeTextFile(
      `${dir}/mod${i % 100}/file${i}.ts`,
      symbolSource(i),
    );
  }
  await Deno.writeTextFile(marker, SYMBOLS_MARK);
  console.log(`symbols: ${dir}: ${SYMBOL_FILES} files`);
  return dir;
}

/** The prepared trees, by name, made when missing. */
export async function prepareTrees(
  names: readonly string[] = ["linux", "npm", "symbols"],
): Promise<Record<string, string>> {
  const base = treesDir();
  await Deno.mkdir(base, { recursive: true });
  const trees: Record<string, string> = {};
  if (names.includes("linux")) trees.linux = await prepareKernel(base);
  if (names.includes("npm")) trees.npm = await prepareNpm(base);
  if (names.includes("symbols")) trees.symbols = await prepareSymbols(base);
  return trees;
}

if (import.meta.main) {
  try {
    const trees = await prepareTrees(
      Deno.args.length > 0 ? Deno.args : undefined,
    );
    for (const [name, path] of Object.entries(trees)) {
      console.log(`${name}\t${path}`);
    }
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    Deno.exit(1);
  }
}
