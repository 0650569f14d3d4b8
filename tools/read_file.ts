/**
 * `read_file`: a text file by line range, as numbered lines (like
 * `cat -n`); images and audio as such; other binary files described
 * instead of dumped. The answer is plain text, with no structured content:
 * agent CLIs that prefer structured content hand their model that alone,
 * so the text must be the whole answer, and as plain text it costs about
 * what the file does.
 *
 * @module
 */

import { type ContentBlock, defineTool, type Tool } from "../mcp/tool.ts";
import {
  audioContent,
  imageContent,
  textContent,
  toolError,
} from "../mcp/content.ts";
import {
  isProbablyText,
  SNIFF_BYTES,
  textEncodingOf,
} from "../workspace/content.ts";
import type { WorkspaceHandle } from "../workspace/workspace.ts";
import type { WorkspaceView } from "../workspace/roots.ts";
import { mimeTypeOf } from "../workspace/mime_lazy.ts";
import { Pacer, plural, READ_ONLY, type ToolCaps } from "./common.ts";

/** Lines returned when the call gives no `limit`. */
export const DEFAULT_LINE_LIMIT = 2000;

/**
 * Most characters of text one call returns, numbers included (less when
 * `--max-read-bytes` is lower). Agent CLIs hand their model only a preview
 * of a large tool result and keep the rest in a file the model may never
 * open; the lowest such threshold measured is Qwen Code 0.24.4's, 25,000
 * characters (Claude Code 2.1.328: about 50,000 as serialized; Gemini CLI
 * 0.61.0: 40,000). A page of 20,000 stays under all of them with room for
 * JSON escapes, and its last line says where the next page starts.
 */
export const READ_PAGE_BYTES = 20_000;

/**
 * `lines` numbered from `first`, like `cat -n`: each number right-aligned
 * to the width of the largest, then a tab, then the line.
 */
export function numberLines(lines: readonly string[], first: number): string {
  const width = String(first + lines.length - 1).length;
  let text = "";
  for (let i = 0; i < lines.length; i++) {
    if (i > 0) text += "\n";
    text += `${String(first + i).padStart(width)}\t${lines[i]}`;
  }
  return text;
}

/** Whether files of this MIME type come back as media content. */
function mediaKind(
  mimeType: string | undefined,
): "image" | "audio" | undefined {
  if (mimeType === undefined) return undefined;
  // SVG is XML text: reading it as lines is more useful to a model.
  if (mimeType.startsWith("image/") && mimeType !== "image/svg+xml") {
    return "image";
  }
  if (mimeType.startsWith("audio/")) return "audio";
  return undefined;
}

/** How many "\n" bytes `bytes` holds. */
function newlines(bytes: Uint8Array): number {
  let count = 0;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0x0a) count++;
  return count;
}

/**
 * Files up to this size are read with one call; larger ones stream, so a
 * read that stops at its line limit early in a big file never reads, holds
 * or decodes the rest of it (memory under many concurrent reads of big
 * files stays proportional to what is returned).
 */
export const WHOLE_READ_BYTES = 256 * 1024;

/**
 * Splits decoded text into lines (without "\n" / "\r\n") across chunk
 * boundaries: a chunk at a time, so a file costs no promise per line.
 */
class LineSplitter {
  // The unfinished line, in pieces (joining per chunk would be quadratic).
  // A line longer than `#keep` characters is handed out cut as soon as it
  // is that long, and the rest of it is dropped: it is over the read
  // budget anyway, and a file without newlines then costs no memory and
  // stops the read at once.
  #rest: string[] = [];
  #restLength = 0;
  #dropping = false;
  readonly #keep: number;

  /** Lines longer than `keep` characters are cut to that length. */
  constructor(keep = Infinity) {
    this.#keep = keep;
  }

  /** The lines `chunk` completes. */
  push(chunk: string): string[] {
    if (this.#dropping) {
      const newline = chunk.indexOf("\n");
      if (newline === -1) return [];
      this.#dropping = false;
      chunk = chunk.slice(newline + 1);
    }
    const lines = chunk.split("\n");
    const last = lines.pop() ?? "";
    if (lines.length > 0) {
      this.#rest.push(lines[0]);
      lines[0] = this.#rest.join("");
      this.#rest = [];
      this.#restLength = 0;
    }
    for (let i = 0; i < lines.length; i++) {
      let line = lines[i];
      if (line.length > this.#keep) line = line.slice(0, this.#keep);
      if (line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
      lines[i] = line;
    }
    this.#rest.push(last);
    this.#restLength += last.length;
    if (this.#restLength > this.#keep) {
      lines.push(this.#rest.join("").slice(0, this.#keep));
      this.#rest = [];
      this.#restLength = 0;
      this.#dropping = true;
    }
    return lines;
  }

  /** The last line, when the text does not end with a newline. */
  end(): string[] {
    const rest = this.#rest.join("");
    return rest.length > 0 ? [rest] : [];
  }
}

/**
 * The decoded text of a file, in chunks: whole when small (one read, the
 * common case), else streamed, so a line range of a huge file costs only
 * the bytes up to that range.
 */
async function* textChunks(
  file: WorkspaceHandle,
  head: Uint8Array,
  whole: Uint8Array | undefined,
  signal: AbortSignal,
): AsyncGenerator<string> {
  const encoding = textEncodingOf(head);
  const decoder = new TextDecoder(encoding);
  if (whole !== undefined) {
    yield decoder.decode(whole);
    return;
  }
  for await (const chunk of file.chunks({ signal })) {
    yield decoder.decode(chunk, { stream: true });
  }
  yield decoder.decode();
}

/** Make the `read_file` tool over `ws`. */
export function readFileTool(
  ws: WorkspaceView,
  caps: Pick<ToolCaps, "maxReadBytes">,
): Tool {
  const pageBytes = Math.min(caps.maxReadBytes, READ_PAGE_BYTES);
  return defineTool({
    name: "read_file",
    title: "Read file",
    description:
      `Read a text file from the workspace by line range. The text comes back as numbered lines, like cat -n: each line's 1-based number, a tab, then the line. "offset" is the first line (default 1), "limit" the number of lines (default ${DEFAULT_LINE_LIMIT}); when more lines follow, or the ${pageBytes}-byte limit per call stops the output, a last line in brackets says so and gives the offset to continue from. Images and audio come back as media content; other binary files are described (size, type) rather than shown.`,
    inputSchema: {
      type: "object",
      properties: {
        path: {
          type: "string",
          minLength: 1,
          description:
            'File path relative to the workspace root, e.g. "src/main.ts".',
        },
        offset: {
          type: "integer",
          minimum: 1,
          description: "First line to return, 1-based (default 1).",
        },
        limit: {
          type: "integer",
          minimum: 1,
          description:
            `Number of lines to return (default ${DEFAULT_LINE_LIMIT}).`,
        },
      },
      required: ["path"],
    },
    annotations: READ_ONLY,
    async run(args, ctx) {
      const { path, offset = 1, limit = DEFAULT_LINE_LIMIT } = args;
      using file = await ws.open(path);
      if (file.info.isDirectory) {
        return toolError(
          `"${path}" is a directory; use list_directory to see its entries.`,
        );
      }
      if (!file.info.isFile) {
        return toolError(
          `"${path}" is not a regular file (a device, socket or pipe) and cannot be read.`,
        );
      }
      const size = file.info.size;
      const mimeType = await mimeTypeOf(file.relative);
      const media = mediaKind(mimeType);
      if (media !== undefined && mimeType !== undefined) {
        if (size > caps.maxReadBytes) {
          return toolError(
            `"${path}" is a ${media} of ${size} bytes, over the ${caps.maxReadBytes}-byte read limit (--max-read-bytes); use file_info for its details.`,
          );
        }
        const { bytes } = await file.read({
          maxBytes: caps.maxReadBytes,
          signal: ctx.signal,
        });
        const block: ContentBlock = media === "image"
          ? imageContent(bytes.toBase64(), mimeType)
          : audioContent(bytes.toBase64(), mimeType);
        return {
          content: [
            block,
            textContent(`[${file.relative}: ${mimeType}, ${size} bytes]`),
          ],
        };
      }
      // Bounded by what is read: the file may have grown since it was opened.
      const read = size <= WHOLE_READ_BYTES
        ? await file.read({ maxBytes: WHOLE_READ_BYTES, signal: ctx.signal })
        : undefined;
      const whole = read?.truncated ? undefined : read?.bytes;
      const head = whole?.subarray(0, SNIFF_BYTES) ?? file.head(SNIFF_BYTES);
      if (!isProbablyText(head)) {
        const type = mimeType ?? "application/octet-stream";
        return {
          content: [
            textContent(
              `[${file.relative} is a binary file (${size} bytes, ${type}); its bytes are not shown. Use file_info for details.]`,
            ),
          ],
        };
      }

      // Text: stop reading once the range is filled.
      const lines: string[] = [];
      let number = 0;
      let budget = pageBytes;
      let truncated = false;
      let hasMore = false;
      let reachedEnd = true;
      const encoder = new TextEncoder();
      const pacer = new Pacer(ctx.signal);
      // A line costs its bytes, its newline and its number with the tab
      // (no wider than the range's last number): the page bounds what the
      // model reads, not only what the file holds.
      const numberCost = String(Math.min(offset + limit - 1, 2 ** 53)).length +
        1;
      // A UTF-8 file that fits the page whole, numbers and all, cannot
      // overrun it, so its lines need not be measured one by one.
      const measure = textEncodingOf(head) !== "utf-8" ||
        whole === undefined ||
        whole.length + (newlines(whole) + 1) * (numberCost + 1) > pageBytes;
      const splitter = new LineSplitter(pageBytes + 1);
      const take = (line: string): boolean => {
        number++;
        if (number < offset) return true;
        if (lines.length === limit || truncated) {
          hasMore = true;
          reachedEnd = false;
          return false;
        }
        const bytes = measure
          ? encoder.encode(line).length + 1 + numberCost
          : 0;
        if (bytes > budget) {
          truncated = true;
          // One line larger than the whole budget: return its start.
          if (lines.length === 0) {
            lines.push(line.slice(0, Math.max(0, budget - numberCost)));
          }
          hasMore = true;
          reachedEnd = false;
          return false;
        }
        budget -= bytes;
        lines.push(line);
        return true;
      };
      reading: {
        for await (const chunk of textChunks(file, head, whole, ctx.signal)) {
          const split = splitter.push(chunk);
          for (let i = 0; i < split.length; i++) {
            if (!take(split[i])) break reading;
            if ((i & 1023) === 1023 && pacer.due()) await pacer.pause();
          }
          await pacer.tick();
        }
        for (const line of splitter.end()) take(line);
      }
      if (reachedEnd && number > 0 && offset > number) {
        return toolError(
          `"${path}" has ${
            plural(number, "line", "lines")
          }; offset ${offset} is past the end. Use an offset from 1 to ${number}.`,
        );
      }
      const endLine = offset + lines.length - 1;
      let text = numberLines(lines, offset);
      if (truncated) {
        text +=
          `\n[Lines ${offset}-${endLine} shown: the ${pageBytes}-byte limit per call was reached; call again with offset ${
            endLine + 1
          } for the rest.]`;
      } else if (hasMore) {
        text +=
          `\n[Lines ${offset}-${endLine} shown; more follow: call again with offset ${
            endLine + 1
          }.]`;
      } else if (number === 0) {
        text = "[The file is empty.]";
      }
      return { content: [textContent(text)] };
    },
  });
}
