/**
 * Small measuring helpers: peak memory of a process, medians, formatting.
 *
 * @module
 */

/** Memory of a process from `/proc/<pid>/status`, in bytes. */
export interface MemoryStatus {
  /** Resident set size now (`VmRSS`). */
  rss: number;
  /** Peak resident set size so far (`VmHWM`, the high-water mark). */
  peak: number;
}

/**
 * The `VmRSS` and `VmHWM` lines of a `/proc/<pid>/status` text, in bytes,
 * or undefined when either is missing (a process that has exited).
 */
export function parseStatus(status: string): MemoryStatus | undefined {
  const rss = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  const peak = /^VmHWM:\s+(\d+)\s+kB$/m.exec(status);
  if (!rss || !peak) return undefined;
  return { rss: Number(rss[1]) * 1024, peak: Number(peak[1]) * 1024 };
}

/**
 * The memory of process `pid` (see {@linkcode MemoryStatus}), or undefined
 * where `/proc` is not available or the process is gone.
 *
 * Deno lets a program read `/proc` only with `--allow-all`, so without it
 * the file is read by `cat` (the bench may run programs).
 */
export async function memoryStatus(
  pid: number,
): Promise<MemoryStatus | undefined> {
  const status = await readProc(`/proc/${pid}/status`);
  return status === undefined ? undefined : parseStatus(status);
}

/**
 * A file of `/proc` as text, or undefined where it cannot be read. Deno
 * grants a read of another process's `/proc` entries only with all
 * permissions, so without them the file is read through `cat`.
 */
async function readProc(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch {
    try {
      const out = await new Deno.Command("cat", {
        args: [path],
        stdout: "piped",
        stderr: "null",
      }).output();
      return out.success ? new TextDecoder().decode(out.stdout) : undefined;
    } catch {
      return undefined;
    }
  }
}

/**
 * Peak resident set size of process `pid` in bytes (`VmHWM`), or undefined
 * where `/proc` is not available.
 *
 * Read just before the bench closes the server's stdin, after the last
 * response arrived: the high-water mark then covers the whole workload, and
 * it is the server's own process (no wrapper such as `/usr/bin/time` to
 * spawn, and the same reading works for Deno and Node alike).
 */
export async function peakRss(pid: number): Promise<number | undefined> {
  return (await memoryStatus(pid))?.peak;
}

/**
 * CPU time (user + system, ms) that process `pid` has used so far, from
 * `/proc/PID/stat`; undefined where that cannot be read (not Linux, gone).
 * Its resolution is the kernel's clock tick (10 ms).
 */
export async function cpuTimeMs(pid: number): Promise<number | undefined> {
  const stat = await readProc(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // Fields after the command name (which may hold spaces), from field 3.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? ticks * 10 : undefined; // USER_HZ = 100
}

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? sorted[mid]
    : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Milliseconds, readable: `12.3 ms`, `1.23 s`. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return "-";
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`;
}

/** Bytes as MiB: `42.1 MiB`. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return "-";
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** Shuffle a copy of `items` (Fisher–Yates), to interleave runs fairly. */
export function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}
