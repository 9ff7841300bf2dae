/**
 * Owns the device cookie: the value that names the phone a friend records on, so the
 * installed app (which on iPhone starts with the site's cookies and nothing else) finds its runners
 * again, and a heard note is told to the phone that sent it.
 *
 * Only this server makes one: the value is a random id and its HMAC under a key derived from
 * SESSION_SECRET, and a value whose MAC does not check is never adopted (the phone is given a new
 * one). Nobody else can set it: over HTTPS it is a `__Host-` cookie (Secure, Path=/, no Domain), so
 * a sibling subdomain, a more specific path, or a response injected over plain HTTP cannot plant
 * one. On plain HTTP to this machine (development, tests) browsers refuse `__Host-` (it needs
 * Secure), so there it is `mn_device_local`, not Secure, Path=/ — nothing else can reach loopback.
 * HttpOnly, SameSite=Lax. The database keeps only the id's SHA-256, as it keeps link tokens.
 *
 * The first device cookie (`mn_device`, Path=/api) took any well-formed value, so one could have been
 * planted: it is never read again and is expired when a phone still sends it.
 */
import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** With an https PUBLIC_URL always; else over HTTPS (directly, or behind TRUST_PROXY with X-Forwarded-Proto: https) or to any other host. */
export const DEVICE_COOKIE = '__Host-mn_device';
/** Over plain HTTP to this machine, where browsers allow no `__Host-` cookie. */
export const LOCAL_DEVICE_COOKIE = 'mn_device_local';
/** The first device cookie: adoptable, hence untrusted; expired when seen. */
export const OLD_DEVICE_COOKIE = 'mn_device';

/**
 * How long a phone is remembered after it was last seen: Chromium caps a cookie's life at 400
 * days, and every open of a recorder link (or of the home screen's list) sets it again.
 */
export const DEVICE_COOKIE_DAYS = 400;

/** 24 random bytes (32 URL-safe characters), a dot, and the id's HMAC-SHA256 (43). */
const VALUE = /^([A-Za-z0-9_-]{32})\.([A-Za-z0-9_-]{43})$/;

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/;

export interface DeviceCookies {
  /** The phone's id when the request carries a cookie this server issued; undefined otherwise. */
  idOf(req: FastifyRequest): string | undefined;
  /** The phone's id when its cookie is ours, whose life then starts again; undefined (no cookie set) otherwise. */
  renew(req: FastifyRequest, reply: FastifyReply): string | undefined;
  /** A new cookie for this phone; its id. */
  issue(req: FastifyRequest, reply: FastifyReply): string;
}

/** Whether this request may carry a `__Host-` cookie: anything but plain HTTP to this machine. */
const secureRequest = (req: FastifyRequest): boolean => req.protocol === 'https' || !LOOPBACK.test(req.hostname.replace(/:\d+$/, ''));

/** Whether PUBLIC_URL is https: then every request is taken as a secure one, whatever reaches the server. */
const httpsSite = (publicUrl: string): boolean => /^https:/i.test(publicUrl);

/** The old cookie, expired whenever a phone sends it, on any request (an onRequest hook under the cookie plugin). */
export function expireOldCookie(req: FastifyRequest, reply: FastifyReply): void {
  if (req.cookies?.[OLD_DEVICE_COOKIE] !== undefined) {
    reply.clearCookie(OLD_DEVICE_COOKIE, { path: '/api', httpOnly: true, sameSite: 'lax', secure: secureRequest(req) });
  }
}

export function createDeviceCookies(sessionSecret: Uint8Array, publicUrl: string): DeviceCookies {
  const secureContext = httpsSite(publicUrl) ? () => true : secureRequest;
  const nameFor = (req: FastifyRequest) => (secureContext(req) ? DEVICE_COOKIE : LOCAL_DEVICE_COOKIE);
  const key = Buffer.from(hkdfSync('sha256', sessionSecret, Buffer.alloc(0), 'milenotes device cookie v2', 32));
  const macOf = (id: string) => createHmac('sha256', key).update(id).digest();
  const idOfValue = (id: string): string => createHash('sha256').update(`device-v2:${id}`).digest('hex');

  /** The random id of a value this server issued, or undefined. */
  function ours(value: string | undefined): string | undefined {
    const match = value === undefined ? null : VALUE.exec(value);
    if (!match) return undefined;
    const given = Buffer.from(match[2]!, 'base64url');
    return given.length === 32 && timingSafeEqual(given, macOf(match[1]!)) ? match[1] : undefined;
  }

  function set(req: FastifyRequest, reply: FastifyReply, id: string): string {
    const secure = secureContext(req);
    reply.setCookie(secure ? DEVICE_COOKIE : LOCAL_DEVICE_COOKIE, `${id}.${macOf(id).toString('base64url')}`, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure,
      maxAge: DEVICE_COOKIE_DAYS * 24 * 3600,
    });
    return idOfValue(id);
  }

  return {
    idOf(req) {
      const id = ours(req.cookies?.[nameFor(req)]);
      return id === undefined ? undefined : idOfValue(id);
    },
    renew(req, reply) {
      const id = ours(req.cookies?.[nameFor(req)]);
      return id === undefined ? undefined : set(req, reply, id);
    },
    issue: (req, reply) => set(req, reply, randomBytes(24).toString('base64url')),
  };
}
