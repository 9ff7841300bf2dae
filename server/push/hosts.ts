/**
 * Which push services the server may call (PUSH_HOSTS). A subscription's endpoint is a URL a page
 * hands us: without this list, "subscribe" would make the server POST to any address a link holder
 * chooses. So an endpoint must be HTTPS to a listed host (and port), with no user or password, and is
 * checked before every connection, not only when it is saved (the list may have changed since).
 */

import { isIpv4, type PushHost } from '../config/push-hosts.js';

/** Why an endpoint is refused, or undefined when the server may POST to it. */
export type EndpointProblem = 'not_a_url' | 'not_https' | 'has_credentials' | 'host_not_allowed';

function hostAllowed(hosts: readonly PushHost[], hostname: string, port: number): boolean {
  return hosts.some(
    (h) => h.port === port && (h.wildcard ? hostname.endsWith(`.${h.name}`) && hostname.length > h.name.length + 1 && !isIpv4(hostname) : hostname === h.name),
  );
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
