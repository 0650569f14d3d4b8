/**
 * Git's "racy" rule: a file changed within the file system clock's
 * granularity of now may change again without its times moving, so a
 * cache keyed by those times may trust them only once the file is older
 * than that granularity.
 *
 * @module
 */

/** The window for times with milliseconds in them (ext4, xfs, btrfs, tmpfs). */
export const RACY_MS = 100;

/**
 * The window for times in whole seconds: ext3, ext4 with small inodes,
 * HFS+ and some network file systems keep seconds, FAT two.
 */
export const COARSE_RACY_MS = 3_000;

/**
 * Whether something whose times are `times` (milliseconds since the
 * epoch; NaN when the system does not say) changed too recently, at
 * `now`, for those times to be trusted to move on its next change. Times
 * that are all whole seconds are taken to come from a coarse clock.
 */
export function isRacy(now: number, ...times: number[]): boolean {
  let latest = -Infinity;
  let coarse = true;
  for (const time of times) {
    if (!Number.isFinite(time)) return true;
    latest = Math.max(latest, time);
    if (time % 1000 !== 0) coarse = false;
  }
  if (latest === -Infinity) return true;
  return !(now - latest > (coarse ? COARSE_RACY_MS : RACY_MS));
}
