/**
 * Checks that the project's imports point one way: the protocol library
 * (`mcp/`, `handlers/`) stands alone, the workspace knows nothing of MCP,
 * the symbol layer (`symbols/`) reaches no further than the workspace,
 * the adapters (`tools/`, `resources/`, `prompts/`) know nothing of the
 * command line or of the app's wiring (`app/`), and no module imports
 * itself through others. The graph
 * starts at `main.ts`, `mod.ts` and the unit tests of the layers that
 * must stand alone (see {@linkcode layerEntries}), so a test is held to its
 * folder's rules too. Run by `deno task layers` (and by
 * `scripts/layers_test.ts` in `deno task ci`); prints each problem and
 * exits 1 when there is one.
 *
 * @module
 */

/** Project-relative module path → the project modules it imports. */
export type ImportGraph = Map<string, Set<string>>;

/** The folder a project path sits in, or `(top)` for a top-level file. */
function layerOf(path: string): string {
  const slash = path.indexOf("/");
  return slash < 0 ? "(top)" : path.slice(0, slash);
}

/** What each layer may not import, beside the general rule of no cycle. */
const FORBIDDEN: Readonly<Record<string, (to: string) => boolean>> = {
  mcp: (to) => to !== "mcp",
  handlers: (to) => to !== "handlers" && to !== "mcp",
  workspace: (to) =>
    ["mcp", "handlers", "tools", "resources", "prompts", "cli", "app"]
      .includes(to),
  // The symbol layer parses text it is given; the workspace (which reads
  // files) is as far as it may reach, never MCP or the adapters on top.
  symbols: (to) => to !== "symbols" && to !== "workspace",
  tools: (to) => to === "cli" || to === "app",
  resources: (to) => to === "cli" || to === "app",
  prompts: (to) => to === "cli" || to === "app",
  exports: (to) => !["exports", "mcp", "handlers"].includes(to),
};

/** Every rule `graph` breaks, one sentence each; empty when it keeps them. */
export function layerProblems(graph: ImportGraph): string[] {
  const problems: string[] = [];
  for (const [from, targets] of graph) {
    const forbidden = FORBIDDEN[layerOf(from)];
    if (forbidden === undefined) continue;
    for (const to of targets) {
      if (forbidden(layerOf(to))) {
        problems.push(
          `${from} imports ${to}: ${layerOf(from)}/ may not depend on ${
            layerOf(to)
          }/`,
        );
      }
    }
  }
  for (const cycle of cycles(graph)) {
    problems.push(`import cycle: ${cycle.join(" -> ")} -> ${cycle[0]}`);
  }
  return problems;
}

/**
 * The strongly connected groups of more than one module (or a module that
 * imports itself), each as a list of its members, found with Tarjan's
 * algorithm (iteratively, so a deep graph cannot overflow the stack).
 */
export function cycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; targets: Iterator<string> }[] = [];
    const enter = (node: string) => {
      index.set(node, next);
      low.set(node, next++);
      stack.push(node);
      onStack.add(node);
      work.push({ node, targets: (graph.get(node) ?? new Set()).values() });
    };
    enter(start);
    while (work.length > 0) {
      const top = work[work.length - 1];
      const step = top.targets.next();
      if (!step.done) {
        const to = step.value;
        if (!index.has(to)) enter(to);
        else if (onStack.has(to)) {
          low.set(top.node, Math.min(low.get(top.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.node)!));
      }
      if (low.get(top.node) === index.get(top.node)) {
        const group: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          group.push(member);
        } while (member !== top.node);
        const selfLoop = graph.get(top.node)?.has(top.node) ?? false;
        if (group.length > 1 || selfLoop) found.push(group.reverse());
      }
    }
  }
  return found;
}

/**
 * Folders whose unit tests are entries of the graph: a test there may
 * import only what its folder may. Tests of `tools/`, `resources/` and
 * `cli/` are not: they exercise the workspace server as it is wired, and
 * may use the shared fixtures in `tests/`.
 */
export const STANDALONE_TEST_FOLDERS: readonly string[] = [
  "mcp",
  "handlers",
  "workspace",
  "symbols",
];

/**
 * The entries of the graph under `root`, project-relative and sorted:
 * `main.ts` and `mod.ts` where they exist, the other modules `deno.json`
 * exports (the library's subpaths), and every `*_test.ts` under
 * {@linkcode STANDALONE_TEST_FOLDERS}, subfolders included.
 */
export async function layerEntries(root: string): Promise<string[]> {
  const base = root.endsWith("/") ? root : root + "/";
  const found: string[] = [];
  for (const top of ["main.ts", "mod.ts"]) {
    try {
      if ((await Deno.stat(base + top)).isFile) found.push(top);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  for (const path of await exportedModules(base)) {
    if (!found.includes(path)) found.push(path);
  }
  const tests: string[] = [];
  const walk = async (folder: string): Promise<void> => {
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(base + folder));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      throw error;
    }
    for (const entry of entries) {
      const path = `${folder}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (entry.isFile && entry.name.endsWith("_test.ts")) {
        tests.push(path);
      }
    }
  };
  for (const folder of STANDALONE_TEST_FOLDERS) await walk(folder);
  return [...found, ...tests.sort()];
}

/** The modules `deno.json`'s `exports` names under `base`, sorted. */
async function exportedModules(base: string): Promise<string[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(base + "deno.json");
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  const exports: unknown = JSON.parse(text).exports;
  const paths = typeof exports === "string"
    ? [exports]
    : Object.values(exports ?? {}) as string[];
  return paths.map((path) => path.replace(/^\.\//, "")).sort();
}

interface DenoInfo {
  modules?: {
    specifier: string;
    dependencies?: {
      code?: { specifier?: string };
      type?: { specifier?: string };
    }[];
  }[];
}

// `deno info` processes run at once while the graph is built.
const INFO_AT_ONCE = 4;

/**
 * The project's import graph as `deno info --json` sees it from
 * `entries`, static and dynamic imports alike, types included.
 */
export async function importGraph(
  root: string,
  entries: readonly string[],
): Promise<ImportGraph> {
  const base = new URL(`file://${root.endsWith("/") ? root : root + "/"}`);
  const local = (specifier: string | undefined) =>
    specifier?.startsWith(base.href)
      ? decodeURIComponent(specifier.slice(base.href.length))
      : undefined;
  const info = async (entry: string): Promise<DenoInfo> => {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", entry],
      cwd: root,
      stdout: "piped",
      stderr: "inherit",
    }).output();
    if (!output.success) throw new Error(`deno info ${entry} failed`);
    return JSON.parse(new TextDecoder().decode(output.stdout));
  };
  // A few at a time (one `deno info` per entry); merged in entry order, so
  // the graph, and the problems found in it, do not depend on timing.
  const infos: DenoInfo[] = [];
  for (let i = 0; i < entries.length; i += INFO_AT_ONCE) {
    infos.push(
      ...await Promise.all(entries.slice(i, i + INFO_AT_ONCE).map(info)),
    );
  }
  const graph: ImportGraph = new Map();
  for (const info of infos) {
    for (const module of info.modules ?? []) {
      const from = local(module.specifier);
      if (from === undefined) continue;
      const targets = graph.get(from) ?? new Set<string>();
      graph.set(from, targets);
      for (const dependency of module.dependencies ?? []) {
        for (const to of [dependency.code, dependency.type]) {
          const path = local(to?.specifier);
          if (path !== undefined) targets.add(path);
        }
      }
    }
  }
  return graph;
}

if (import.meta.main) {
  const root = Deno.cwd();
  const entries = await layerEntries(root);
  const graph = await importGraph(root, entries);
  const problems = layerProblems(graph);
  for (const problem of problems) console.error(`layers: ${problem}`);
  const imports = [...graph.values()].reduce((n, s) => n + s.size, 0);
  console.error(
    `layers: ${entries.length} entries, ${graph.size} modules, ${imports} imports, ${problems.length} problems`,
  );
  Deno.exit(problems.length === 0 ? 0 : 1);
}
