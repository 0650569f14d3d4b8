/**
 * Why the workspace refuses a path, with messages that say what to do.
 *
 * @module
 */

/** Why a path was refused. */
export type WorkspaceErrorCode =
  | "invalid"
  | "outside"
  | "not_found"
  | "ignored"
  | "not_a_file"
  | "not_a_directory"
  | "too_large"
  | "unreadable";

/** A path the workspace refuses; `message` says what to do instead. */
export class WorkspaceError extends Error {
  /** Why it was refused. */
  readonly code: WorkspaceErrorCode;
  /** The path as the client gave it. */
  readonly path: string;

  /** Make an error for `path`; `message` is shown to the client. */
  constructor(code: WorkspaceErrorCode, path: string, message: string) {
    super(message);
    this.name = "WorkspaceError";
    this.code = code;
    this.path = path;
  }
}

/** `path` leaves the root. */
export function outside(path: string): WorkspaceError {
  return new WorkspaceError(
    "outside",
    path,
    `"${path}" is outside the workspace root; use a path relative to the root (for example "src/main.ts"), without "..".`,
  );
}

/** `path` cannot name anything in the workspace. */
export function invalid(path: string, why: string): WorkspaceError {
  return new WorkspaceError(
    "invalid",
    path,
    `"${
      clip(path)
    }" is not a valid workspace path: ${why}. Use a POSIX path relative to the root, for example "src/main.ts".`,
  );
}

/** `path` is `.git/` or excluded by a `.gitignore` rule. */
export function ignored(path: string): WorkspaceError {
  return new WorkspaceError(
    "ignored",
    path,
    `"${path}" is excluded from the workspace (.git/ or a .gitignore rule); pick a file that list_directory or find_files shows.`,
  );
}

/** Nothing exists at `path`. */
export function notFound(path: string): WorkspaceError {
  return new WorkspaceError(
    "not_found",
    path,
    `"${path}" does not exist in the workspace; use list_directory or find_files to see what does.`,
  );
}

/** The server may not read `path` (permissions), or it changed meanwhile. */
export function unreadable(path: string, why: string): WorkspaceError {
  return new WorkspaceError(
    "unreadable",
    path,
    `"${path}" cannot be read (${why}); pick another file, or fix its permissions for the user running the server.`,
  );
}

/**
 * `path` could not be read because a directory on it kept changing while
 * it was looked at (renamed, or entries added or removed, each time).
 */
export function changing(path: string): WorkspaceError {
  return new WorkspaceError(
    "unreadable",
    path,
    `"${path}" kept changing while it was read (a directory on its path was renamed, or had entries added or removed, each time it was looked at); try again once it is still.`,
  );
}

/** `path` is not a regular file (a directory, device, socket or FIFO). */
export function notAFile(path: string, what: string): WorkspaceError {
  return new WorkspaceError(
    "not_a_file",
    path,
    `"${path}" is ${what}, not a regular file, and cannot be read; use list_directory or file_info on it instead.`,
  );
}

// Long hostile paths are shortened in messages.
function clip(path: string): string {
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}
