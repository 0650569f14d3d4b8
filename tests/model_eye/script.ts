/**
 * The model's side of a model-eye run: a fixed list of tool calls the
 * stand-in model asks for one after another, and what the agent CLI handed
 * back for each, exactly as its model would read it.
 *
 * Each API stand-in (`anthropic.ts`, `openai.ts`, `gemini.ts`) turns a
 * request of its API into {@linkcode Turn}s and a {@linkcode Step} back
 * into that API's answer; the sequencing lives here once.
 *
 * @module
 */

/** One tool call the stand-in model makes. */
export interface Call {
  /** The server's tool name (the CLI may show it to the model prefixed). */
  tool: string;
  /** Its arguments. */
  args: Record<string, unknown>;
}

/** What the CLI handed the model for one call. */
export interface Reading {
  /** The call it answers. */
  call: Call;
  /** The tool's name as the CLI showed it to the model. */
  shownName: string;
  /**
   * The text the model reads: the tool result's text blocks joined by
   * "\n", or, where an API carries an object (Gemini), its JSON.
   */
  text: string;
  /** Whether the API marked the result as an error (undefined: no flag). */
  isError: boolean | undefined;
}

/** What the stand-in answers next. */
export type Step =
  | { kind: "call"; id: string; name: string; args: Record<string, unknown> }
  | { kind: "text"; text: string };

/** The text the stand-in ends a session with. */
export const DONE_TEXT = "All calls made.";

/**
 * Plays the model: asks for each call in turn, once the CLI offers a tool
 * of that name, and records what comes back.
 */
export class Script {
  readonly calls: readonly Call[];
  readonly readings: Reading[] = [];
  /** Every tool name the CLI offered the model, from the last request. */
  offered: string[] = [];
  /** Requests the stand-in answered, by kind, for diagnosis. */
  readonly log: string[] = [];
  #issued = new Map<string, { call: Call; shownName: string }>();
  #next = 0;
  #ids = 0;

  constructor(calls: readonly Call[]) {
    this.calls = calls;
  }

  /** Whether every call has been answered. */
  get done(): boolean {
    return this.readings.length === this.calls.length;
  }

  /**
   * The tool name the CLI shows the model for our `tool`: the offered
   * name equal to it or ending in it after a separator (`mcp__s__tool`,
   * `s__tool`, `s_tool`, `s-tool`, `s.tool`).
   */
  shownNameOf(tool: string, offered: readonly string[]): string | undefined {
    return offered.find((name) =>
      name === tool || /[_\-.:/]$/.test(name.slice(0, -tool.length)) &&
        name.endsWith(tool)
    );
  }

  /**
   * Record the results a request carries (by the ids this stand-in gave
   * its calls; unknown ids are ignored) and decide the answer: the next
   * call, once the CLI offers its tool; else a closing text.
   */
  step(
    offered: readonly string[],
    results: readonly { id: string; text: string; isError?: boolean }[],
  ): Step {
    if (offered.length > 0) this.offered = [...offered];
    for (const result of results) {
      const issued = this.#issued.get(result.id);
      if (issued === undefined) continue;
      this.#issued.delete(result.id);
      this.readings.push({
        call: issued.call,
        shownName: issued.shownName,
        text: result.text,
        isError: result.isError,
      });
    }
    // A request that answers none of ours (a title, a summary, a
    // warm-up) or comes while a call is out gets plain text.
    if (this.#issued.size > 0 || this.#next >= this.calls.length) {
      this.log.push(`text (offered ${offered.length} tools)`);
      return { kind: "text", text: DONE_TEXT };
    }
    const call = this.calls[this.#next];
    const shownName = this.shownNameOf(call.tool, offered);
    if (shownName === undefined) {
      this.log.push(`text (no ${call.tool} among ${offered.length} tools)`);
      return { kind: "text", text: DONE_TEXT };
    }
    this.#next++;
    const id = `call_${++this.#ids}_${call.tool}`;
    this.#issued.set(id, { call, shownName });
    this.log.push(`call ${shownName}`);
    return { kind: "call", id, name: shownName, args: call.args };
  }
}
