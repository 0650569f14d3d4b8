/**
 * Finding a module that ships beside another: a worker's source when run
 * from source, or the file the bundle build writes beside the bundle.
 *
 * @module
 */

/**
 * The first of `names`, resolved against `base` (the asking module's
 * `import.meta.url`), that is a file on the local disk; undefined when none
 * is (a bundle copied without its workers).
 */
export function moduleFileBeside(
  base: string,
  names: readonly string[],
): URL | undefined {
  for (const name of names) {
    const url = new URL(name, base);
    try {
      if (url.protocol === "file:" && Deno.statSync(url).isFile) return url;
    } catch {
      // Not here; try the next name.
    }
  }
  return undefined;
}
