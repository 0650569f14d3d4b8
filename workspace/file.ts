/**
 * An open file or directory of the workspace, and bounded reads from it.
 *
 * Reads are bounded by what they actually read, never by the size seen at
 * open: a file that grows meanwhile still yields at most the bytes asked
 * for. Small reads are synchronous (an asynchronous one costs a thread
 * round trip several times the read); beyond {@linkcode SYNC_READ_BYTES}
 * reads run off the main thread in chunks, checking the abort signal
 * between chunks, so a big file never stalls other requests.
 *
 * @module
 */

import { notAFile, unreadable } from "./errors.ts";
import type { RootFs } from "./secure_fs.ts";

/** Bytes of one call read synchronously before reads turn asynchronous. */
export const SYNC_READ_BYTES = 256 * 1024;

/** Bytes per asynchronous read. */
export const CHUNK_BYTES = 1024 * 1024;

/** Options of {@linkcode WorkspaceHandle.read}. */
export interface ReadOptions {
  /** Most bytes returned; one more is read to tell whether more exist. */
  maxBytes: number;
  /** Stops the read between chunks (it rejects with the abort reason). */
  signal?: AbortSignal;
  /**
   * When the file is already larger than `maxBytes` at open, read nothing
   * and answer `truncated` at once (for callers that skip such files).
   */
  skipLarger?: boolean;
  /**
   * A buffer to read into when it is large enough for the file (its size
   * at open plus one byte, or `maxBytes` plus one), instead of a new one
   * per read: the bytes returned are then a view of it, valid until it is
   * used again. Saves allocating and zeroing a buffer per file in a scan.
   */
  scratch?: Uint8Array;
}

/** What {@linkcode WorkspaceHandle.read} returns. */
export interface ReadResult {
  /** The file's first bytes: at most `maxBytes`. */
  bytes: Uint8Array;
  /** Whether the file held more than `maxBytes` bytes when read. */
  truncated: boolean;
}

/** Options of {@linkcode WorkspaceHandle.chunks}. */
export interface ChunkOptions {
  /** Stops the stream between chunks. */
  signal?: AbortSignal;
  /** Bytes per chunk (default 64 KiB). */
  chunkBytes?: number;
  /** Most bytes streamed in all (default: to the end of the file). */
  maxBytes?: number;
}

function describe(info: Deno.FileInfo): string {
  if (info.isDirectory) return "a directory";
  if (info.isFifo) return "a FIFO (named pipe)";
  if (info.isSocket) return "a socket";
  if (info.isCharDevice || info.isBlockDevice) return "a device";
  return "not a regular file";
}

/**
 * A workspace path opened by `Workspace.open`: its identity and metadata
 * as opened, and reads of that very file (never of whatever the path names
 * later). Close it (`using` does) when done.
 */
export class WorkspaceHandle implements Disposable {
  /** POSIX path relative to the root, as the client reached it. */
  readonly relative: string;
  /** Real absolute path at open time: for display only, never open it. */
  readonly absolute: string;
  /** Metadata of the opened file (fstat of the handle). */
  readonly info: Deno.FileInfo;
  readonly #fs: RootFs;
  #fd: number;

  /** @internal Made by the workspace; `fd` is -1 for a handle without one. */
  constructor(
    fs: RootFs,
    fd: number,
    relative: string,
    absolute: string,
    info: Deno.FileInfo,
  ) {
    this.#fs = fs;
    this.#fd = fd;
    this.relative = relative;
    this.absolute = absolute;
    this.info = info;
  }

  /** Whether the handle has been closed. */
  get closed(): boolean {
    return this.#fd === -1;
  }

  #file(): number {
    if (!this.info.isFile) throw notAFile(this.relative, describe(this.info));
    if (this.#fd === -1) {
      throw unreadable(this.relative, "permission denied, or it was closed");
    }
    return this.#fd;
  }

  /** The first `bytes` bytes (fewer at the end of the file), synchronously. */
  head(bytes: number): Uint8Array {
    const fd = this.#file();
    // Sized by the size seen at open (plus one byte, to notice growth),
    // not by the cap: a walk reads hundreds of small ignore files under a
    // cap of a megabyte each.
    let buffer: Uint8Array = new Uint8Array(
      Math.max(1, Math.min(bytes, this.info.size + 1)),
    );
    let filled = 0;
    while (filled < bytes) {
      if (filled === buffer.length) buffer = grown(buffer, bytes);
      const room = buffer.length - filled;
      const read = this.#fs.readSync(fd, buffer.subarray(filled), filled);
      if (read === 0) break;
      filled += read;
      // All the file held at open, and less than asked: its end.
      if (read < room && filled === this.info.size) break;
    }
    return buffer.subarray(0, filled);
  }

  /**
   * The file's content up to `maxBytes`, and whether there was more. The
   * bound holds against what is read, whatever the file's size at open.
   */
  async read(options: ReadOptions): Promise<ReadResult> {
    const fd = this.#file();
    if (options.skipLarger && this.info.size > options.maxBytes) {
      return { bytes: new Uint8Array(), truncated: true };
    }
    const limit = options.maxBytes + 1;
    // Sized by the cap and the size seen when opened (plus one byte, to
    // notice growth), so an ordinary file is read without regrowing.
    const wanted = Math.max(1, Math.min(limit, this.info.size + 1));
    let buffer = options.scratch !== undefined &&
        options.scratch.length >= wanted
      ? options.scratch.subarray(0, wanted)
      : new Uint8Array(wanted);
    let filled = 0;
    while (filled < limit) {
      if (filled === buffer.length) buffer = grown(buffer, limit);
      const room = buffer.subarray(
        filled,
        Math.min(buffer.length, filled + CHUNK_BYTES),
      );
      let read: number;
      if (filled + room.length <= SYNC_READ_BYTES) {
        read = this.#fs.readSync(fd, room, filled);
      } else {
        options.signal?.throwIfAborted();
        read = await this.#fs.read(fd, room, filled);
        options.signal?.throwIfAborted();
      }
      if (read === 0) break;
      filled += read;
      // Short of what was asked, where the size seen at open ends: the end
      // (a regular file gives fewer bytes than asked only there), found
      // without one more read that gets none.
      if (read < room.length && filled === this.info.size) break;
    }
    const truncated = filled > options.maxBytes;
    return {
      bytes: buffer.subarray(0, Math.min(filled, options.maxBytes)),
      truncated,
    };
  }

  /**
   * The file's bytes in chunks, read asynchronously one at a time, so
   * other requests are served between chunks and an abort stops it.
   */
  async *chunks(options: ChunkOptions = {}): AsyncGenerator<Uint8Array> {
    const fd = this.#file();
    const size = options.chunkBytes ?? 64 * 1024;
    let left = options.maxBytes ?? Infinity;
    let position = 0;
    while (left > 0) {
      options.signal?.throwIfAborted();
      const buffer = new Uint8Array(Math.min(size, left));
      const read = await this.#fs.read(fd, buffer, position);
      options.signal?.throwIfAborted();
      if (read === 0) return;
      position += read;
      left -= read;
      yield buffer.subarray(0, read);
    }
  }

  /** Release the descriptor (idempotent). */
  close(): void {
    if (this.#fd === -1) return;
    this.#fs.close(this.#fd);
    this.#fd = -1;
  }

  /** Same as {@linkcode WorkspaceHandle.close}. */
  [Symbol.dispose](): void {
    this.close();
  }
}

// `buffer`, full, copied into one twice its length (at most `limit`).
function grown(buffer: Uint8Array, limit: number): Uint8Array {
  const larger = new Uint8Array(Math.min(limit, buffer.length * 2));
  larger.set(buffer);
  return larger;
}
