/**
 * The trigram index on disk (`--index-cache DIR`), so that a restart does
 * not read the whole tree again.
 *
 * One file per indexed tree, `index-v1-<hash>.bin` (the hash of the root,
 * whether ignored files are included and the read cap), all numbers
 * little-endian:
 *
 * | bytes            | what                                                  |
 * | ---------------- | ----------------------------------------------------- |
 * | 8                | magic `SHIPIDX\n`                                     |
 * | 4                | format version ({@linkcode CACHE_VERSION})            |
 * | 4                | header length H (at most 64 KiB)                      |
 * | H, padded to 8   | header: JSON (root, options, counts, skip events)     |
 * | 20 × 129³        | postings tables: head, state (int32)                  |
 * | pages × 4 MiB    | postings pages (the last one written up to its fill)  |
 * | ids, padded      | kinds (uint8)                                         |
 * | 4 × ids          | lengths (uint32)                                      |
 * | 40 × ids         | identities (float64: dev, ino, size, mtime, ctime)    |
 * | 4 × files        | walk order (int32 ids)                                |
 * | 8 × ids          | byte lengths of each id's relative and real paths     |
 * | 4 × dirs         | byte lengths of the watched directories' paths        |
 * | strings, padded  | those paths, UTF-8, one after another                 |
 * | 8                | checksum of everything before it                      |
 *
 * Loading trusts nothing: the file's size must be exactly what its header
 * announces, every count is bounded before anything is allocated, every
 * section is checked (kinds, lengths, ids in range, paths valid UTF-8 and
 * relative, the postings' block chains inside their pages, no loops), and
 * the checksum must match. Anything else throws {@linkcode CacheError}: the
 * caller then builds from scratch. Whatever a cache says, the index only
 * proposes which files a search reads; every byte a client gets comes
 * from the workspace's confined reads, and a walk checks every file's
 * identity against the cache before its entry is used.
 *
 * Saving writes a new file beside the old one (created exclusively, never
 * through a link) and renames it over, so a reader sees the old file or
 * the new one. Files changed in the last seconds before saving are stored
 * with an unknown identity ("racy", as Git calls them: a change within
 * the file system's time granularity would not show), so a load reads
 * them again.
 *
 * @module
 */

import {
  FILE_SKIPPED,
  FILE_TEXT,
  IDENTITY_FIELDS,
  type IndexData,
  SKIP_KINDS,
  type SkipEvent,
} from "./index_data.ts";
import {
  Postings,
  POSTINGS_PAGE_BYTES,
  type PostingsParts,
  TRIGRAM_COUNT,
} from "./trigrams.ts";

/** The cache format's version: a file of another is rebuilt. */
export const CACHE_VERSION = 1;

const MAGIC = new TextEncoder().encode("SHIPIDX\n");
const MAX_HEADER = 64 * 1024;
/** Most ids (files ever indexed) a cache may hold. */
const MAX_IDS = 1 << 24;
/** Most postings pages (4 MiB each) a cache may hold: 8 GiB. */
const MAX_PAGES = 2048;
/** Most directories, and skip events, a cache may hold. */
const MAX_DIRS = 1 << 22;
const MAX_SKIP_EVENTS = 1 << 16;
/** Most bytes of one path. */
const MAX_PATH_BYTES = 64 * 1024;
/** Files changed this recently before a save are stored as unknown (ms). */
export const RACY_MS = 3000;

/** A cache file that cannot be used (missing, corrupt, of another tree). */
export class CacheError extends Error {}

/** What a cache is for: a cache of another tree or options is not used. */
export interface CacheKey {
  /** Real absolute path of the root. */
  root: string;
  /** Whether ignored files are indexed. */
  includeIgnored: boolean;
  /** The read cap files were indexed under. */
  maxReadBytes: number;
}

interface Header {
  root: string;
  includeIgnored: boolean;
  maxReadBytes: number;
  ids: number;
  files: number;
  pages: number;
  used: number;
  postings: number;
  dirs: number;
  stringBytes: number;
  skipEvents: [number, number, number][];
}

/** A 64-bit hash (two 32-bit lanes) of 32-bit words, fed in pieces. */
class Checksum {
  #a = 0x811c9dc5;
  #b = 0x2545f491;

  update(words: Uint32Array): void {
    let a = this.#a;
    let b = this.#b;
    for (let i = 0; i < words.length; i++) {
      const w = words[i];
      a = Math.imul(a ^ w, 0x01000193);
      b = Math.imul(b + w + (b >>> 13), 0x9e3779b1);
    }
    this.#a = a >>> 0;
    this.#b = b >>> 0;
  }

  digest(): Uint32Array {
    return Uint32Array.of(this.#a, Math.imul(this.#b ^ this.#a, 0x85ebca77));
  }
}

function pad8(n: number): number {
  return (n + 7) & ~7;
}

/** The cache file for `key` in `dir`. */
export function cacheFile(dir: string, key: CacheKey): string {
  const sum = new Checksum();
  const text = new TextEncoder().encode(
    JSON.stringify([key.root, key.includeIgnored, key.maxReadBytes]),
  );
  const words = new Uint32Array(pad8(text.length) / 4);
  new Uint8Array(words.buffer).set(text);
  sum.update(words);
  const [a, b] = sum.digest();
  const hex = (n: number) => n.toString(16).padStart(8, "0");
  const base = dir.endsWith("/") ? dir : `${dir}/`;
  return `${base}index-v${CACHE_VERSION}-${hex(a)}${hex(b)}.bin`;
}

/** Bytes of `view`, as the file holds them (padded to 8). */
function bytesOf(view: ArrayBufferView, length = view.byteLength) {
  return new Uint8Array(view.buffer, view.byteOffset, length);
}

function isCount(value: unknown, max: number): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) &&
    value >= 0 && value <= max;
}

function readHeader(bytes: Uint8Array, key: CacheKey): Header {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new CacheError("its header is not JSON");
  }
  const h = value as Partial<Header> | null;
  if (typeof h !== "object" || h === null) {
    throw new CacheError("its header is not an object");
  }
  if (
    h.root !== key.root || h.includeIgnored !== key.includeIgnored ||
    h.maxReadBytes !== key.maxReadBytes
  ) {
    throw new CacheError("it is of another tree or other options");
  }
  if (
    !isCount(h.ids, MAX_IDS) || !isCount(h.files, h.ids) ||
    !isCount(h.pages, MAX_PAGES) || !isCount(h.used, POSTINGS_PAGE_BYTES) ||
    !isCount(h.postings, Number.MAX_SAFE_INTEGER) ||
    !isCount(h.dirs, MAX_DIRS) ||
    !isCount(h.stringBytes, (2 * h.ids + h.dirs) * MAX_PATH_BYTES) ||
    !Array.isArray(h.skipEvents) || h.skipEvents.length > MAX_SKIP_EVENTS
  ) {
    throw new CacheError("its header has a bad count");
  }
  for (const event of h.skipEvents) {
    if (
      !Array.isArray(event) || event.length !== 3 ||
      !isCount(event[0], h.files) ||
      !isCount(event[1], SKIP_KINDS.length - 1) ||
      !isCount(event[2], Number.MAX_SAFE_INTEGER)
    ) {
      throw new CacheError("its header has a bad skip event");
    }
  }
  return h as Header;
}

/** The sections after the header, in order, for `h`: their byte lengths. */
function sectionBytes(h: Header): number[] {
  const lastPage = h.pages === 0 ? 0 : pad8(h.used);
  return [
    20 * TRIGRAM_COUNT,
    Math.max(0, h.pages - 1) * POSTINGS_PAGE_BYTES + lastPage,
    pad8(h.ids),
    pad8(4 * h.ids),
    8 * IDENTITY_FIELDS * h.ids,
    pad8(4 * h.files),
    8 * h.ids,
    pad8(4 * h.dirs),
    pad8(h.stringBytes),
  ];
}

/** Read exactly `into.length` bytes at the file's position. */
function readFully(file: Deno.FsFile, into: Uint8Array): void {
  let at = 0;
  while (at < into.length) {
    const n = file.readSync(into.subarray(at));
    if (n === null || n === 0) throw new CacheError("it is shorter than said");
    at += n;
  }
}

function writeFully(file: Deno.FsFile, bytes: Uint8Array): void {
  let at = 0;
  while (at < bytes.length) at += file.writeSync(bytes.subarray(at));
}

function words(bytes: Uint8Array): Uint32Array {
  return new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2);
}

/** Whether `path` is a plain root-relative path (no `.`, `..` or ""). */
function isRelativePath(path: string): boolean {
  if (path === "" || path.includes("\0")) return false;
  for (const part of path.split("/")) {
    if (part === "" || part === "." || part === "..") return false;
  }
  return true;
}

/**
 * Load the cache for `key` from `file` (see the module's note); throws
 * {@linkcode CacheError} when it cannot be used, `Deno.errors.NotFound`
 * when there is none.
 */
export function loadCache(file: string, key: CacheKey): IndexData {
  // Only a regular file is opened (a FIFO would block the open).
  if (!Deno.lstatSync(file).isFile) {
    throw new CacheError("it is not a regular file");
  }
  using handle = Deno.openSync(file, { read: true });
  const size = handle.statSync().size;
  const fixed = new Uint8Array(16);
  if (size < 16) throw new CacheError("it is too short");
  readFully(handle, fixed);
  const view = new DataView(fixed.buffer);
  for (let i = 0; i < MAGIC.length; i++) {
    if (fixed[i] !== MAGIC[i]) throw new CacheError("it is no index cache");
  }
  if (view.getUint32(8, true) !== CACHE_VERSION) {
    throw new CacheError("it is of another format version");
  }
  const headerLength = view.getUint32(12, true);
  if (headerLength > MAX_HEADER || 16 + pad8(headerLength) > size) {
    throw new CacheError("its header is too long");
  }
  const headerBytes = new Uint8Array(pad8(headerLength));
  readFully(handle, headerBytes);
  const sum = new Checksum();
  sum.update(words(fixed));
  sum.update(words(headerBytes));
  const h = readHeader(headerBytes.subarray(0, headerLength), key);
  const sections = sectionBytes(h);
  const total = 16 + headerBytes.length +
    sections.reduce((a, b) => a + b, 0) + 8;
  if (total !== size) throw new CacheError("its size is not what it says");
  const section = (bytes: Uint8Array) => {
    readFully(handle, bytes);
    sum.update(words(bytes));
    return bytes;
  };
  const tables = [TRIGRAM_COUNT, 4 * TRIGRAM_COUNT].map(
    (length) => new Int32Array(length),
  );
  for (const table of tables) section(bytesOf(table));
  const pages: ArrayBuffer[] = [];
  for (let p = 0; p < h.pages; p++) {
    const page = new Uint8Array(POSTINGS_PAGE_BYTES);
    section(page.subarray(0, p === h.pages - 1 ? pad8(h.used) : page.length));
    pages.push(page.buffer);
  }
  const kinds = section(new Uint8Array(pad8(h.ids)));
  const lengths = new Uint32Array(pad8(4 * h.ids) / 4);
  section(bytesOf(lengths));
  const identity = new Float64Array(IDENTITY_FIELDS * h.ids);
  section(bytesOf(identity));
  const order = new Int32Array(pad8(4 * h.files) / 4);
  section(bytesOf(order));
  const pathLengths = new Uint32Array(2 * h.ids);
  section(bytesOf(pathLengths));
  const dirLengths = new Uint32Array(pad8(4 * h.dirs) / 4);
  section(bytesOf(dirLengths));
  const strings = section(new Uint8Array(pad8(h.stringBytes)));
  const stored = new Uint8Array(8);
  readFully(handle, stored);
  const [a, b] = sum.digest();
  const check = new DataView(stored.buffer);
  if (check.getUint32(0, true) !== a || check.getUint32(4, true) !== b) {
    throw new CacheError("its checksum does not match");
  }
  // The sections, checked.
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let at = 0;
  const next = (length: number) => {
    if (length > MAX_PATH_BYTES || at + length > h.stringBytes) {
      throw new CacheError("a path runs past its section");
    }
    let text: string;
    try {
      text = decoder.decode(strings.subarray(at, at + length));
    } catch {
      throw new CacheError("a path is not UTF-8");
    }
    at += length;
    return text;
  };
  const relative: string[] = [];
  const absolute: string[] = [];
  const kindList: number[] = [];
  const lengthList: number[] = [];
  for (let id = 0; id < h.ids; id++) {
    relative.push(next(pathLengths[2 * id]));
    absolute.push(next(pathLengths[2 * id + 1]));
    const kind = kinds[id];
    if (kind !== FILE_TEXT && kind !== FILE_SKIPPED) {
      throw new CacheError("a file of an unknown kind");
    }
    kindList.push(kind);
    lengthList.push(lengths[id]);
  }
  const dirs: string[] = [];
  for (let d = 0; d < h.dirs; d++) dirs.push(next(dirLengths[d]));
  if (at !== h.stringBytes) throw new CacheError("paths left over");
  const live = order.subarray(0, h.files);
  const used = new Uint8Array(h.ids);
  for (const id of live) {
    if (id < 0 || id >= h.ids || used[id] !== 0) {
      throw new CacheError("the walk order names a bad id");
    }
    used[id] = 1;
    if (!isRelativePath(relative[id]) || !absolute[id].startsWith("/")) {
      throw new CacheError("a file's path is not a plain path");
    }
  }
  const parts: PostingsParts = {
    head: tables[0],
    state: tables[1],
    pages,
    used: h.used,
    nextId: h.ids,
    postings: h.postings,
  };
  let postings: Postings;
  try {
    postings = Postings.fromParts(parts);
  } catch (error) {
    throw new CacheError(`its postings: ${(error as Error).message}`);
  }
  return {
    postings,
    relative,
    absolute,
    kinds: kindList,
    lengths: lengthList,
    identity: [...identity],
    order: live.slice(),
    skipEvents: h.skipEvents.map(([file, kind, count]): SkipEvent => ({
      file,
      kind: SKIP_KINDS[kind],
      count,
    })),
    dirs,
  };
}

/**
 * Save `data` for `key` as `file` (see the module's note), replacing it
 * whole. `now` is the time the data's reads ended (ms since the epoch):
 * files changed within {@linkcode RACY_MS} of it get an unknown identity.
 * `data.postings` is read, not changed.
 */
export function saveCache(
  file: string,
  key: CacheKey,
  data: IndexData,
  now: number = Date.now(),
): void {
  const postings = data.postings.parts();
  const ids = postings.nextId;
  const encoder = new TextEncoder();
  const pathLengths = new Uint32Array(2 * ids);
  const pieces: Uint8Array[] = [];
  let stringBytes = 0;
  const add = (text: string) => {
    const bytes = encoder.encode(text);
    pieces.push(bytes);
    stringBytes += bytes.length;
    return bytes.length;
  };
  for (let id = 0; id < ids; id++) {
    pathLengths[2 * id] = add(data.relative[id] ?? "");
    pathLengths[2 * id + 1] = add(data.absolute[id] ?? "");
  }
  const dirLengths = new Uint32Array(pad8(4 * data.dirs.length) / 4);
  data.dirs.forEach((dir, d) => dirLengths[d] = add(dir));
  const strings = new Uint8Array(pad8(stringBytes));
  let at = 0;
  for (const piece of pieces) {
    strings.set(piece, at);
    at += piece.length;
  }
  const header: Header = {
    root: key.root,
    includeIgnored: key.includeIgnored,
    maxReadBytes: key.maxReadBytes,
    ids,
    files: data.order.length,
    pages: postings.pages.length,
    used: postings.pages.length === 0 ? 0 : postings.used,
    postings: postings.postings,
    dirs: data.dirs.length,
    stringBytes,
    skipEvents: data.skipEvents.map((e) => [
      e.file,
      SKIP_KINDS.indexOf(e.kind as typeof SKIP_KINDS[number]),
      e.count,
    ]),
  };
  const headerText = encoder.encode(JSON.stringify(header));
  if (headerText.length > MAX_HEADER) {
    throw new CacheError("too many skip events to save");
  }
  const fixed = new Uint8Array(16);
  fixed.set(MAGIC);
  new DataView(fixed.buffer).setUint32(8, CACHE_VERSION, true);
  new DataView(fixed.buffer).setUint32(12, headerText.length, true);
  const headerBytes = new Uint8Array(pad8(headerText.length));
  headerBytes.set(headerText);
  const kinds = new Uint8Array(pad8(ids));
  const lengths = new Uint32Array(pad8(4 * ids) / 4);
  const identity = new Float64Array(IDENTITY_FIELDS * ids);
  const since = now - RACY_MS;
  for (let id = 0; id < ids; id++) {
    kinds[id] = data.kinds[id] ?? FILE_SKIPPED;
    lengths[id] = data.lengths[id] ?? 0;
    const base = id * IDENTITY_FIELDS;
    const mtime = data.identity[base + 3];
    const ctime = data.identity[base + 4];
    // Racy (or unknown): stored as unknown, read again on load.
    const racy = !(mtime < since) || !(ctime < since);
    for (let i = 0; i < IDENTITY_FIELDS; i++) {
      identity[base + i] = racy ? NaN : data.identity[base + i] ?? NaN;
    }
  }
  const order = new Int32Array(pad8(4 * data.order.length) / 4);
  order.set(data.order);
  const sections: Uint8Array[] = [
    fixed,
    headerBytes,
    bytesOf(postings.head),
    bytesOf(postings.state),
    ...postings.pages.map((page, p) =>
      new Uint8Array(
        page,
        0,
        p === postings.pages.length - 1 ? pad8(postings.used) : page.byteLength,
      )
    ),
    kinds,
    bytesOf(lengths),
    bytesOf(identity),
    bytesOf(order),
    bytesOf(pathLengths),
    bytesOf(dirLengths),
    strings,
  ];
  const dir = file.slice(0, file.lastIndexOf("/")) || "/";
  Deno.mkdirSync(dir, { recursive: true });
  const part = Deno.makeTempFileSync({
    dir,
    prefix: ".index-",
    suffix: ".tmp",
  });
  try {
    const sum = new Checksum();
    {
      using out = Deno.openSync(part, { write: true, truncate: true });
      for (const bytes of sections) {
        sum.update(words(bytes));
        writeFully(out, bytes);
      }
      const tail = new Uint8Array(8);
      const [a, b] = sum.digest();
      new DataView(tail.buffer).setUint32(0, a, true);
      new DataView(tail.buffer).setUint32(4, b, true);
      writeFully(out, tail);
    }
    Deno.renameSync(part, file);
  } catch (error) {
    try {
      Deno.removeSync(part);
    } catch {
      // Already gone.
    }
    throw error;
  }
}
