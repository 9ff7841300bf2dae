/**
 * When a held sync request was woken by a change (a note stored, converted or removed), kept on
 * the request so the metrics can time the answer from that moment (milenotes_sync_wake_seconds):
 * how long after a note was stored, or became playable, the phone waiting for it got the answer,
 * the figure race morning under load is judged by. The route marks; the metrics read; neither knows the other.
 */
import type { FastifyRequest } from 'fastify';

const wokenAt = new WeakMap<FastifyRequest, number>();

/**
 * The held request `req` is answered for a change that woke it at `at` (performance.now()). Only
 * a wake that brings the answer is marked: one that held on (until=playable, a note only
 * received) and then waited out its time is not a phone learning of a change late.
 */
export const markWoken = (req: FastifyRequest, at: number): void => void wokenAt.set(req, at);

/** Seconds from the wake to now, or undefined for a request no change woke. */
export function secondsSinceWoken(req: FastifyRequest): number | undefined {
  const at = wokenAt.get(req);
  return at === undefined ? undefined : (performance.now() - at) / 1000;
}
