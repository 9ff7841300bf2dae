/** The device cookie as tests read it from a response (server/devices/cookie.ts). */
import { LOCAL_DEVICE_COOKIE } from '../../../server/devices/cookie.js';

/** The device cookie a response sets (by the name of a plain-HTTP request to this machine unless told), its value and attributes. */
export function deviceCookieOf(setCookie: string | string[] | undefined, name = LOCAL_DEVICE_COOKIE): { value: string; attributes: string[] } | undefined {
  const line = [setCookie ?? []].flat().find((c) => c.startsWith(`${name}=`));
  if (!line) return undefined;
  const [pair, ...attributes] = line.split(';').map((s) => s.trim());
  return { value: pair!.slice(name.length + 1), attributes: attributes.map((a) => a.toLowerCase()) };
}

/** A value this server issues: a random id, a dot, its MAC. */
export const ISSUED = /^[A-Za-z0-9_-]{32}\.[A-Za-z0-9_-]{43}$/;
