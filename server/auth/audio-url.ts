/**
 * Short-lived signed audio URLs: the runner's app hands them to the iOS player, which cannot add
 * a bearer header. The signature binds the note id and the expiry to SESSION_SECRET.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface AudioSignature {
  /** Unix seconds after which the URL is refused. */
  expires: number;
  sig: string;
}

const mac = (secret: Uint8Array, noteId: string, expires: number) =>
  createHmac('sha256', secret).update(`note-audio\n${noteId}\n${expires}`).digest('base64url');

export function signAudio(secret: Uint8Array, noteId: string, ttlSeconds: number, now = Date.now()): AudioSignature {
  const expires = Math.floor(now / 1000) + ttlSeconds;
  return { expires, sig: mac(secret, noteId, expires) };
}

export function audioSignatureValid(secret: Uint8Array, noteId: string, expires: number, sig: string, now = Date.now()): boolean {
  if (!Number.isInteger(expires) || expires * 1000 <= now) return false;
  const expected = Buffer.from(mac(secret, noteId, expires));
  const given = Buffer.from(sig);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
