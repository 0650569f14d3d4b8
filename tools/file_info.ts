/**
 * `file_info`: size, modification time, type, MIME type, and line count of
 * a text file.
 *
 * @module
 */

import type { JsonObject } from "../mcp/jsonrpc.ts";
import { defineTool, type Tool } from "../mcp/tool.ts";
import { structuredResult } from "../mcp/content.ts";
import {
  isProbablyText,
  SNIFF_BYTES,
  textEncodingOf,
} from "../workspace/content.ts";
import type { WorkspaceHandle } from "../workspace/workspace.ts";
import type { WorkspaceView } from "../workspace/roots.ts";
import { mimeTypeOf } from "../workspace/mime_lazy.ts";
import { READ_ONLY } from "./common.ts";

/** Count lines by newline bytes: a last line without "\n" counts too. */
async function countLines(
  file: WorkspaceHandle,
  encoding: string,
  signal: AbortSignal,
): Promise<number> {
  // A UTF-16 newline is 0x0A at an even (LE) or odd (BE) offset; checking
  // the parity keeps other characters' bytes from counting.
  const parity = encoding === "utf-16le" ? 0 : encoding === "utf-16be" ? 1 : -1;
  let lines = 0;
  let position = 0;
  let lastNewlineEnd = -1;
  for await (const buffer of file.chunks({ signal, chunkBytes: 1 << 20 })) {
    const read = buffer.length;
    for (let i = 0; i < read; i++) {
      if (buffer[i] !== 0x0a) continue;
      const at = position + i;
      if (parity !== -1 && at % 2 !== parity) continue;
      lines++;
      // Where the newline character ends (UTF-16 LE has its 0x00 after).
      lastNewlineEnd = at + (parity === 0 ? 2 : 1);
    }
    position += read;
  }
  const bomBytes = parity === -1 ? 0 : 2;
  if (position <= bomBytes) return 0;
  return lastNewlineEnd === position ? lines : lines + 1;
}

/** Make the `file_info` tool over `ws`. */
export function fileInfoTool(ws: WorkspaceView): Tool {
  return defineTool({
    name: "file_info",
    title: "File info",
    description:
      "Describe a workspace path without reading it all: type (file, directory, other), size in bytes, last modification time (ISO 8601, left out where the file system has none), MIME type by extension, whether it is text, and for text files the number of lines.",
    inputSchema: {
      type: "object",
      properties: {
        path: {
          type: "string",
          description: "Path relative to the workspace root.",
        },
      },
      required: ["path"],
    },
    outputSchema: {
      type: "object",
      properties: {
        path: { type: "string" },
        type: { type: "string", enum: ["file", "directory", "other"] },
        size: { type: "integer", minimum: 0 },
        modified: { type: "string" },
        mimeType: { type: "string" },
        isText: { type: "boolean" },
        lines: { type: "integer", minimum: 0 },
      },
      required: ["path", "type", "size"],
    },
    annotations: READ_ONLY,
    async run(args, ctx) {
      using target = await ws.open(args.path);
      const info = target.info;
      const data: JsonObject = {
        path: target.relative,
        type: info.isFile ? "file" : info.isDirectory ? "directory" : "other",
        size: info.size,
      };
      // Left out where the file system keeps no modification time.
      if (info.mtime !== null) data.modified = info.mtime.toISOString();
      if (info.isFile) {
        const mimeType = await mimeTypeOf(target.relative);
        if (mimeType !== undefined) data.mimeType = mimeType;
        const head = target.head(SNIFF_BYTES);
        data.isText = isProbablyText(head);
        if (data.isText) {
          data.lines = await countLines(
            target,
            textEncodingOf(head),
            ctx.signal,
          );
        }
      }
      return structuredResult(data);
    },
  });
}
