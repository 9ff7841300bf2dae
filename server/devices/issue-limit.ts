/**
 * Owns the bound on new device cookies per client (DEVICE_COOKIES_PER_HOUR): each client (an IPv4
 * address, an IPv6 /64: server/http/client-key.ts) is given at most that many new cookies in a
 * window of an hour, counted in this process's memory as the per-minute limits are (several servers
 * each count their own). Past it no cookie is given, the link still opens: a friend behind a crowded
 * carrier address can still record; only the home screen's list and notifications wait for the
 * next window. Without the bound, inventing phones costs one request each, and invented phones
 * fill a link's phones and its push subscriptions.
 */
import { addressKey } from '../http/client-key.js';

export const ISSUE_WINDOW_MS = 3600_000;

/** Beyond this many clients counted at once, the windows that ended are dropped (memory stays bounded). */
const CLIENTS_MAX = 50_000;

export interface IssueLimit {
  /** Counts one new cookie for the client at `ip`; false (nothing counted) when its hour's budget is spent. */
  take(ip: string, now: number): boolean;
}

export function createIssueLimit(perHour: number): IssueLimit {
  const windows = new Map<string, { start: number; issued: number }>();
  return {
    take(ip, now) {
      const key = addressKey(ip);
      let window = windows.get(key);
      if (window === undefined || now - window.start >= ISSUE_WINDOW_MS) {
        if (windows.size >= CLIENTS_MAX) for (const [k, w] of windows) if (now - w.start >= ISSUE_WINDOW_MS) windows.delete(k);
        // Still full of live windows: a flood of clients; the oldest go rather than the memory.
        if (windows.size >= CLIENTS_MAX) windows.delete(windows.keys().next().value!);
        window = { start: now, issued: 0 };
        windows.set(key, window);
      }
      if (window.issued >= perHour) return false;
      window.issued++;
      return true;
    },
  };
}
