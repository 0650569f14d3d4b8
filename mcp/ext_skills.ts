/**
 * The skills extension (`io.modelcontextprotocol/skills`): a server serves
 * Agent Skills (a directory with a `SKILL.md` and supporting files) as
 * resources under `skill://<skill-path>/…`, lists them with `skills/list`
 * (each entry: the `SKILL.md` URI, its frontmatter, and every file's URI,
 * SHA-256 digest and size, so a host can verify what it reads), returns one
 * with `skills/get`, and lists a skill directory's children with
 * `resources/directory/read`.
 *
 * A {@linkcode SkillSet} holds the skills (checked against the extension's
 * naming rules and limits when made); {@linkcode withSkills} puts its files
 * in front of a server's other resources. A server opts in by adding
 * `skillHandlers` (`handlers/mod.ts`), calling {@linkcode serveSkills} and
 * declaring {@linkcode skillsCapability} under `capabilities.extensions`.
 *
 * @module
 */

import { ErrorCode, type JsonObject, RpcError } from "./jsonrpc.ts";
import type {
  Resource,
  ResourceContents,
  ResourcePage,
  ResourceProvider,
} from "./resource.ts";
import { resourceNotFound } from "./resource.ts";

/** The extension's identifier, as capabilities name it. */
export const SKILLS_EXTENSION: string = "io.modelcontextprotocol/skills";

/** The MIME type of a directory's entry in `resources/directory/read`. */
export const DIRECTORY_MIME_TYPE: string = "inode/directory";

/** The manifest every skill has at its root. */
export const SKILL_MD: string = "SKILL.md";

/** Most files (SKILL.md included) one skill may have. */
export const MAX_SKILL_FILES: number = 512;

/** Most bytes the files of one skill may add up to (16 MiB). */
export const MAX_SKILL_BYTES: number = 16 * 1024 * 1024;

/** A file of a skill besides its `SKILL.md`. */
export interface SkillFile {
  /** Path inside the skill's directory, `/`-separated (`references/a.md`). */
  path: string;
  /** The content. */
  content: string | Uint8Array;
  /** MIME type; `text/markdown` for `.md`, `text/plain` otherwise if text. */
  mimeType?: string;
}

/** One skill, as a server defines it. */
export interface SkillDefinition {
  /**
   * Where it lives under `skill://`: segments joined by `/`, the last of
   * which is its name (`code-review`, `acme/code-review`).
   */
  path: string;
  /**
   * The `SKILL.md` frontmatter: at least `name` (the path's last segment)
   * and `description`; strings, numbers, booleans, lists and maps.
   */
  frontmatter: JsonObject & { name: string; description: string };
  /** The Markdown after the frontmatter. */
  body: string;
  /** The skill's other files. */
  files?: SkillFile[];
}

/** One file's entry in a skill's `resources`: what a host verifies. */
export interface SkillResourceEntry {
  /** The file's URI. */
  uri: string;
  /** `sha256:` and 64 lowercase hex digits, of the raw bytes. */
  digest: string;
  /** Length of the raw bytes. */
  size: number;
}

/** One entry of `skills/list` (and the `skill` of `skills/get`). */
export interface SkillEntry {
  /** The `SKILL.md` URI. */
  uri: string;
  /** The `SKILL.md` frontmatter, as an object. */
  frontmatter: JsonObject;
  /** Every file of the skill, `SKILL.md` first. */
  resources: SkillResourceEntry[];
}

/** The capability settings of the extension: it serves directory reads. */
export function skillsCapability(): JsonObject {
  return { directoryRead: true };
}

const NAME = /^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/;
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._~-]*$/;
const YAML_WORDS = /^(y|yes|n|no|true|false|on|off|null|~)$/i;
const PLAIN = /^[A-Za-z][A-Za-z0-9 _.,()/-]*[A-Za-z0-9.)]$|^[A-Za-z]$/;

/**
 * A frontmatter value as YAML: a plain scalar when it reads back as the
 * same string, JSON otherwise (JSON is YAML's flow style).
 */
function yamlValue(value: unknown): string {
  if (
    typeof value === "string" && PLAIN.test(value) && !YAML_WORDS.test(value)
  ) return value;
  return JSON.stringify(value);
}

/** The text of a `SKILL.md`: YAML frontmatter between `---` lines, then the body. */
export function skillMarkdown(frontmatter: JsonObject, body: string): string {
  const lines = Object.entries(frontmatter).map(([key, value]) =>
    `${key}: ${yamlValue(value)}`
  );
  return `---\n${lines.join("\n")}\n---\n\n${body}`;
}

function mimeTypeOf(path: string, content: string | Uint8Array): string {
  if (path.endsWith(".md")) return "text/markdown";
  return typeof content === "string"
    ? "text/plain"
    : "application/octet-stream";
}

async function digestOf(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(
    await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>),
  );
  return "sha256:" +
    Array.from(hash, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** One served file. */
interface StoredFile {
  uri: string;
  bytes: Uint8Array;
  text: string | undefined;
  mimeType: string;
  resource: Resource;
}

/** One served skill. */
interface StoredSkill {
  base: string;
  definition: SkillDefinition;
  files: StoredFile[];
}

function invalid(what: string): TypeError {
  return new TypeError(`invalid skill: ${what}`);
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/**
 * A fixed set of skills: their files as resources, their `skills/list`
 * entries, and their directories. Made from definitions that break the
 * extension's rules, it throws (a `TypeError` naming the rule).
 */
export class SkillSet {
  readonly #skills: StoredSkill[] = [];
  readonly #files = new Map<string, StoredFile>();
  // Directory URI -> its children's URIs (files and subdirectories).
  readonly #directories = new Map<string, Set<string>>();
  #entries: Promise<SkillEntry[]> | undefined;

  /** A set serving `skills`, in the order given. */
  constructor(skills: readonly SkillDefinition[]) {
    const encoder = new TextEncoder();
    for (const definition of skills) {
      const segments = definition.path.split("/");
      if (!segments.every((segment) => SEGMENT.test(segment))) {
        throw invalid(
          `path ${
            JSON.stringify(definition.path)
          } must be segments of letters, digits, ".", "_", "~" and "-" joined by "/"`,
        );
      }
      const name = segments[segments.length - 1];
      if (!NAME.test(name)) {
        throw invalid(
          `name ${
            JSON.stringify(name)
          } must be 1-64 lowercase letters, digits and single hyphens, neither first nor last`,
        );
      }
      if (definition.frontmatter.name !== name) {
        throw invalid(
          `frontmatter name ${
            JSON.stringify(definition.frontmatter.name)
          } must equal the path's last segment ${JSON.stringify(name)}`,
        );
      }
      if (
        typeof definition.frontmatter.description !== "string" ||
        definition.frontmatter.description.length === 0
      ) throw invalid(`${name} needs a description in its frontmatter`);
      const base = `skill://${definition.path}`;
      if (this.#directories.has(base)) {
        throw invalid(`${base} is served twice`);
      }
      const manifest = skillMarkdown(definition.frontmatter, definition.body);
      const files: StoredFile[] = [{
        uri: `${base}/${SKILL_MD}`,
        bytes: encoder.encode(manifest),
        text: manifest,
        mimeType: "text/markdown",
        resource: {
          uri: `${base}/${SKILL_MD}`,
          name,
          description: definition.frontmatter.description,
          mimeType: "text/markdown",
        },
      }];
      for (const file of definition.files ?? []) {
        const parts = file.path.split("/");
        if (
          parts.some((part) => part === "" || part === "." || part === "..") ||
          file.path === SKILL_MD
        ) {
          throw invalid(
            `file path ${
              JSON.stringify(file.path)
            } of ${name} must be relative, without "." or ".." segments, and not ${SKILL_MD}`,
          );
        }
        const uri = `${base}/${file.path}`;
        const bytes = typeof file.content === "string"
          ? encoder.encode(file.content)
          : file.content;
        const mimeType = file.mimeType ?? mimeTypeOf(file.path, file.content);
        files.push({
          uri,
          bytes,
          text: typeof file.content === "string" ? file.content : undefined,
          mimeType,
          resource: {
            uri,
            name: `${name}/${file.path}`,
            mimeType,
            size: bytes.length,
          },
        });
      }
      if (files.length > MAX_SKILL_FILES) {
        throw invalid(
          `${name} has ${files.length} files; at most ${MAX_SKILL_FILES} are served`,
        );
      }
      const total = files.reduce((sum, file) => sum + file.bytes.length, 0);
      if (total > MAX_SKILL_BYTES) {
        throw invalid(
          `${name} has ${total} bytes of files; at most ${MAX_SKILL_BYTES} are served`,
        );
      }
      this.#directories.set(base, new Set());
      for (const file of files) {
        if (this.#files.has(file.uri)) throw invalid(`${file.uri} is twice`);
        this.#files.set(file.uri, file);
        // Each directory between the skill's root and the file lists the
        // next step down.
        let parent = base;
        const rest = file.uri.slice(base.length + 1).split("/");
        for (let i = 0; i < rest.length; i++) {
          const child = `${parent}/${rest[i]}`;
          this.#directories.get(parent)!.add(child);
          if (i < rest.length - 1 && !this.#directories.has(child)) {
            this.#directories.set(child, new Set());
          }
          parent = child;
        }
      }
      this.#skills.push({ base, definition, files });
    }
  }

  /** The `skills/list` entries, in order (digests computed once). */
  entries(): Promise<SkillEntry[]> {
    return this.#entries ??= Promise.all(
      this.#skills.map(async (skill) => ({
        uri: `${skill.base}/${SKILL_MD}`,
        frontmatter: skill.definition.frontmatter,
        resources: await Promise.all(skill.files.map(async (file) => ({
          uri: file.uri,
          digest: await digestOf(file.bytes),
          size: file.bytes.length,
        }))),
      })),
    );
  }

  /** The entry of the skill whose `SKILL.md` is `uri`, if served. */
  async entry(uri: string): Promise<SkillEntry | undefined> {
    return (await this.entries()).find((entry) => entry.uri === uri);
  }

  /** Every file, as `resources/list` lists it. */
  resources(): Resource[] {
    return [...this.#files.values()].map((file) => file.resource);
  }

  /** Whether `uri` is a file of a skill. */
  has(uri: string): boolean {
    return this.#files.has(uri);
  }

  /** The contents of file `uri`; undefined when it is not a skill's file. */
  read(uri: string): ResourceContents[] | undefined {
    const file = this.#files.get(uri);
    if (file === undefined) return undefined;
    return [
      file.text !== undefined
        ? { uri, mimeType: file.mimeType, text: file.text }
        : { uri, mimeType: file.mimeType, blob: toBase64(file.bytes) },
    ];
  }

  /**
   * The direct children of directory `uri` (a skill's root or a directory
   * in it): files as their resources, subdirectories with
   * {@linkcode DIRECTORY_MIME_TYPE}. Undefined when `uri` is no directory.
   */
  directory(uri: string): Resource[] | undefined {
    const children = this.#directories.get(uri);
    if (children === undefined) return undefined;
    return [...children].map((child) =>
      this.#files.get(child)?.resource ?? {
        uri: child,
        name: child.slice(child.lastIndexOf("/") + 1),
        mimeType: DIRECTORY_MIME_TYPE,
      }
    );
  }
}

/** The -32602 error of a `skills/get` for a URI that names no skill. */
export function unknownSkill(uri: unknown): RpcError {
  return new RpcError(
    ErrorCode.InvalidParams,
    `Invalid params: ${
      JSON.stringify(String(uri).slice(0, 200))
    } is not the SKILL.md URI of a skill this server serves; use a uri from skills/list.`,
  );
}

/** The -32602 error of a directory read of something that is no directory. */
export function notADirectory(uri: unknown): RpcError {
  return new RpcError(
    ErrorCode.InvalidParams,
    `Invalid params: ${
      JSON.stringify(String(uri).slice(0, 200))
    } is not a directory this server serves; pass a skill's directory (its SKILL.md URI without "/SKILL.md") or a directory listed in one.`,
  );
}

const SKILL_KEY = "s:";
const INNER_KEY = "r:";

/**
 * A resource provider serving `skills`' files first, then `inner`'s
 * resources (when given). Page keys say which of the two a page resumes in.
 */
export function withSkills(
  skills: SkillSet,
  inner?: ResourceProvider,
): ResourceProvider {
  const listed = skills.resources();
  const provider: ResourceProvider = {
    async list(after, limit, signal): Promise<ResourcePage> {
      let start = 0;
      if (after !== undefined) {
        if (after.startsWith(INNER_KEY) && inner !== undefined) {
          const page = await inner.list(
            after.slice(INNER_KEY.length),
            limit,
            signal,
          );
          return page.nextKey === undefined
            ? page
            : { ...page, nextKey: INNER_KEY + page.nextKey };
        }
        const index = after.startsWith(SKILL_KEY)
          ? Number(after.slice(SKILL_KEY.length))
          : NaN;
        if (!Number.isInteger(index) || index < 0 || index >= listed.length) {
          throw new RpcError(
            ErrorCode.InvalidParams,
            'Invalid params: invalid "cursor"; pass back a nextCursor from this server unchanged, or omit it for the first page.',
          );
        }
        start = index + 1;
      }
      const resources = listed.slice(start, start + limit);
      if (start + resources.length < listed.length) {
        return {
          resources,
          nextKey: SKILL_KEY + String(start + resources.length - 1),
        };
      }
      if (inner === undefined) return { resources };
      if (resources.length === limit) {
        // The skills filled this page; the next starts with the rest.
        const rest = await inner.list(undefined, 1, signal);
        return rest.resources.length === 0
          ? { resources }
          : { resources, nextKey: SKILL_KEY + String(listed.length - 1) };
      }
      const page = await inner.list(
        undefined,
        limit - resources.length,
        signal,
      );
      const merged = [...resources, ...page.resources];
      return page.nextKey === undefined
        ? { resources: merged }
        : { resources: merged, nextKey: INNER_KEY + page.nextKey };
    },
    templates: () => inner?.templates() ?? [],
    read(uri, signal) {
      const contents = skills.read(uri);
      if (contents !== undefined) return Promise.resolve(contents);
      if (inner === undefined) return Promise.reject(resourceNotFound(uri));
      return inner.read(uri, signal);
    },
    canonicalUri(uri) {
      if (skills.has(uri)) return Promise.resolve(uri);
      if (inner === undefined) return Promise.reject(resourceNotFound(uri));
      return inner.canonicalUri(uri);
    },
    normalizeUri(uri) {
      if (skills.has(uri)) return uri;
      return inner?.normalizeUri(uri);
    },
  };
  if (inner?.settled !== undefined) provider.settled = () => inner.settled!();
  if (inner?.watch !== undefined) {
    provider.watch = (listener) => inner.watch!(listener);
  }
  if (inner?.complete !== undefined) {
    provider.complete = (template, variable, value, context) =>
      inner.complete!(template, variable, value, context);
  }
  return provider;
}

const SETS = new WeakMap<object, SkillSet>();

/**
 * Serve `skills` from `server` (an `McpServer`): the `skills/*` and
 * `resources/directory/read` handlers find them here, and the server's
 * resources become {@linkcode withSkills} of them and what it had.
 */
export function serveSkills(
  server: { resources: ResourceProvider | undefined },
  skills: SkillSet,
): void {
  SETS.set(server, skills);
  server.resources = withSkills(skills, server.resources);
}

/** The skills `server` serves (see {@linkcode serveSkills}), if any. */
export function skillsOf(server: object): SkillSet | undefined {
  return SETS.get(server);
}
