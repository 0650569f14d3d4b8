/**
 * `skills/list`, `skills/get` and `resources/directory/read`: the methods
 * of the skills extension (`io.modelcontextprotocol/skills`; see
 * `mcp/ext_skills.ts`), answered from the skills the server serves.
 *
 * @module
 */

import type { JsonObject } from "../mcp/jsonrpc.ts";
import {
  notADirectory,
  type SkillSet,
  skillsOf,
  unknownSkill,
} from "../mcp/ext_skills.ts";
import { pageResult, paginate } from "../mcp/pagination.ts";
import type { Handler, HandlerContext } from "../mcp/server.ts";

// The server's skills (see serveSkills); none served answers as empty.
function skillsFor(ctx: HandlerContext): SkillSet | undefined {
  return skillsOf(ctx.server);
}

// The page of `items` (in their order) that `cursor` asks for, as the
// result field `field` with `nextCursor` while more remain.
function pageOf<T>(
  field: string,
  items: readonly T[],
  cursor: unknown,
  ctx: HandlerContext,
): JsonObject {
  // Keys that sort as the items do: their index, zero-padded.
  const keyed = items.map((item, index) => ({
    item,
    key: String(index).padStart(8, "0"),
  }));
  const page = paginate(keyed, cursor, ctx.server.pageSize, (k) => k.key);
  return pageResult(field, page.items.map((k) => k.item), page.nextKey);
}

/** Handle `skills/list`: a page of skill entries, with `nextCursor` while more remain. */
export const skillsList: Handler = async (params: JsonObject, ctx) => {
  const entries = await skillsFor(ctx)?.entries() ?? [];
  return pageOf("skills", entries, params.cursor, ctx);
};

/** Handle `skills/get`: the entry of the skill whose `SKILL.md` is `uri`. */
export const skillsGet: Handler = async (params: JsonObject, ctx) => {
  const uri = params.uri;
  const entry = typeof uri === "string"
    ? await skillsFor(ctx)?.entry(uri)
    : undefined;
  if (entry === undefined) throw unknownSkill(uri);
  return { skill: entry as unknown as JsonObject };
};

/**
 * Handle `resources/directory/read`: the direct children of a skill
 * directory, a page at a time; -32602 for anything that is no directory.
 */
export const resourcesDirectoryRead: Handler = (params: JsonObject, ctx) => {
  const uri = params.uri;
  const children = typeof uri === "string"
    ? skillsFor(ctx)?.directory(uri)
    : undefined;
  if (children === undefined) throw notADirectory(uri);
  return pageOf("resources", children, params.cursor, ctx);
};
