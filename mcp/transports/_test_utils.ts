/**
 * Helpers shared by the transport tests that talk raw HTTP over a socket.
 *
 * @module
 */

/** What `conn` receives until `done` says the text so far is complete (or the end). */
export async function readUntil(
  conn: Deno.Conn,
  done: (text: string) => boolean,
): Promise<string> {
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(4096);
  let text = "";
  while (!done(text)) {
    const read = await conn.read(buffer);
    if (read === null) break;
    text += decoder.decode(buffer.subarray(0, read), { stream: true });
  }
  return text;
}
