/**
 * Which push services the server may call (PUSH_HOSTS). A subscription's endpoint is a URL a page
 * hands us: without this list, "subscribe" would make the server POST to any address a link holder
 * chooses. So an endpoint must be HTTPS to a listed host (and port), with no user or password, and is
 * checked before every connection, not only when it is saved (the list may have changed since).
 */

/** Apple's, Google's, Mozilla's and Microsoft's push services, as browsers' endpoints name them (FIELD-NOTES.md). */
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

const isIpv4 = (name: string) => IPV4.test(name) && name.split('.').every((n) => Number(n) <= 255);
const isDnsName = (name: string) => name.length <= 253 && name.split('.').every((label) => LABEL.test(label)) && !/^\d+$/.test(name.split('.').at(-1)!);

/**
 * PUSH_HOSTS: hosts or host:port, comma-separated; a host may start with `*.` (a whole leading label:
 * any host under the rest, which must have two labels at least, so `*.com` is refused). A port left
 * out is 443. IPv4 addresses are taken as written (a test's loopback stand-in); never as a wildcard.
 */
export function parsePushHosts(raw: string): PushHost[] {
  const entries = raw.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  if (entries.length === 0) throw new Error('PUSH_HOSTS names no host: list the push services (host or host:port, comma-separated), or set PUSH=off');
  return entries.map((entry) => {
    const match = /^(\*\.)?([^:*]+)(?::(\d{1,5}))?$/.exec(entry);
    const port = match?.[3] === undefined ? 443 : Number(match[3]);
    const wildcard = match?.[1] !== undefined;
    const name = match?.[2] ?? '';
    const valid = match && port >= 1 && port <= 65535 &&
      (wildcard ? isDnsName(name) && name.split('.').length >= 2 : isDnsName(name) || isIpv4(name));
    if (!valid) {
      throw new Error(`PUSH_HOSTS must list host names or host:port (a wildcard only as a leading '*.' over two labels or more), got '${entry}'`);
    }
    return { name, wildcard, port };
  });
}

/** Why an endpoint is refused, or undefined when the server may POST to it. */
export type EndpointProblem = 'not_a_url' | 'not_https' | 'has_credentials' | 'host_not_allowed';

function hostAllowed(hosts: readonly PushHost[], hostname: string, port: number): boolean {
  return hosts.some((h) => h.port === port && (h.wildcard
    ? hostname.endsWith(`.${h.name}`) && hostname.length > h.name.length + 1 && !isIpv4(hostname)
    : hostname === h.name));
}

/** The endpoint as the sender will use it (WHATWG URL), or why it may not be called. */
export function checkEndpoint(hosts: readonly PushHost[], endpoint: string): { url: URL } | { problem: EndpointProblem } {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return { problem: 'not_a_url' };
  }
  if (url.protocol !== 'https:') return { problem: 'not_https' };
  if (url.username !== '' || url.password !== '') return { problem: 'has_credentials' };
  // A trailing dot names the same host to DNS; it must not slip past the list either way.
  const hostname = url.hostname.replace(/\.$/, '');
  const port = url.port === '' ? 443 : Number(url.port);
  return hostAllowed(hosts, hostname, port) ? { url } : { problem: 'host_not_allowed' };
}
