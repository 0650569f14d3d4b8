/**
 * What the trigram index holds, and the walk that fills it: the shared
 * part of `text_index.ts` (which keeps it on the main thread),
 * `index_worker.ts` (which builds it off the main thread) and
 * `index_cache.ts` (which keeps it on disk).
 *
 * Each file gets an id (append-only, never reused): its path as the walk
 * reached it, its real path, what a search makes of it (text of so many
 * characters, or skipped), and its identity when it was read (device,
 * inode, size, modification and change times), so that a later walk can
 * tell an unchanged file from a changed one without reading it.
 *
 * @module
 */

import { isProbablyText, SNIFF_BYTES } from "./content.ts";
import { LocalTexts, type TextSink } from "./postings_pipe.ts";
import { partsBuffers, Postings, type PostingsParts } from "./trigrams.ts";
import {
  type WalkEntry,
  type WalkSkips,
  walkSkips,
  type Workspace,
  WorkspaceError,
} from "./workspace.ts";

/** What a search makes of an indexed file. */
export const FILE_TEXT = 0;
/** A file a search skips (binary, over the read cap, or unreadable). */
export const FILE_SKIPPED = 1;

/** Numbers of a file's identity stored per id (see the module's note). */
export const IDENTITY_FIELDS = 5;

/** A kind of entry a walk left out, and where. */
export interface SkipEvent {
  /** Position (in walk order) of the first file the walk yielded after it. */
  file: number;
  /** Which counter of {@linkcode WalkSkips} it added to. */
  kind: keyof WalkSkips;
  /** By how much. */
  count: number;
}

/** The kinds of {@linkcode SkipEvent}, in a fixed order. */
export const SKIP_KINDS = [
  "unreadable",
  "vanished",
  "badNames",
  "tooDeep",
] as const;

/** The index's content: files by id, their walk order, and postings. */
export interface IndexData {
  /** Trigram postings by id. */
  postings: Postings;
  /** Each id's root-relative path, as the walk reached it. */
  relative: string[];
  /** Each id's real absolute path (for comparing, never opened). */
  absolute: string[];
  /** Each id's {@linkcode FILE_TEXT} or {@linkcode FILE_SKIPPED}. */
  kinds: number[];
  /** Each text id's length in UTF-16 code units, as decoded. */
  lengths: number[];
  /**
   * {@linkcode IDENTITY_FIELDS} numbers per id: device, inode, size,
   * mtime and ctime (ms) of the file read; NaN where unknown (the file is
   * then read again by a walk that checks identities).
   */
  identity: number[];
  /** The ids of the files, in the walk's order. */
  order: Int32Array;
  /** What the walk left out, in order. */
  skipEvents: SkipEvent[];
  /** The real directories the walk went through, the root first. */
  dirs: string[];
}

/** {@linkcode IndexData} as plain values, for `postMessage` (transfer). */
export interface IndexDataParts {
  /** The postings' buffers. */
  postings: PostingsParts;
  /** See {@linkcode IndexData}. */
  relative: string[];
  /** See {@linkcode IndexData}. */
  absolute: string[];
  /** See {@linkcode IndexData}. */
  kinds: number[];
  /** See {@linkcode IndexData}. */
  lengths: number[];
  /** See {@linkcode IndexData}. */
  identity: number[];
  /** See {@linkcode IndexData}. */
  order: Int32Array;
  /** See {@linkcode IndexData}. */
  skipEvents: SkipEvent[];
  /** See {@linkcode IndexData}. */
  dirs: string[];
}

/** `data` as parts, and the buffers to transfer with them. */
export function dataParts(
  data: IndexData,
): { parts: IndexDataParts; transfer: ArrayBuffer[] } {
  const postings = data.postings.parts();
  return { parts: { ...data, postings }, transfer: partsBuffers(postings) };
}

/**
 * The data of `parts`, as {@linkcode dataParts} made them (on another
 * thread of this process: not checked again).
 */
export function dataFromParts(parts: IndexDataParts): IndexData {
  return { ...parts, postings: new Postings(parts.postings) };
}

/** A file's identity from its metadata (see {@linkcode IndexData}). */
export function identityOf(info: Deno.FileInfo): number[] {
  return [
    info.dev,
    info.ino ?? NaN,
    info.size,
    info.mtime?.getTime() ?? NaN,
    info.ctime?.getTime() ?? NaN,
  ];
}

/** Empty data: no files, empty postings. */
export function emptyData(): IndexData {
  return {
    postings: new Postings(),
    relative: [],
    absolute: [],
    kinds: [],
    lengths: [],
    identity: [],
    order: new Int32Array(0),
    skipEvents: [],
    dirs: [],
  };
}

// Largest file read into the reused buffer.
const SCRATCH_BYTES = 1 << 20;

/** A read buffer for {@linkcode addFile}, for files up to `maxReadBytes`. */
export function scratchFor(maxReadBytes: number): Uint8Array {
  return new Uint8Array(Math.min(maxReadBytes, SCRATCH_BYTES) + 1);
}

/**
 * Read one file (a walk entry, or a root-relative path) through the
 * workspace's confined reads and index it under a new id (returned),
 * with `relative` as its path; its text goes to `sink` (by default the
 * postings of `data`, on this thread).
 */
export async function addFile(
  ws: Workspace,
  data: IndexData,
  target: WalkEntry | string,
  relative: string,
  maxReadBytes: number,
  scratch: Uint8Array,
  sink: TextSink = new LocalTexts(data.postings),
): Promise<number> {
  let id: number;
  let kind = FILE_SKIPPED;
  let length = 0;
  let absolute = typeof target === "string" ? "" : target.absolute;
  let identity: number[] | undefined;
  try {
    const read = await ws.readFile(target, {
      maxBytes: maxReadBytes,
      skipLarger: true,
      scratch,
    });
    absolute = read.absolute;
    identity = identityOf(read.info);
    const bytes = read.bytes;
    if (read.truncated || !isProbablyText(bytes.subarray(0, SNIFF_BYTES))) {
      id = await sink.addNothing();
    } else {
      kind = FILE_TEXT;
      ({ id, length } = await sink.addText(bytes));
    }
  } catch (error) {
    if (!(error instanceof WorkspaceError)) throw error;
    id = await sink.addNothing();
  }
  data.relative[id] = relative;
  data.absolute[id] = absolute;
  data.kinds[id] = kind;
  data.lengths[id] = length;
  const at = id * IDENTITY_FIELDS;
  for (let i = 0; i < IDENTITY_FIELDS; i++) {
    data.identity[at + i] = identity?.[i] ?? NaN;
  }
  return id;
}

/** The ancestors of a relative path, nearest first, without "". */
function ancestors(path: string): string[] {
  const out: string[] = [];
  for (
    let at = path.lastIndexOf("/");
    at > 0;
    at = path.lastIndexOf("/", at - 1)
  ) {
    out.push(path.slice(0, at));
  }
  return out;
}

/** Options of {@linkcode scanTree}. */
export interface ScanTreeOptions {
  /** Files larger than this are skipped, as the search skips them. */
  maxReadBytes: number;
  /**
   * Paths reported as changed (root-relative, real): a file at or below
   * one is read again.
   */
  changed?: Set<string>;
  /** Read every file again (ids are not kept). */
  rereadAll?: boolean;
  /**
   * Keep a file's id only when its identity now (a `stat` of its real
   * path) is the one stored: for data from a cache, whose files may have
   * changed while nothing watched them.
   */
  checkIdentity?: boolean;
  /** Called between files: a turn of the event loop when it resolves. */
  pace?: () => Promise<void> | undefined;
  /** Stops the scan (it then answers undefined). */
  stopped?: () => boolean;
  /** Counts of files kept and read, added to. */
  counts?: { kept: number; read: number };
  /**
   * Where the texts of a build from nothing go instead of postings on
   * this thread (see `postings_pipe.ts`); undefined from it: here.
   */
  texts?: () => Promise<TextSink | undefined>;
}

/** Whether the file's identity now is the one stored for `id`. */
function sameIdentity(data: IndexData, id: number, absolute: string): boolean {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(absolute);
  } catch {
    return false;
  }
  if (!info.isFile) return false;
  const now = identityOf(info);
  const at = id * IDENTITY_FIELDS;
  for (let i = 0; i < IDENTITY_FIELDS; i++) {
    // NaN (unknown) never equals anything.
    if (data.identity[at + i] !== now[i]) return false;
  }
  return true;
}

/**
 * Walk the tree and make the next data from `data`: a file already
 * indexed under the same path, reached the same way, and untouched by
 * `options.changed` (and, with `checkIdentity`, of the same identity)
 * keeps its id; others are read and indexed. Too many dead ids start the
 * postings over. Answers undefined when stopped.
 */
export async function scanTree(
  ws: Workspace,
  data: IndexData | undefined,
  options: ScanTreeOptions,
): Promise<IndexData | undefined> {
  const previous = new Map<string, number>();
  let next: IndexData;
  const live = data?.order.length ?? 0;
  let sink: TextSink | undefined;
  if (
    data === undefined || data.postings.nextId > 2 * live + 1024
  ) {
    next = emptyData();
    sink = await options.texts?.();
  } else {
    next = { ...data, skipEvents: [], dirs: [] };
    if (!options.rereadAll) {
      for (const id of data.order) previous.set(data.relative[id], id);
    }
  }
  const prefix = ws.root === "/" ? "/" : `${ws.root}/`;
  const changed = options.changed ?? new Set<string>();
  const touched = (relative: string) =>
    changed.size > 0 &&
    (changed.has(relative) || ancestors(relative).some((a) => changed.has(a)));
  const order: number[] = [];
  const skipEvents = next.skipEvents;
  const dirs = next.dirs;
  dirs.push(ws.root);
  const skips = walkSkips();
  const seen = walkSkips();
  // Record the skips the walk counted since last time, at the place in
  // the file order where they happened.
  const noteSkips = () => {
    for (const kind of SKIP_KINDS) {
      if (skips[kind] === seen[kind]) continue;
      skipEvents.push({
        file: order.length,
        kind,
        count: skips[kind] - seen[kind],
      });
      seen[kind] = skips[kind];
    }
  };
  const scratch = scratchFor(options.maxReadBytes);
  // Where most files are read, their metadata comes with the listing
  // (opens); files checked by identity are mostly not read.
  const opens = !(options.checkIdentity && data !== undefined);
  for await (const entry of ws.walk({ skips, opens })) {
    if (options.stopped?.()) return undefined;
    const paced = options.pace?.();
    if (paced !== undefined) await paced;
    noteSkips();
    if (entry.isDirectory && entry.absolute === prefix + entry.relative) {
      dirs.push(entry.absolute);
    }
    if (!entry.isFile) continue;
    const old = previous.get(entry.relative);
    const real = entry.absolute.startsWith(prefix)
      ? entry.absolute.slice(prefix.length)
      : entry.absolute;
    if (
      old !== undefined && next.absolute[old] === entry.absolute &&
      !touched(entry.relative) && !touched(real) &&
      (!options.checkIdentity || sameIdentity(next, old, entry.absolute))
    ) {
      order.push(old);
      if (options.counts) options.counts.kept++;
      continue;
    }
    if (options.counts) options.counts.read++;
    order.push(
      await addFile(
        ws,
        next,
        entry,
        entry.relative,
        options.maxReadBytes,
        scratch,
        sink,
      ),
    );
  }
  noteSkips();
  next.order = Int32Array.from(order);
  if (sink !== undefined) {
    const finished = await sink.finish();
    next.postings = finished.postings;
    for (const [id, length] of finished.lengths) next.lengths[id] = length;
  }
  return next;
}

/**
 * The real directories of the tree (the root first), as a walk reaches
 * them: what to watch before the files are read.
 */
export async function treeDirs(
  ws: Workspace,
  pace?: () => Promise<void> | undefined,
): Promise<string[]> {
  const prefix = ws.root === "/" ? "/" : `${ws.root}/`;
  const dirs = [ws.root];
  for await (const entry of ws.walk()) {
    const paced = pace?.();
    if (paced !== undefined) await paced;
    if (entry.isDirectory && entry.absolute === prefix + entry.relative) {
      dirs.push(entry.absolute);
    }
  }
  return dirs;
}
