/**
 * Trigram postings: for each run of three (folded) characters, the ids of
 * the files whose text holds it, stored compactly (delta varints in
 * chained blocks of a few large pages), as Google Code Search and Zoekt
 * index code. A file that holds a string holds each of its trigrams, so
 * the files holding all of a query's trigrams are a superset of those
 * holding the query: the only files a search must read.
 *
 * Characters are folded to one of 129 symbols: ASCII with letters made
 * lower-case, and one symbol for everything else, except the two non-ASCII
 * characters whose lower case is ASCII (U+212A KELVIN SIGN is "k", U+0130
 * is "i" and a combining dot). So a case-insensitive query, and a regex
 * with the case-insensitive rewriting of `tools/regex.ts`, can use the same
 * trigrams as a case-sensitive one.
 *
 * @module
 */

const SYMBOLS = 129;
const OTHER = 128;

/** How many distinct trigrams there are. */
export const TRIGRAM_COUNT = SYMBOLS * SYMBOLS * SYMBOLS;

/** The symbol a UTF-16 code unit folds to (see the module's note). */
export function symbolOf(code: number): number {
  if (code < 128) return code >= 65 && code <= 90 ? code + 32 : code;
  if (code === 0x212a) return 107; // KELVIN SIGN lower-cases to "k".
  if (code === 0x130) return 105; // "İ" lower-cases to "i" + U+0307.
  return OTHER;
}

/** The trigram of three symbols. */
function trigramOf(a: number, b: number, c: number): number {
  return (a * SYMBOLS + b) * SYMBOLS + c;
}

/**
 * The distinct trigrams of `text` (a piece that must appear as it is, in
 * its folded form), in the order met.
 */
export function trigramsOf(text: string): number[] {
  const out = new Set<number>();
  for (let i = 0; i + 2 < text.length; i++) {
    out.add(trigramOf(
      symbolOf(text.charCodeAt(i)),
      symbolOf(text.charCodeAt(i + 1)),
      symbolOf(text.charCodeAt(i + 2)),
    ));
  }
  return [...out];
}

/** Bytes of one page of {@linkcode Postings}' arena. */
export const POSTINGS_PAGE_BYTES = 1 << 22;

/** The state of {@linkcode Postings}, as plain buffers. */
export interface PostingsParts {
  /** Per trigram: address of its first block (0: none). */
  head: Int32Array;
  /**
   * Four numbers per trigram, side by side (one cache line for the hot
   * path): address of the next byte to write, the end of its last block,
   * the last id written plus one, and the address of its last block.
   */
  state: Int32Array;
  /** The arena's pages, {@linkcode POSTINGS_PAGE_BYTES} each. */
  pages: ArrayBuffer[];
  /** Bytes used in the last page. */
  used: number;
  /** The id the next file added gets. */
  nextId: number;
  /** (trigram, file) pairs stored. */
  postings: number;
}

/** The buffers of `parts`, to transfer them to another thread. */
export function partsBuffers(parts: PostingsParts): ArrayBuffer[] {
  return [
    parts.head.buffer,
    parts.state.buffer,
    ...parts.pages,
  ] as ArrayBuffer[];
}

/** Most trigrams of a query whose postings {@linkcode Postings.matching} reads. */
export const MATCHING_TRIGRAMS = 8;

// Pages of the arena; blocks never cross a page.
const PAGE_BITS = 22;
const PAGE_BYTES = POSTINGS_PAGE_BYTES;
// A block: next block's address (int32), its size (int32), then data.
const HEADER = 8;
const FIRST_BLOCK = 16;
const LARGEST_BLOCK = 4096;

/**
 * Per trigram, the sorted ids of the files holding it. Ids must be added
 * in increasing order (a file's trigrams all at once, see
 * {@linkcode Postings.addText} and {@linkcode Postings.addBytes}); a file
 * that changes is added again under a new id and its old id is dropped by
 * the caller (its postings stay, and it is filtered out at query time).
 */
export class Postings {
  // Address 0 is never a block: it means "none".
  readonly #head: Int32Array;
  // Per trigram at 4t: the next byte to write, the end of the last block,
  // the last id written plus one (for deltas), and the last block. See
  // `PostingsParts.state`.
  readonly #state: Int32Array;
  readonly #pages: Uint8Array[] = [];
  readonly #words: Int32Array[] = [];
  #used = PAGE_BYTES; // Bytes used in the last page (full: none yet).
  #nextId = 0;
  #postings = 0;

  /** Empty postings (see {@linkcode Postings.fromParts} for others). */
  constructor(parts?: PostingsParts) {
    if (parts === undefined) {
      this.#head = new Int32Array(TRIGRAM_COUNT);
      this.#state = new Int32Array(4 * TRIGRAM_COUNT);
      return;
    }
    if (
      parts.head.length !== TRIGRAM_COUNT ||
      parts.state.length !== 4 * TRIGRAM_COUNT
    ) {
      throw new RangeError("postings: a table of the wrong size");
    }
    this.#head = parts.head;
    this.#state = parts.state;
    for (const buffer of parts.pages) {
      if (buffer.byteLength !== PAGE_BYTES) {
        throw new RangeError("postings: a page of the wrong size");
      }
      this.#pages.push(new Uint8Array(buffer));
      this.#words.push(new Int32Array(buffer));
    }
    this.#used = parts.pages.length === 0 ? PAGE_BYTES : parts.used;
    this.#nextId = parts.nextId;
    this.#postings = parts.postings;
  }

  /** Bytes held: the fixed tables and the pages. */
  get bytes(): number {
    return 5 * 4 * TRIGRAM_COUNT + this.#bits.byteLength +
      this.#pages.length * PAGE_BYTES;
  }

  /** How many (trigram, file) pairs were added. */
  get postings(): number {
    return this.#postings;
  }

  /** The id the next file added gets. */
  get nextId(): number {
    return this.#nextId;
  }

  #allocate(size: number): number {
    if (this.#used + size > PAGE_BYTES) {
      const buffer = new ArrayBuffer(PAGE_BYTES);
      this.#pages.push(new Uint8Array(buffer));
      this.#words.push(new Int32Array(buffer));
      // Address 0 stays unused: the first page starts its blocks at 8.
      this.#used = this.#pages.length === 1 ? 8 : 0;
    }
    const address = ((this.#pages.length - 1) << PAGE_BITS) + this.#used;
    this.#used += size;
    const words = this.#words[this.#pages.length - 1];
    const word = (address & (PAGE_BYTES - 1)) >> 2;
    words[word] = 0;
    words[word + 1] = size;
    return address;
  }

  #append(trigram: number, id: number): void {
    const state = this.#state;
    const at = trigram << 2;
    let value = id + 1 - state[at + 2];
    state[at + 2] = id + 1;
    this.#postings++;
    let pos = state[at];
    let end = state[at + 1];
    if (end === 0) {
      const first = this.#allocate(FIRST_BLOCK);
      this.#head[trigram] = first;
      state[at + 3] = first;
      pos = first + HEADER;
      end = first + FIRST_BLOCK;
    }
    let page = this.#pages[pos >>> PAGE_BITS];
    for (;;) {
      if (pos === end) {
        // The block is full: chain a larger one.
        const tail = state[at + 3];
        const size = Math.min((end - tail) * 2, LARGEST_BLOCK);
        const next = this.#allocate(size);
        this.#words[tail >>> PAGE_BITS][(tail & (PAGE_BYTES - 1)) >> 2] = next;
        state[at + 3] = next;
        page = this.#pages[next >>> PAGE_BITS];
        pos = next + HEADER;
        end = next + size;
      }
      const byte = value & 0x7f;
      value >>>= 7;
      if (value === 0) {
        page[pos & (PAGE_BYTES - 1)] = byte;
        pos++;
        break;
      }
      page[pos & (PAGE_BYTES - 1)] = byte | 0x80;
      pos++;
    }
    state[at] = pos;
    state[at + 1] = end;
  }

  // One file's distinct trigrams: a bit per trigram (small enough to stay
  // in the processor's cache, unlike the tables), and the list of them.
  readonly #bits = new Int32Array((TRIGRAM_COUNT >>> 5) + 1);
  #list = new Int32Array(4096);

  /** Note trigram `t` for the file being added; returns the list's length. */
  #note(t: number, count: number): number {
    const bits = this.#bits;
    const word = t >>> 5;
    const mask = 1 << (t & 31);
    if ((bits[word] & mask) !== 0) return count;
    bits[word] |= mask;
    if (count === this.#list.length) {
      const grown = new Int32Array(count * 2);
      grown.set(this.#list);
      this.#list = grown;
    }
    this.#list[count] = t;
    return count + 1;
  }

  /** Append `id` to the listed trigrams (in order), clearing their bits. */
  #flush(count: number, id: number): void {
    const list = this.#list;
    const bits = this.#bits;
    for (let i = 0; i < count; i++) {
      const t = list[i];
      bits[t >>> 5] = 0;
      this.#append(t, id);
    }
  }

  /** Add a file's text under a new id (returned). */
  addText(text: string): number {
    const id = this.#nextId++;
    const n = text.length;
    if (n < 3) return id;
    let a = symbolOf(text.charCodeAt(0));
    let b = symbolOf(text.charCodeAt(1));
    let count = 0;
    for (let i = 2; i < n; i++) {
      const c = symbolOf(text.charCodeAt(i));
      count = this.#note((a * SYMBOLS + b) * SYMBOLS + c, count);
      a = b;
      b = c;
    }
    this.#flush(count, id);
    return id;
  }

  /**
   * Add a file's bytes under a new id (returned) when they are all ASCII
   * (so each byte is one character of the decoded text); returns -1, and
   * adds nothing, when a byte is not.
   */
  addAsciiBytes(bytes: Uint8Array): number {
    const n = bytes.length;
    for (let i = 0; i < n; i++) {
      if (bytes[i] >= 128) return -1;
    }
    const id = this.#nextId++;
    if (n < 3) return id;
    const bits = this.#bits;
    let a = symbolOf(bytes[0]);
    let b = symbolOf(bytes[1]);
    let count = 0;
    for (let i = 2; i < n; i++) {
      const code = bytes[i];
      const c = code >= 65 && code <= 90 ? code + 32 : code;
      const t = (a * SYMBOLS + b) * SYMBOLS + c;
      // The common case (seen already in this file) without a call.
      if ((bits[t >>> 5] & (1 << (t & 31))) === 0) count = this.#note(t, count);
      a = b;
      b = c;
    }
    this.#flush(count, id);
    return id;
  }

  /** Reserve an id for a file with no postings (a skipped file). */
  addNothing(): number {
    return this.#nextId++;
  }

  /**
   * The postings' state as plain buffers (the tables, and the pages up to
   * the last one's used bytes), for another thread or a cache file: see
   * {@linkcode Postings.fromParts}. The parts share memory with this
   * object: transfer them, and this object is not to be used again.
   */
  parts(): PostingsParts {
    return {
      head: this.#head,
      state: this.#state,
      pages: this.#pages.map((page) => page.buffer as ArrayBuffer),
      used: this.#used,
      nextId: this.#nextId,
      postings: this.#postings,
    };
  }

  /**
   * Postings made of `parts` (from {@linkcode Postings.parts}, or a
   * cache file), after checking that every trigram's chain of blocks
   * lies in the pages, in order, and ends where its table says: a chain
   * that loops, leaves the pages or overlaps a block's header throws a
   * `RangeError`. (Ids decoded from a block are not checked: a wrong one
   * is only a wrong candidate, and a cache's checksum guards them.)
   */
  static fromParts(parts: PostingsParts): Postings {
    const out = new Postings(parts);
    out.#check();
    return out;
  }

  #check(): void {
    const pages = this.#pages.length;
    const bad = (why: string) => new RangeError(`postings: ${why}`);
    if (this.#nextId < 0 || this.#postings < 0) throw bad("negative count");
    if (this.#used < 0 || this.#used > PAGE_BYTES) throw bad("bad fill");
    // Where the allocated bytes end, as an address.
    const end = pages === 0 ? 0 : ((pages - 1) << PAGE_BITS) + this.#used;
    // Each block is reached once: chains never share or loop.
    const limit = end / FIRST_BLOCK + 1;
    let blocks = 0;
    const inside = (block: number, size: number) =>
      block > 0 && (block & 3) === 0 && block + size <= end &&
      ((block & (PAGE_BYTES - 1)) + size) <= PAGE_BYTES;
    for (let t = 0; t < TRIGRAM_COUNT; t++) {
      let block = this.#head[t];
      const tail = this.#state[4 * t + 3];
      if (block === 0) {
        if (
          tail !== 0 || this.#state[4 * t] !== 0 ||
          this.#state[4 * t + 1] !== 0 || this.#state[4 * t + 2] !== 0
        ) {
          throw bad("an empty trigram with data");
        }
        continue;
      }
      for (;;) {
        if (!inside(block, HEADER)) throw bad("a block outside the pages");
        const words = this.#words[block >>> PAGE_BITS];
        const word = (block & (PAGE_BYTES - 1)) >> 2;
        const size = words[word + 1];
        if (
          size < FIRST_BLOCK || size > LARGEST_BLOCK || !inside(block, size)
        ) {
          throw bad("a block of a bad size");
        }
        if (++blocks > limit) throw bad("a chain that loops");
        if (block === tail) {
          const pos = this.#state[4 * t];
          if (
            pos < block + HEADER || pos > block + size ||
            this.#state[4 * t + 1] !== block + size
          ) {
            throw bad("a write position outside its block");
          }
          break;
        }
        block = words[word];
      }
    }
  }

  /** Call `visit` with each id holding `trigram`, in increasing order. */
  forEach(trigram: number, visit: (id: number) => void): void {
    let block = this.#head[trigram];
    if (block === 0) return;
    const tail = this.#state[(trigram << 2) + 3];
    const stop = this.#state[trigram << 2];
    let id = 0;
    let value = 0;
    let shift = 0;
    for (;;) {
      const page = this.#pages[block >>> PAGE_BITS];
      const words = this.#words[block >>> PAGE_BITS];
      const word = (block & (PAGE_BYTES - 1)) >> 2;
      const end = block === tail ? stop : block + words[word + 1];
      for (let p = block + HEADER; p < end; p++) {
        const byte = page[p & (PAGE_BYTES - 1)];
        value |= (byte & 0x7f) << shift;
        if (byte & 0x80) {
          shift += 7;
          continue;
        }
        id += value;
        visit(id - 1);
        value = 0;
        shift = 0;
      }
      if (block === tail) return;
      block = words[word];
    }
  }

  /** Bytes of `trigram`'s postings, about (its blocks' sizes). */
  #weight(trigram: number): number {
    let block = this.#head[trigram];
    let bytes = 0;
    while (block !== 0) {
      const words = this.#words[block >>> PAGE_BITS];
      const word = (block & (PAGE_BYTES - 1)) >> 2;
      bytes += words[word + 1];
      if (block === this.#state[(trigram << 2) + 3]) break;
      block = words[word];
    }
    return bytes;
  }

  /**
   * Mark, in a new array indexed by id, the files that may hold every
   * trigram of `trigrams` (1) and the others (0): the files holding the
   * rarest {@linkcode MATCHING_TRIGRAMS} of them (a superset, found
   * without decoding the commonest lists).
   */
  matching(trigrams: readonly number[]): Uint8Array {
    const marks = new Uint8Array(this.#nextId);
    if (trigrams.length === 0) return marks.fill(1);
    const weights = new Map(trigrams.map((t) => [t, this.#weight(t)]));
    const used = [...weights.keys()].sort((a, b) =>
      (weights.get(a) as number) - (weights.get(b) as number)
    ).slice(0, MATCHING_TRIGRAMS);
    // A file held by none: no need to read the others.
    if (weights.get(used[0]) === 0) return marks;
    // Counts how many of the trigrams so far each file holds.
    for (let i = 0; i < used.length; i++) {
      const want = i;
      this.forEach(used[i], (id) => {
        if (marks[id] === want) marks[id] = want + 1;
      });
    }
    const all = used.length;
    for (let id = 0; id < marks.length; id++) {
      marks[id] = marks[id] === all ? 1 : 0;
    }
    return marks;
  }
}
