/**
 * The bench scripts' command lines: `--help` prints what a script takes,
 * and a flag `node:util`'s `parseArgs` refuses is a one-line error with
 * the usage (exit 2), not a stack trace.
 *
 * @module
 */

/**
 * Run `main` with `args`, unless they ask for help (then print `usage`,
 * 0). A `TypeError` from `parseArgs` about an option becomes a one-line
 * error on stderr followed by `usage`, and exit code 2.
 */
export async function withUsage(
  name: string,
  args: readonly string[],
  usage: string,
  main: () => Promise<number>,
): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    console.log(usage);
    return 0;
  }
  try {
    return await main();
  } catch (error) {
    const parse = error instanceof TypeError &&
      /option|argument/i.test(error.message) &&
      (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS");
    if (!parse) throw error;
    console.error(`${name}: ${error.message}\n\n${usage}`);
    return 2;
  }
}
