/**
 * The fixtures of the conformance suite's extension scenarios, added to the
 * conformance fixture server (`conformance_server.ts`): tools that run as
 * tasks (`io.modelcontextprotocol/tasks`), named and behaving as the
 * suite's `tasks-*` scenarios expect, and skills
 * (`io.modelcontextprotocol/skills`) for its `sep-2640-skills-*` ones.
 *
 * @module
 */

import {
  defineTool,
  ErrorCode,
  type McpServer,
  RpcError,
  textContent,
  ToolFailure,
} from "../mod.ts";
import type { ElicitParams } from "../exports/protocol.ts";
import { serveSkills, SkillSet } from "../exports/extensions/skills.ts";

const NO_ARGUMENTS = { type: "object", properties: {} } as const;

/** Wait `ms`, or less when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

/** A form asking for one field of `type`. */
export function form(
  message: string,
  field: string,
  type: "string" | "boolean",
): ElicitParams {
  return {
    message,
    requestedSchema: {
      type: "object" as const,
      properties: { [field]: { type } },
      required: [field],
    },
  };
}

/**
 * Register the task fixtures on `server`: `greet` (never a task),
 * `slow_compute` (a task when the client can take one), `failing_job` (a
 * task only; its tool reports an error), `protocol_error_job` (a task whose
 * work fails with a JSON-RPC error), `confirm_delete` and `multi_input`
 * (tasks that ask the user, once and twice at a time), and
 * `test_tool_with_task` (asks the user's name in the request, then runs as
 * a task).
 */
export function registerTaskFixtures(server: McpServer): void {
  const tools = server.tools;
  tools.register(defineTool({
    name: "greet",
    description: "Greets someone by name, at once.",
    inputSchema: {
      type: "object",
      properties: { name: { type: "string" } },
      required: ["name"],
    },
    run: (args) => ({ content: [textContent(`Hello, ${args.name}!`)] }),
  }));
  tools.register(defineTool({
    name: "slow_compute",
    description:
      "Works for `seconds` seconds, then reports what it computed; a task for clients of the tasks extension.",
    inputSchema: {
      type: "object",
      properties: {
        seconds: { type: "number", minimum: 0 },
        label: { type: "string" },
      },
      required: ["seconds"],
    },
    task: { support: "optional" },
    async run(args, ctx) {
      await sleep(args.seconds * 1000, ctx.signal);
      return {
        content: [
          textContent(
            `Computed ${args.label ?? "a result"} in ${args.seconds}s.`,
          ),
        ],
      };
    },
  }));
  tools.register(defineTool({
    name: "failing_job",
    description:
      "Runs only as a task; after a second its tool reports an error.",
    inputSchema: NO_ARGUMENTS,
    task: { support: "required" },
    async run(_args, ctx) {
      await sleep(1000, ctx.signal);
      throw new ToolFailure("The job failed: the input it needs is missing.");
    },
  }));
  tools.register(defineTool({
    name: "protocol_error_job",
    description: "A task whose work fails with a JSON-RPC error.",
    inputSchema: NO_ARGUMENTS,
    task: { support: "optional" },
    async run(_args, ctx) {
      await sleep(100, ctx.signal);
      throw new RpcError(
        ErrorCode.InternalError,
        "Internal error: the job's backend failed.",
      );
    },
  }));
  tools.register(defineTool({
    name: "confirm_delete",
    description: "Asks the user to confirm, then deletes `filename` (a task).",
    inputSchema: {
      type: "object",
      properties: { filename: { type: "string" } },
      required: ["filename"],
    },
    task: { support: "optional" },
    async run(args, ctx) {
      const answer = await ctx.elicit(
        form(`Delete ${args.filename}?`, "confirm", "boolean"),
      );
      const confirmed = answer.action === "accept" &&
        (answer.content as { confirm?: unknown } | undefined)?.confirm ===
          true;
      return {
        content: [
          textContent(
            confirmed ? `Deleted ${args.filename}.` : `Kept ${args.filename}.`,
          ),
        ],
      };
    },
  }));
  tools.register(defineTool({
    name: "multi_input",
    description: "Asks the user two questions at once (a task).",
    inputSchema: NO_ARGUMENTS,
    task: { support: "optional" },
    async run(_args, ctx) {
      const answers = await Promise.all([
        ctx.elicit(form("First name?", "name", "string")),
        ctx.elicit(form("Confirm?", "confirm", "boolean")),
      ]);
      return {
        content: [
          textContent(
            `Got ${answers.map((a) => JSON.stringify(a.content)).join(", ")}.`,
          ),
        ],
      };
    },
  }));
  tools.register(defineTool({
    name: "test_tool_with_task",
    description:
      "Asks the user's name within the call (input user_name), then greets them from a task.",
    inputSchema: NO_ARGUMENTS,
    task: {
      support: "required",
      async prepare(args, ctx) {
        const answer = await ctx.elicit(
          form("What is your name?", "name", "string"),
          { inputKey: "user_name" },
        );
        const name = (answer.content as { name?: unknown } | undefined)?.name;
        return { ...args, user_name: String(name) };
      },
    },
    async run(args, ctx) {
      await sleep(200, ctx.signal);
      return {
        content: [
          textContent(
            `Hello, ${String((args as { user_name?: unknown }).user_name)}!`,
          ),
        ],
      };
    },
  }));
}

/**
 * The skills the fixture serves (`io.modelcontextprotocol/skills`): one
 * at the top of `skill://` with files in nested directories, and one under
 * a publisher's segment whose frontmatter has metadata.
 */
export function fixtureSkills(): SkillSet {
  return new SkillSet([
    {
      path: "code-review",
      frontmatter: {
        name: "code-review",
        description: "Review a change for correctness, tests and style.",
      },
      body:
        "# Code review\n\nRead the change, then go through references/checklist.md.\n",
      files: [
        {
          path: "references/checklist.md",
          content: "- Does every new branch have a test?\n- Are errors said?\n",
        },
        {
          path: "references/style/naming.md",
          content: "Modules are snake_case; exports are camelCase.\n",
        },
        {
          path: "scripts/count_todos.sh",
          content: '#!/bin/sh\ngrep -rc TODO "$@"\n',
        },
      ],
    },
    {
      path: "shipcode/release-notes",
      frontmatter: {
        name: "release-notes",
        description: "Write release notes from a list of merged changes.",
        license: "MIT",
        metadata: { author: "shipcode", version: "1.0" },
      },
      body: "# Release notes\n\nGroup the changes by area, newest first.\n",
    },
  ]);
}

/** Serve {@linkcode fixtureSkills} from `server` (see `serveSkills`). */
export function registerSkillFixtures(server: McpServer): void {
  serveSkills(server, fixtureSkills());
}
