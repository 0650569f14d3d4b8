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

/** Most trigrams of a query whose postings {@linkcode Postings.matching} reads. */
export const MATCHING_TRIGRAMS = 8;

// Pages of the arena; blocks never cross a page.
const PAGE_BITS = 22;
const PAGE_BYTES = 1 << PAGE_BITS;
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
  readonly #head = new Int32Array(TRIGRAM_COUNT);
  readonly #tail = new Int32Array(TRIGRAM_COUNT);
  // Next byte to write, and the last id written plus one (for deltas).
  readonly #pos = new Int32Array(TRIGRAM_COUNT);
  readonly #last = new Int32Array(TRIGRAM_COUNT);
  readonly #pages: Uint8Array[] = [];
  readonly #words: Int32Array[] = [];
  #used = PAGE_BYTES; // Bytes used in the last page (full: none yet).
  // Which file last added each trigram (id + 1), for de-duplication.
  readonly #seen = new Int32Array(TRIGRAM_COUNT);
  #nextId = 0;
  #postings = 0;

  /** Bytes held: the fixed tables and the pages. */
  get bytes(): number {
    return 5 * 4 * TRIGRAM_COUNT + this.#pages.length * PAGE_BYTES;
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
    let value = id + 1 - this.#last[trigram];
    this.#last[trigram] = id + 1;
    this.#postings++;
    let pos = this.#pos[trigram];
    let tail = this.#tail[trigram];
    if (tail === 0) {
      tail = this.#allocate(FIRST_BLOCK);
      this.#head[trigram] = tail;
      pos = tail + HEADER;
    }
    let page = this.#pages[tail >>> PAGE_BITS];
    let end = tail +
      this.#words[tail >>> PAGE_BITS][((tail & (PAGE_BYTES - 1)) >> 2) + 1];
    for (;;) {
      if (pos === end) {
        // The block is full: chain a larger one.
        const size = Math.min((end - tail) * 2, LARGEST_BLOCK);
        const next = this.#allocate(size);
        this.#words[tail >>> PAGE_BITS][(tail & (PAGE_BYTES - 1)) >> 2] = next;
        tail = next;
        page = this.#pages[tail >>> PAGE_BITS];
        pos = tail + HEADER;
        end = tail + size;
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
    this.#pos[trigram] = pos;
    this.#tail[trigram] = tail;
  }

  /** Add a file's text under a new id (returned). */
  addText(text: string): number {
    const id = this.#nextId++;
    const stamp = id + 1;
    const seen = this.#seen;
    const n = text.length;
    if (n < 3) return id;
    let a = symbolOf(text.charCodeAt(0));
    let b = symbolOf(text.charCodeAt(1));
    for (let i = 2; i < n; i++) {
      const c = symbolOf(text.charCodeAt(i));
      const t = (a * SYMBOLS + b) * SYMBOLS + c;
      if (seen[t] !== stamp) {
        seen[t] = stamp;
        this.#append(t, id);
      }
      a = b;
      b = c;
    }
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
    const stamp = id + 1;
    const seen = this.#seen;
    if (n < 3) return id;
    let a = symbolOf(bytes[0]);
    let b = symbolOf(bytes[1]);
    for (let i = 2; i < n; i++) {
      const code = bytes[i];
      const c = code >= 65 && code <= 90 ? code + 32 : code;
      const t = (a * SYMBOLS + b) * SYMBOLS + c;
      if (seen[t] !== stamp) {
        seen[t] = stamp;
        this.#append(t, id);
      }
      a = b;
      b = c;
    }
    return id;
  }

  /** Reserve an id for a file with no postings (a skipped file). */
  addNothing(): number {
    return this.#nextId++;
  }

  /** Call `visit` with each id holding `trigram`, in increasing order. */
  forEach(trigram: number, visit: (id: number) => void): void {
    let block = this.#head[trigram];
    if (block === 0) return;
    const tail = this.#tail[trigram];
    const stop = this.#pos[trigram];
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
      if (block === this.#tail[trigram]) break;
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
