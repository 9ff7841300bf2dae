/**
 * The page's one client for the server's JSON API (the recorder, the keepsake and the installed
 * app's list). No React:
 * each function returns the answer as data, so a hook only decides what the person sees.
 */
import { linkUrl, takePrefetchedLink } from './linkPrefetch.js';
import type { HomeScreenLinks } from './shared/homeScreenApi.js';
import type { LinkInfo } from './shared/notes.js';
import type { PushState, PushSubscribe } from './shared/pushApi.js';
import type { Keepsake, NoteHeard } from './shared/runnerApi.js';
import { notePath } from './shared/uploadProtocol.js';

/**
 * PUT /api/r/:token/notes/:id: the page's note upload, handed to the outbox's replay
 * (src/shared/outbox/replay.ts), which owns the request and what each answer means.
 */
export { xhrTransport as uploadNote } from './xhrTransport.js';

export type ApiAnswer<T> =
  | { ok: true; value: T }
  /** 404: the server does not know this link, note or share (or no longer). */
  | { ok: false; reason: 'not-found' }
  /** No answer (offline, server down) or one we cannot use (a 5xx, a proxy's page). */
  | { ok: false; reason: 'unreachable' };

/** `started`: the same request, already under way (the shell's, src/linkPrefetch.ts). */
async function getJson<T>(path: string, init: RequestInit = {}, started?: Promise<Response>): Promise<ApiAnswer<T>> {
  try {
    const response = await (started ?? fetch(path, { ...init, headers: { Accept: 'application/json' } }));
    if (!response.ok) {
      // The error's body is not read: let it go, or the request stays open in the browser.
      void response.body?.cancel().catch(() => undefined);
      return { ok: false, reason: response.status === 404 ? 'not-found' : 'unreachable' };
    }
    return { ok: true, value: (await response.json()) as T };
  } catch {
    // fetch rejects only when no answer came; json() when the body is not JSON.
    return { ok: false, reason: 'unreachable' };
  }
}

const part = encodeURIComponent;

/** GET /api/r/:token: the runner, race and markers of a recorder link; the shell's request when it started one. */
export function getLink(token: string): Promise<ApiAnswer<LinkInfo>> {
  return getJson(linkUrl(token), {}, takePrefetchedLink(token));
}

/** GET /api/r/:token/notes/:id/status: where the runner heard a note, if they have. */
export function getNoteHeard(token: string, noteId: string): Promise<ApiAnswer<NoteHeard>> {
  return getJson(`${notePath(token, noteId)}/status`, { cache: 'no-store' });
}

/** GET /api/s/:token: the notes a runner chose to share. */
export function getKeepsake(token: string): Promise<ApiAnswer<Keepsake>> {
  return getJson(`/api/s/${part(token)}`);
}

/**
 * GET /api/device/links: the runners this phone opened, found by its device cookie (HttpOnly, sent
 * by the browser; the page never sees it). Empty without one.
 */
export function getHomeScreenLinks(): Promise<ApiAnswer<HomeScreenLinks>> {
  return getJson('/api/device/links', { cache: 'no-store', credentials: 'same-origin' });
}

/** DELETE /api/device/links/:linkId: takes a runner off this phone's list. True once the server no longer lists it. */
export async function forgetHomeScreenLink(linkId: string): Promise<boolean> {
  try {
    const response = await fetch(`/api/device/links/${part(linkId)}`, { method: 'DELETE', credentials: 'same-origin' });
    void response.body?.cancel().catch(() => undefined);
    // 404: it was not on the list (taken off before, from another tab): off it all the same.
    return response.ok || response.status === 404;
  } catch {
    return false;
  }
}

/** A push route's answer (issue 36): its value, or the refusal's code (none: no answer we can use). */
export type PushAnswer<T> = { ok: true; value: T } | { ok: false; code: string | undefined };

async function sendJson<T>(path: string, method: string, body?: unknown): Promise<PushAnswer<T>> {
  try {
    const response = await fetch(path, {
      method,
      cache: 'no-store',
      headers: { Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (response.status === 204) return { ok: true, value: undefined as T };
    const json = (await response.json().catch(() => undefined)) as { error?: unknown } | undefined;
    if (!response.ok) return { ok: false, code: typeof json?.error === 'string' ? json.error : undefined };
    return json === undefined ? { ok: false, code: undefined } : { ok: true, value: json as T };
  } catch {
    return { ok: false, code: undefined };
  }
}

const pushPath = (token: string) => `/api/r/${part(token)}/push`;

/** GET /api/r/:token/push: this phone's notifications on the link, and the key to subscribe with. */
export const getPushState = (token: string) => sendJson<PushState>(pushPath(token), 'GET');
/** PUT /api/r/:token/push: this browser's subscription, for this phone on the link. */
export const subscribePush = (token: string, body: PushSubscribe) => sendJson<PushState>(pushPath(token), 'PUT', body);
/** DELETE /api/r/:token/push: this phone's notifications on the link off. */
export const unsubscribePush = (token: string) => sendJson<undefined>(pushPath(token), 'DELETE');
/** PUT /api/r/:token/push/alerts/:marker: told once when the runner is about ten minutes from the marker. */
export const addMarkerAlert = (token: string, marker: string) => sendJson<PushState>(`${pushPath(token)}/alerts/${part(marker)}`, 'PUT');
/** DELETE /api/r/:token/push/alerts/:marker. */
export const removeMarkerAlert = (token: string, marker: string) => sendJson<undefined>(`${pushPath(token)}/alerts/${part(marker)}`, 'DELETE');
