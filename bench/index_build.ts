/**
 * How long `--index` takes to be ready, and the memory it takes, on trees
 * of about 1k, 10k and 80k files (`trees.ts`' kernel tree, and two parts
 * of it hard-linked into `k1/` and `k10/`), for the server from source
 * against an earlier build (`--before DIR`, a checkout), with and without
 * `--index-cache` (a first run that saves, a restart that loads), and the
 * same server without `--index` for its memory at rest. Runs are
 * interleaved (round by round) and the load average is printed, since the
 * machine is shared.
 *
 * ```sh
 * deno run -A bench/index_build.ts [--rounds 2] [--before DIR] [--trees k1,k10,linux]
 * ```
 *
 * @module
 */

import { parseArgs } from "node:util";
import { serveFlags } from "../cli/invocation.ts";
import { DENO_RUN_FLAGS } from "../cli/run_command.ts";
import { prepareTrees, treesDir } from "./trees.ts";

const INIT =
  `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n`;
const SEARCH =
  `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_text","arguments":{"query":"no_such_text_anywhere"}}}\n`;

const MAIN = new URL("../main.ts", import.meta.url).pathname;

/** Parts of the kernel tree, hard-linked, for the smaller trees. */
const PARTS: Record<string, string[]> = {
  k1: ["arch/x86"],
  k10: ["drivers/net", "drivers/gpu"],
};

async function smallTree(name: string, linux: string): Promise<string> {
  const root = `${treesDir()}/${name}`;
  try {
    await Deno.stat(`${root}/.complete`);
    return root;
  } catch {
    // Made below.
  }
  await Deno.remove(root, { recursive: true }).catch(() => {});
  for (const part of PARTS[name]) {
    const parent = `${root}/${part.slice(0, part.lastIndexOf("/"))}`;
    await Deno.mkdir(parent, { recursive: true });
    const out = await new Deno.Command("cp", {
      args: ["-al", `${linux}/${part}`, parent],
    }).output();
    if (!out.success) throw new Error(`cp -al ${part} failed`);
  }
  await Deno.writeTextFile(`${root}/.complete`, "");
  return root;
}

function status(pid: number): { rss: number; peak: number } {
  const text = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = (key: string) =>
    Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? NaN);
  return { rss: kb("VmRSS") * 1024, peak: kb("VmHWM") * 1024 };
}

interface Sample {
  readyMs: number;
  answerMs: number;
  rss: number;
  peak: number;
  line: string;
}

/** Start a server, wait for its index (or its first answer), measure. */
async function sample(
  main: string,
  args: string[],
  flags: string[],
): Promise<Sample> {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, main, ...args, "--log-level", "info"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(INIT));
  const decoder = new TextDecoder();
  let line = "";
  let readyMs = NaN;
  if (args.includes("--index") || args.includes("--index-cache")) {
    const stderr = child.stderr.getReader();
    let text = "";
    while (!text.includes("index ready:") && !text.includes("index stopped")) {
      const { value, done } = await stderr.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    readyMs = performance.now() - started;
    line = /index ready:[^\n]*/.exec(text)?.[0] ?? text.slice(-300);
    stderr.releaseLock();
  }
  const asked = performance.now();
  await writer.write(new TextEncoder().encode(SEARCH));
  const stdout = child.stdout.getReader();
  let out = "";
  while (!out.includes(`"id":1,`)) {
    const { value, done } = await stdout.read();
    if (done) break;
    out += decoder.decode(value, { stream: true });
  }
  const answerMs = performance.now() - asked;
  const { rss, peak } = status(child.pid);
  stdout.releaseLock();
  await writer.close();
  child.kill();
  await child.status;
  await child.stderr.cancel().catch(() => {});
  await child.stdout.cancel().catch(() => {});
  return { readyMs, answerMs, rss, peak, line };
}

function load(): string {
  return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(
    " ",
  );
}

const mib = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MiB`;
const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      rounds: { type: "string", default: "2" },
      before: { type: "string" },
      trees: { type: "string", default: "k1,k10,linux" },
    },
  });
  const { linux } = await prepareTrees(["linux"]);
  const roots: Record<string, string> = { linux };
  for (const name of values.trees.split(",")) {
    if (name in PARTS) roots[name] = await smallTree(name, linux);
  }
  const cacheBase = await Deno.makeTempDir({ prefix: "bench_index_cache_" });
  type Mode = { name: string; main: string; args: (root: string) => string[] };
  const modes: Mode[] = [
    { name: "no index", main: MAIN, args: (r) => ["--root", r] },
    ...(values.before === undefined ? [] : [{
      name: "before --index",
      main: `${values.before}/main.ts`,
      args: (r: string) => ["--root", r, "--index"],
    }]),
    { name: "--index", main: MAIN, args: (r) => ["--root", r, "--index"] },
    {
      name: "--index-cache, first",
      main: MAIN,
      args: (r) => ["--root", r, "--index-cache", `${cacheBase}/c`],
    },
    {
      name: "--index-cache, restart",
      main: MAIN,
      args: (r) => ["--root", r, "--index-cache", `${cacheBase}/c`],
    },
  ];
  const results = new Map<string, Sample[]>();
  try {
    for (let round = 0; round < Number(values.rounds); round++) {
      for (const name of values.trees.split(",")) {
        const root = roots[name];
        await Deno.remove(`${cacheBase}/c`, { recursive: true }).catch(
          () => {},
        );
        for (const mode of modes) {
          const args = mode.args(root);
          const flags = mode.main === MAIN
            ? serveFlags(args, Deno.cwd())
            : [...DENO_RUN_FLAGS];
          const before = load();
          const s = await sample(mode.main, args, flags);
          const key = `${name}\t${mode.name}`;
          results.set(key, [...(results.get(key) ?? []), s]);
          console.log(
            `round ${round + 1} ${name} ${mode.name}: ready ${
              sec(s.readyMs)
            }, first answer ${s.answerMs.toFixed(0)} ms, rss ${
              mib(s.rss)
            }, peak ${mib(s.peak)} (load ${before}) ${s.line}`,
          );
        }
      }
    }
  } finally {
    await Deno.remove(cacheBase, { recursive: true }).catch(() => {});
  }
  console.log("\n| tree | server | ready (median) | RSS at ready | peak RSS |");
  console.log("| --- | --- | --- | --- | --- |");
  for (const [key, samples] of results) {
    const median = (f: (s: Sample) => number) => {
      const v = samples.map(f).sort((a, b) => a - b);
      return v[Math.floor((v.length - 1) / 2)];
    };
    const [tree, mode] = key.split("\t");
    console.log(
      `| ${tree} | ${mode} | ${
        mode === "no index" ? "—" : sec(median((s) => s.readyMs))
      } | ${mib(median((s) => s.rss))} | ${mib(median((s) => s.peak))} |`,
    );
  }
}
