/**
 * When a push the push service could not take now (429, 5xx, no connection) is tried again: after
 * an exponential backoff, never sooner than its Retry-After, at most MAX_ATTEMPTS times and never
 * past the push's own expiry. A Retry-After longer than MAX_RETRY_AFTER_MS is not honoured by
 * waiting: the push is given up, as its news would be stale by then.
 */
export const MAX_ATTEMPTS = 5;
export const BASE_DELAY_MS = 5_000;
export const MAX_RETRY_AFTER_MS = 15 * 60_000;

/** Retry-After as delta-seconds or an HTTP-date (RFC 9110), in ms from `now`; undefined when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now: number): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** When to try again after attempt number `attempts` failed (epoch ms), or undefined to give up. */
export function nextAttemptAt(attempts: number, retryAfter: number | undefined, now: number, expiresAt: number): number | undefined {
  if (attempts >= MAX_ATTEMPTS) return undefined;
  if (retryAfter !== undefined && retryAfter > MAX_RETRY_AFTER_MS) return undefined;
  const backoff = BASE_DELAY_MS * 2 ** (attempts - 1);
  const at = now + Math.max(backoff, retryAfter ?? 0);
  return at > expiresAt ? undefined : at;
}
