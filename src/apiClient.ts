/**
 * The pages' client for the server's JSON API: the recorder's and the keepsake's requests, and the
 * JSON answer's reading (getJson) every client shares. The push routes' client is the later chunk's
 * (src/recorder/push/pushClient.ts), the installed app's list the home screen's
 * (src/homeScreen/linksClient.ts): neither is on a first visit's path to Record. No React:
 * each function returns the answer as data, so a hook only decides what the person sees.
 */
import { takePrefetchedLink } from './linkPrefetch.js';
import type { LinkInfo } from './outbox/notes.js';
import type { Keepsake, NoteHeard } from '../contract/runnerApi.js';
import { keepsakeApiPath, linkApiPath, noteStatusPath } from '../contract/paths.js';
import { readRefusal } from '../contract/refusalsReader.js';

/**
 * PUT /api/r/:token/notes/:id: the page's note upload, handed to the outbox's replay
 * (src/outbox/replay.ts), which owns the request and what each answer means.
 */
export { xhrTransport as uploadNote } from './xhrTransport.js';

export type ApiAnswer<T> =
  | { ok: true; value: T }
  /** 404: the server does not know this link, note or share (or no longer). `code`: the refusal's, when the server gave one. */
  | { ok: false; reason: 'not-found'; code?: string }
  /** No answer (offline, server down) or one we cannot use (a 5xx, a proxy's page). */
  | { ok: false; reason: 'unreachable'; code?: string };

/** An error answer as the one reader (contract/refusalsReader.ts) reads it; a body that cannot be read reads as none. */
async function refusalOf(response: Response) {
  return readRefusal(response.status, await response.text().catch(() => undefined), response.headers.get('retry-after'));
}

/** `started`: the same request, already under way (the shell's, src/linkPrefetch.ts). */
export async function getJson<T>(path: string, init: RequestInit = {}, started?: Promise<Response>): Promise<ApiAnswer<T>> {
  try {
    const response = await (started ?? fetch(path, { ...init, headers: { Accept: 'application/json' } }));
    if (!response.ok) {
      const { status, code } = await refusalOf(response);
      return { ok: false, reason: status === 404 ? 'not-found' : 'unreachable', ...(code && { code }) };
    }
    return { ok: true, value: (await response.json()) as T };
  } catch {
    // fetch rejects only when no answer came; json() when the body is not JSON.
    return { ok: false, reason: 'unreachable' };
  }
}

/** GET /api/r/:token: the runner, race and markers of a recorder link; the shell's request when it started one. */
export function getLink(token: string): Promise<ApiAnswer<LinkInfo>> {
  return getJson(linkApiPath(token), {}, takePrefetchedLink(token));
}

/** GET /api/r/:token/notes/:id/status: where the runner heard a note, if they have. */
export function getNoteHeard(token: string, noteId: string): Promise<ApiAnswer<NoteHeard>> {
  return getJson(noteStatusPath(token, noteId), { cache: 'no-store' });
}

/** GET /api/s/:token: the notes a runner chose to share. */
export function getKeepsake(token: string): Promise<ApiAnswer<Keepsake>> {
  return getJson(keepsakeApiPath(token));
}
