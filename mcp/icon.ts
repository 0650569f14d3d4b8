/**
 * Icons (MCP 2025-11-25): images a client may show beside a server, tool,
 * prompt, resource or template. Older protocol versions never see them
 * (`protocol_versions.ts` trims them).
 *
 * @module
 */

/** One icon, as the MCP specification defines it. */
export interface Icon {
  /** An `https:` URL or a `data:` URI of the image. */
  src: string;
  /** Its MIME type, when the source does not say it well. */
  mimeType?: string;
  /** Sizes it suits, such as `["48x48"]`, or `["any"]` for SVG. */
  sizes?: string[];
  /** The theme it is drawn for. */
  theme?: "light" | "dark";
}
