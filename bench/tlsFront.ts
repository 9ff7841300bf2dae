/**
 * The TLS front a phone meets: Debian's Caddy on loopback, one listener per route, each a reverse
 * proxy to a server on plain HTTP, speaking HTTP/2 (with HTTP/1.1 beside it, as browsers expect)
 * or HTTP/1.1 only. Certificates come from Caddy's own local CA (`tls internal`), a leaf and an
 * intermediate as a public CA's chain has; Chromium is told to accept them by their keys' hashes.
 * Caddy's admin API is off, so several fronts (and other engineers' Caddies) run side by side.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
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

const CADDY = process.env.CADDY_PATH ?? 'caddy';
/** What Caddy negotiates (ALPN) when a client offers both. */
const NEGOTIATED: Record<Protocols, string> = { h2: 'h2', h1: 'http/1.1' };

function caddyfile(routes: TlsRoute[], ports: number[]): string {
  const servers = routes.map((r, i) => `\tservers 127.0.0.1:${ports[i]} {\n\t\tprotocols ${r.protocols === 'h2' ? 'h1 h2' : 'h1'}\n\t}`);
  const sites = routes.map((r, i) => `https://${FRONT_HOST}:${ports[i]} {\n\tbind 127.0.0.1\n\ttls internal\n\treverse_proxy 127.0.0.1:${r.upstreamPort}\n}`);
  // No admin endpoint (its fixed port would clash), no HTTP listener for redirects, and the local
  // CA stays out of the machine's trust store.
  return `{\n\tadmin off\n\tauto_https disable_redirects\n\tskip_install_trust\n${servers.join('\n')}\n}\n${sites.join('\n')}\n`;
}

/** Base64 SHA-256 of a certificate's SubjectPublicKeyInfo: what --ignore-certificate-errors-spki-list takes. */
export function spkiHash(pem: string): string {
  const spki = new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('base64');
}

/**
 * Resolves once Caddy says it serves its configuration and holds the certificate (its local CA
 * issues it just after it starts serving); rejects with its output if it exits first.
 */
function serving(child: ChildProcess, output: () => string): Promise<void> {
  const ready = ['"serving initial configuration"', '"certificate obtained successfully"'];
  return new Promise((resolve, reject) => {
    const onData = () => ready.every((line) => output().includes(line)) && done(resolve);
    const onExit = (code: number | null) => done(() => reject(new Error(`caddy exited with ${code}:\n${output()}`)));
    const onError = (error: Error) =>
      done(() => reject(new Error(`caddy could not be started (${error.message}): install Debian's caddy (apt-get install caddy) or set CADDY_PATH`)));
    const done = (settle: () => void) => {
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
      settle();
    };
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

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
  const dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-bench-caddy-'));
  const ports = await Promise.all(routes.map(() => freePort()));
  const config = path.join(dir, 'Caddyfile');
  await writeFile(config, caddyfile(routes, ports));
  const env = { ...process.env, HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), XDG_CONFIG_HOME: path.join(dir, 'config') };
  const child = spawn(CADDY, ['run', '--config', config, '--adapter', 'caddyfile'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.on('data', (d: Buffer) => (log = (log + String(d)).slice(-20_000)));
  // A bench that fails exits at once: Caddy must not outlive it, holding its ports.
  const killOnExit = () => {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', killOnExit);
  const stop = async () => {
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await serving(child, () => log);
    const pki = path.join(dir, 'data', 'caddy', 'pki', 'authorities', 'local');
    const [root, intermediate] = await Promise.all([readFile(path.join(pki, 'root.crt'), 'utf8'), readFile(path.join(pki, 'intermediate.crt'), 'utf8')]);
    for (const [i, route] of routes.entries()) await checkRoute(ports[i]!, route.protocols, root);
    return {
      ports,
      chromiumArgs: [`--ignore-certificate-errors-spki-list=${spkiHash(intermediate)}`, `--host-resolver-rules=MAP ${FRONT_HOST} 127.0.0.1`],
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Starts one Caddy serving every route. A port taken by someone else before Caddy bound it means a new start on other ports. */
export async function startTlsFront(routes: TlsRoute[]): Promise<TlsFront> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(routes);
    } catch (error) {
      if (attempt >= 3 || !/address already in use/.test(String(error))) throw error;
    }
  }
}
