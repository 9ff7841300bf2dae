/**
 * The TLS front a phone meets: Debian's Caddy on loopback, one listener per route, each a reverse
 * proxy to a server on plain HTTP, speaking HTTP/2 (with HTTP/1.1 beside it, as browsers expect)
 * or HTTP/1.1 only. Certificates come from Caddy's own local CA (`tls internal`), a leaf and an
 * intermediate as a public CA's chain has; Chromium is told to accept them by their keys' hashes.
 * Caddy's admin API is off, so several fronts (and other engineers' Caddies) run side by side.
 * Caddy itself is started, watched and stopped by kit/caddy.ts; what is this file's own is its Caddyfile.
 */
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import https from 'node:https';
import tls from 'node:tls';
import { onFreePorts, spkiHash, startCaddy } from '../kit/caddy.js';
import { freePort } from '../kit/freePort.js';

/** The name the browser asks for; Chromium maps it to loopback (chromiumTlsArgs). */
export const FRONT_HOST = 'milenotes.test';

export type Protocols = 'h2' | 'h1';

export interface TlsRoute {
  /** The plain-HTTP server behind the front. */
  upstreamPort: number;
  /** 'h2': HTTP/2 offered first, HTTP/1.1 beside it; 'h1': HTTP/1.1 only. */
  protocols: Protocols;
}

export interface TlsFront {
  /** The front's port for each route, in the order given. */
  ports: number[];
  /** Chromium flags that trust this front's certificates and resolve FRONT_HOST to loopback. */
  chromiumArgs: string[];
  stop(): Promise<void>;
}

/** What Caddy negotiates (ALPN) when a client offers both. */
const NEGOTIATED: Record<Protocols, string> = { h2: 'h2', h1: 'http/1.1' };

function caddyfile(routes: TlsRoute[], ports: number[]): string {
  const servers = routes.map((r, i) => `\tservers 127.0.0.1:${ports[i]} {\n\t\tprotocols ${r.protocols === 'h2' ? 'h1 h2' : 'h1'}\n\t}`);
  const sites = routes.map((r, i) => `https://${FRONT_HOST}:${ports[i]} {\n\tbind 127.0.0.1\n\ttls internal\n\treverse_proxy 127.0.0.1:${r.upstreamPort}\n}`);
  // No admin endpoint (its fixed port would clash), no HTTP listener for redirects, and the local
  // CA stays out of the machine's trust store.
  return `{\n\tadmin off\n\tauto_https disable_redirects\n\tskip_install_trust\n${servers.join('\n')}\n}\n${sites.join('\n')}\n`;
}

/** Caddy's lines saying it serves its configuration and holds the certificate (its local CA issues it just after it starts serving). */
const READY = ['"serving initial configuration"', '"certificate obtained successfully"'];

/** Checks a route end to end: the protocol it negotiates, and /healthz answered through it. */
async function checkRoute(port: number, protocols: Protocols, ca: string): Promise<void> {
  const socket = tls.connect({ host: '127.0.0.1', port, servername: FRONT_HOST, ca, ALPNProtocols: ['h2', 'http/1.1'] });
  await once(socket, 'secureConnect');
  const alpn = socket.alpnProtocol;
  socket.destroy();
  if (alpn !== NEGOTIATED[protocols]) throw new Error(`the ${protocols} front on ${port} negotiated ${alpn}, not ${NEGOTIATED[protocols]}`);
  const status = await new Promise<number | undefined>((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', port, servername: FRONT_HOST, headers: { host: FRONT_HOST }, ca, path: '/healthz' }, (res) => {
        res.resume();
        resolve(res.statusCode);
      })
      .on('error', reject);
  });
  if (status !== 200) throw new Error(`/healthz through the ${protocols} front on ${port} answered ${status}`);
}

async function startOnce(routes: TlsRoute[]): Promise<TlsFront> {
  const ports = await Promise.all(routes.map(() => freePort()));
  const caddy = await startCaddy({
    caddyfile: { text: caddyfile(routes, ports) },
    prefix: 'milenotes-bench-caddy-',
    waitingFor: 'serving its configuration with a certificate',
    ready: async ({ output }) => READY.every((line) => output().includes(line)) || undefined,
  });
  try {
    const [root, intermediate] = await Promise.all([readFile(caddy.ca.root, 'utf8'), readFile(caddy.ca.intermediate, 'utf8')]);
    for (const [i, route] of routes.entries()) await checkRoute(ports[i]!, route.protocols, root);
    return {
      ports,
      chromiumArgs: [`--ignore-certificate-errors-spki-list=${spkiHash(intermediate)}`, `--host-resolver-rules=MAP ${FRONT_HOST} 127.0.0.1`],
      stop: caddy.stop,
    };
  } catch (error) {
    await caddy.stop();
    throw error;
  }
}

/** Starts one Caddy serving every route. A port taken by someone else before Caddy bound it means a new start on other ports. */
export function startTlsFront(routes: TlsRoute[]): Promise<TlsFront> {
  return onFreePorts(() => startOnce(routes));
}
