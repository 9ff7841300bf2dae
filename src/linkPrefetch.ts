/**
 * The shell asks for the link's data (GET /api/r/<token>) at once, while the recorder's
 * JavaScript is still downloading, so the two travel side by side instead of one after the other
 * on a slow connection. The recorder takes that response when it mounts (getLink in src/apiClient.ts).
 */
const pending = new Map<string, Promise<Response>>();

/** The link's address on the API, the one place the page spells it. */
export const linkUrl = (token: string) => `/api/r/${encodeURIComponent(token)}`;

/**
 * Starts the request for a link's data and reads its body as it arrives (an unread body would
 * hold the connection if the recorder never loads); a failure waits for whoever takes it.
 */
export function prefetchLink(token: string): void {
  const response = fetch(linkUrl(token), { headers: { Accept: 'application/json' } }).then(
    async (r) => new Response(await r.arrayBuffer(), { status: r.status, statusText: r.statusText, headers: r.headers }),
  );
  response.catch(() => undefined);
  pending.set(token, response);
}

/** The response the shell started for this token, handed out once: later loads ask afresh. */
export function takePrefetchedLink(token: string): Promise<Response> | undefined {
  const response = pending.get(token);
  pending.delete(token);
  return response;
}
