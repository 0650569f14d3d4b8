/**
 * The skills extension of MCP 2026-07-28 (`io.modelcontextprotocol/skills`),
 * off unless a server opts in: make a {@linkcode SkillSet} of skill
 * definitions, call {@linkcode serveSkills}, add
 * {@linkcode skillHandlers} (`skills/list`, `skills/get`,
 * `resources/directory/read`) to the method map and declare
 * `capabilities.extensions = { [SKILLS_EXTENSION]: skillsCapability() }`.
 * The skills' files are then resources under `skill://…`.
 *
 * @module
 */

export { skillHandlers } from "../../handlers/mod.ts";
export {
  DIRECTORY_MIME_TYPE,
  MAX_SKILL_BYTES,
  MAX_SKILL_FILES,
  serveSkills,
  SKILL_MD,
  type SkillDefinition,
  type SkillEntry,
  type SkillFile,
  skillMarkdown,
  type SkillResourceEntry,
  SKILLS_EXTENSION,
  skillsCapability,
  SkillSet,
  skillsOf,
  withSkills,
} from "../../mcp/ext_skills.ts";
