/**
 * Owns the device cookie: an opaque random value that names the phone a friend records on (issue
 * 36), so the installed app (which on iPhone starts with the site's cookies and nothing else) finds
 * its runners again, and a heard note is told to the phone that sent it. The database keeps only the
 * value's SHA-256, as it keeps link tokens. HttpOnly (no script reads it), SameSite=Lax, Path=/api
 * (only the API hears it), Secure except over plain HTTP on this machine (development and tests).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const DEVICE_COOKIE = 'mn_device';

/**
 * How long a phone is remembered after it last opened a link: Chromium caps a cookie's life at 400
 * days, and every open of a recorder link sets it again, so a phone in use is never forgotten.
 */
export const DEVICE_COOKIE_DAYS = 400;

/** 24 random bytes = 192 bits, 32 URL-safe characters, as link tokens. */
const VALUE = /^[A-Za-z0-9_-]{32}$/;

const idOfValue = (value: string): string => createHash('sha256').update(`device:${value}`).digest('hex');

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/;

/** The phone's id (the cookie's hash), or undefined when the request carries no well-formed cookie. */
export function deviceIdOf(req: FastifyRequest): string | undefined {
  const value = req.cookies[DEVICE_COOKIE];
  return value !== undefined && VALUE.test(value) ? idOfValue(value) : undefined;
}

/** The phone's id; a phone without the cookie (or with a malformed one) gets a new one. Each call renews its life. */
export function ensureDeviceId(req: FastifyRequest, reply: FastifyReply): string {
  let value = req.cookies[DEVICE_COOKIE];
  if (value === undefined || !VALUE.test(value)) value = randomBytes(24).toString('base64url');
  setDeviceCookie(req, reply, value);
  return idOfValue(value);
}

/**
 * The phone's id when it carries a well-formed cookie, whose life then starts again (the installed
 * app's list is use too, so a phone that only opens the app is not forgotten); undefined, and no
 * cookie given, otherwise.
 */
export function renewDeviceCookie(req: FastifyRequest, reply: FastifyReply): string | undefined {
  const value = req.cookies[DEVICE_COOKIE];
  if (value === undefined || !VALUE.test(value)) return undefined;
  setDeviceCookie(req, reply, value);
  return idOfValue(value);
}

function setDeviceCookie(req: FastifyRequest, reply: FastifyReply, value: string): void {
  reply.setCookie(DEVICE_COOKIE, value, {
    path: '/api',
    httpOnly: true,
    sameSite: 'lax',
    secure: req.protocol === 'https' || !LOOPBACK.test(req.hostname.replace(/:\d+$/, '')),
    maxAge: DEVICE_COOKIE_DAYS * 24 * 3600,
  });
}
