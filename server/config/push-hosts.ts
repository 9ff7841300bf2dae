/**
 * PUSH_HOSTS, read: the only push services the server may call (server/push/hosts.ts checks every
 * endpoint against them before each connection).
 */

/** Apple's, Google's, Mozilla's and Microsoft's push services, as browsers' endpoints name them. */
export const DEFAULT_PUSH_HOSTS = 'web.push.apple.com, fcm.googleapis.com, updates.push.services.mozilla.com, *.notify.windows.com';

export interface PushHost {
  /** The host name (lower case), or for a wildcard the part after `*.`. */
  name: string;
  /** `*.name`: any host under `name` (one label or more), never `name` itself. */
  wildcard: boolean;
  port: number;
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** A dotted IPv4 address (never matched by a wildcard). */
export const isIpv4 = (name: string) => IPV4.test(name) && name.split('.').every((n) => Number(n) <= 255);
const isDnsName = (name: string) => name.length <= 253 && name.split('.').every((label) => LABEL.test(label)) && !/^\d+$/.test(name.split('.').at(-1)!);

/**
 * PUSH_HOSTS: hosts or host:port, comma-separated; a host may start with `*.` (a whole leading label:
 * any host under the rest, which must have two labels at least, so `*.com` is refused). A port left
 * out is 443. IPv4 addresses are taken as written (a test's loopback stand-in); never as a wildcard.
 */
export function parsePushHosts(raw: string): PushHost[] {
  const entries = raw
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (entries.length === 0) throw new Error('PUSH_HOSTS names no host: list the push services (host or host:port, comma-separated), or set PUSH=off');
  return entries.map((entry) => {
    const match = /^(\*\.)?([^:*]+)(?::(\d{1,5}))?$/.exec(entry);
    const port = match?.[3] === undefined ? 443 : Number(match[3]);
    const wildcard = match?.[1] !== undefined;
    const name = match?.[2] ?? '';
    const valid = match && port >= 1 && port <= 65535 && (wildcard ? isDnsName(name) && name.split('.').length >= 2 : isDnsName(name) || isIpv4(name));
    if (!valid) {
      throw new Error(`PUSH_HOSTS must list host names or host:port (a wildcard only as a leading '*.' over two labels or more), got '${entry}'`);
    }
    return { name, wildcard, port };
  });
}
