/**
 * The link's data for the recorder's first load. The server's page carries it (contract/linkData.ts), so a first visit asks nothing; the worker's shell carries none, and then
 * the shell asks for it (GET /api/r/<token>) at once, while the recorder's JavaScript is still
 * downloading, so the two travel side by side instead of one after the other on a slow connection.
 * The recorder takes that response when it mounts (getLink in src/apiClient.ts).
 */
import type { RecorderLink } from '../contract/api.js';
import { takeLinkData, type LinkData } from '../contract/linkData.js';
import { linkApiPath } from '../contract/paths.js';

/** Per token, how to take the first answer: made when taken, so a carried clock is moved on to that moment. */
const pending = new Map<string, () => Promise<Response>>();
/** Per token, the link's data the page carried, for a screen the server drew with it. */
const carriedData = new Map<string, LinkData>();

/** Milliseconds since the page's first byte came; 0 when unknown. */
function sincePageCame(): number {
  const [nav] = performance.getEntriesByType?.('navigation') ?? [];
  const since = nav ? performance.now() - (nav as PerformanceNavigationTiming).responseStart : 0;
  // A page loads in seconds: more than a minute means a clock that is not the page's own (a test's).
  return since > 0 && since < 60_000 ? since : 0;
}

/**
 * The page's data as the API's answer. Its server clock is moved on by the time since the page's
 * first byte came, so the recorder, which reads it as "the server's time now", keeps in step.
 */
function answerOf(data: LinkData): Response {
  const body = data.status === 200 ? { ...data.body } : data.body;
  const since = sincePageCame();
  if ('clock' in body && body.clock && since > 0) {
    body.clock = { ...body.clock, now: new Date(Date.parse(body.clock.now) + since * body.clock.rate).toISOString() };
  }
  return new Response(JSON.stringify(body), { status: data.status, headers: { 'Content-Type': 'application/json' } });
}

/**
 * Takes the link's data from the page, or starts the request for it and reads its body as it
 * arrives (an unread body would hold the connection if the recorder never loads); a failure waits
 * for whoever takes it.
 */
export function prefetchLink(token: string): void {
  const carried = takeLinkData(document);
  if (carried) {
    pending.set(token, async () => answerOf(carried));
    carriedData.set(token, carried);
    return;
  }
  const response = fetch(linkApiPath(token), { headers: { Accept: 'application/json' } }).then(
    async (r) => new Response(await r.arrayBuffer(), { status: r.status, statusText: r.statusText, headers: r.headers }),
  );
  response.catch(() => undefined);
  pending.set(token, () => response);
}

/** The response the shell started for this token, handed out once: later loads ask afresh. */
export function takePrefetchedLink(token: string): Promise<Response> | undefined {
  const take = pending.get(token);
  pending.delete(token);
  return take?.();
}

/**
 * The link's data the page carried, as the server drew the screen with it (its clock as it was),
 * and the phone's clock when the page came: handed out once, in place of the first answer.
 */
export function takeCarriedLink(token: string): { link: RecorderLink; heardAt: number } | undefined {
  const data = carriedData.get(token);
  carriedData.delete(token);
  if (data?.status !== 200) return undefined;
  pending.delete(token);
  return { link: data.body, heardAt: Date.now() - sincePageCame() };
}
