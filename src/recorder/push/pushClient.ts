/**
 * The push routes' client: this phone's notifications and marker alerts on a link. In
 * the later chunk with the push controls, apart from src/apiClient.ts, so the recorder's chunk
 * does not carry it.
 */
import { pushAlertPath, pushPath } from '../../../contract/paths.js';
import type { PushState, PushSubscribe } from '../../../contract/pushApi.js';
import { readRefusal } from '../../../contract/refusalsReader.js';

/** A push route's answer: its value, or the refusal's code (none: no answer we can use) and when to try again (seconds). */
export type PushAnswer<T> = { ok: true; value: T } | { ok: false; code: string | undefined; retryAfter?: number };

async function sendJson<T>(path: string, method: string, body?: unknown): Promise<PushAnswer<T>> {
  try {
    const response = await fetch(path, {
      method,
      cache: 'no-store',
      headers: { Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (response.status === 204) return { ok: true, value: undefined as T };
    const json: unknown = await response.json().catch(() => undefined);
    if (!response.ok) {
      const { code, retryAfterSeconds } = readRefusal(response.status, json, response.headers.get('retry-after'));
      return { ok: false, code, ...(retryAfterSeconds !== undefined && { retryAfter: retryAfterSeconds }) };
    }
    return json === undefined ? { ok: false, code: undefined } : { ok: true, value: json as T };
  } catch {
    return { ok: false, code: undefined };
  }
}

/** GET /api/r/:token/push: this phone's notifications on the link, and the key to subscribe with. */
export const getPushState = (token: string) => sendJson<PushState>(pushPath(token), 'GET');
/** PUT /api/r/:token/push: this browser's subscription, for this phone on the link. */
export const subscribePush = (token: string, body: PushSubscribe) => sendJson<PushState>(pushPath(token), 'PUT', body);
/** DELETE /api/r/:token/push: this phone's notifications on the link off. */
export const unsubscribePush = (token: string) => sendJson<undefined>(pushPath(token), 'DELETE');
/** PUT /api/r/:token/push/alerts/:marker: told once when the runner is about ten minutes from the marker. */
export const addMarkerAlert = (token: string, marker: string) => sendJson<PushState>(pushAlertPath(token, marker), 'PUT');
/** DELETE /api/r/:token/push/alerts/:marker. */
export const removeMarkerAlert = (token: string, marker: string) => sendJson<undefined>(pushAlertPath(token, marker), 'DELETE');
