/**
 * Owns the link's data as /r/:token's HTML carries it: what GET /api/r/:token would
 * answer, status and body, in a `<script type="application/json">` block, so a first visit draws
 * and records with no request before. The server writes it (server/routes/recorder-page.ts), the
 * shell reads it (src/linkPrefetch.ts). A data block is never run, and the CSP has no say on it.
 */
import type { ApiError, RecorderLink } from './api.js';

/** The block's id in the page. */
export const LINK_DATA_ID = 'link-data';

/** The API's answer the page would have had: the link's data, or the link is not (or no longer) there. */
export type LinkData = { status: 200; body: RecorderLink } | { status: 404; body: ApiError };

/**
 * JSON that stays data inside a script element: '<', '>' and '&' are escaped (no `</script>`, no
 * `<!--`), and so are U+2028 and U+2029. Still JSON: JSON.parse reads the same value back.
 */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The block as it goes into the page. */
export const linkDataBlock = (data: LinkData): string => `<script type="application/json" id="${LINK_DATA_ID}">${scriptSafeJson(data)}</script>`;

/** The block the page carries, read once and taken out; undefined when there is none (the worker's shell) or it is not ours. */
export function takeLinkData(doc: { getElementById(id: string): { textContent: string | null; remove(): void } | null }): LinkData | undefined {
  const block = doc.getElementById(LINK_DATA_ID);
  if (!block) return undefined;
  block.remove();
  try {
    const data = JSON.parse(block.textContent ?? '') as LinkData;
    return data && (data.status === 200 || data.status === 404) && typeof data.body === 'object' ? data : undefined;
  } catch {
    return undefined;
  }
}
