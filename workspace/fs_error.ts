/**
 * The one error type of the confined file system layer: a race lost (a
 * name or directory changed while it was used) or a refusal, with a typed
 * code instead of an ad-hoc `code` property.
 *
 * @module
 */

/** An errno code as Node and Deno report it ("ENOENT", "ELOOP", …). */
export type Errno = `E${string}`;

/**
 * Why a confined file system step failed:
 *
 * - `ESTALE`: a name or a directory on the path changed while it was
 *   read or opened (a swap, a rename, entries added or removed). Whatever
 *   was read is not handed out; the caller may try again.
 * - `EAGAIN`: a directory on the path changed too recently for its times
 *   to tell a later change; try again after {@linkcode FsError.waitMs}.
 * - any other errno: a directory on the path could not be looked at
 *   (gone, not allowed).
 */
export type FsErrorCode = "ESTALE" | "EAGAIN" | Errno;

/** A file system race lost, or a refusal, in the confined layer. */
export class FsError extends Error {
  /** Why (see {@linkcode FsErrorCode}). */
  readonly code: FsErrorCode;
  /** With `EAGAIN`: milliseconds to wait before trying again. */
  readonly waitMs?: number;

  /** Make an error with `code`; `waitMs` goes with `EAGAIN`. */
  constructor(code: FsErrorCode, message: string, waitMs?: number) {
    super(message);
    this.name = "FsError";
    this.code = code;
    if (waitMs !== undefined) this.waitMs = waitMs;
  }
}

/** The errno code of a failed call ("ENOENT", "ELOOP", …) or "". */
export function errnoOf(error: unknown): Errno | "" {
  if (typeof error !== "object" || error === null) return "";
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") return code as Errno;
  switch ((error as { name?: unknown }).name) {
    case "NotFound":
      return "ENOENT";
    case "NotADirectory":
      return "ENOTDIR";
    case "PermissionDenied":
      return "EACCES";
    case "FilesystemLoop":
      return "ELOOP";
    case "InvalidData":
      return "EINVAL";
    default:
      return "";
  }
}
