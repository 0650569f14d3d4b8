/**
 * A small seeded pseudo-random generator for generated test cases.
 *
 * @module
 */

/**
 * mulberry32: numbers in [0, 1) from a fixed start, so every run generates
 * the same cases.
 */
export function prng(start: number): () => number {
  let a = start >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
