/**
 * The floor: the least a Deno program can do to answer newline-delimited
 * JSON-RPC on stdio. It reads stdin as it comes, parses each line and answers
 * every message that has an id with an empty result. Not a strawman: the
 * answers to one input chunk go out in one write, the way a competent
 * minimal server would do it.
 *
 * The bench measures shipcode-mcp against this loop.
 *
 * @module
 */

const decoder = new TextDecoder();
const encoder = new TextEncoder();
let rest = "";

async function writeAll(bytes: Uint8Array): Promise<void> {
  while (bytes.length > 0) {
    bytes = bytes.subarray(await Deno.stdout.write(bytes));
  }
}

for await (const chunk of Deno.stdin.readable) {
  const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
  rest = lines.pop() ?? "";
  let out = "";
  for (const line of lines) {
    if (line.trim() === "") continue;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      out +=
        '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}\n';
      continue;
    }
    if (message?.id !== undefined) {
      out += '{"jsonrpc":"2.0","id":' + JSON.stringify(message.id) +
        ',"result":{}}\n';
    }
  }
  if (out !== "") await writeAll(encoder.encode(out));
}
