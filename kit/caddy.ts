/**
 * The production front (deploy/Caddyfile, run by Debian's caddy) on loopback, for the tests and the
 * bench: the very file operators run, its settings given as they give them (environment variables),
 * with Caddy's own CA (`tls internal`) instead of a public one. Caddy keeps its CA, certificate and
 * config in a temporary folder of its own (never the user's home), listens on 127.0.0.1 only, and
 * its admin endpoint is off, so it collides with no other Caddy on the machine.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { freePort } from './freePort.js';
import { root, stopProcess } from './serverProcess.js';
import { type RunningServer, startServer } from './server.js';

export const CADDYFILE = path.join(root, 'deploy', 'Caddyfile');

/** The host the front's certificate names, and the address browsers open. */
const HOST = 'localhost';

export interface RunningFront {
  /** https://localhost:<port> */
  url: string;
  port: number;
  /** The root certificate of Caddy's CA (PEM), which Node clients trust with `ca`, and its file. */
  caPem: string;
  caFile: string;
  /** Chromium's flag trusting this front's certificate for the browser's run (a browser takes no CA on its command line). */
  chromiumArgs: string[];
  /** What Caddy has written (its log, JSON lines), for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

export interface FrontOptions {
  /** The servers' host:port, as UPSTREAMS names them. */
  upstreams: string[];
  /** The HTTPS port; a free one when not given. */
  port?: number;
  withinMs?: number;
}

/** Base64 SHA-256 of the certificate's SubjectPublicKeyInfo: what --ignore-certificate-errors-spki-list takes. */
function spkiHash(der: Buffer): string {
  const spki = new X509Certificate(der).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('base64');
}

/** The certificate the front serves, once a handshake checked against its CA succeeds; undefined while it has none. */
function servedCertificate(port: number, ca: string): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: HOST, ca, ALPNProtocols: ['h2', 'http/1.1'] }, () => {
      const raw = socket.getPeerCertificate().raw;
      socket.destroy();
      resolve(raw);
    });
    socket.once('error', () => resolve(undefined));
    socket.setTimeout(2_000, () => {
      socket.destroy();
      resolve(undefined);
    });
  });
}

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/**
 * Starts Caddy on deploy/Caddyfile and waits until it serves its certificate for localhost (Caddy
 * issues it from its CA a moment after it starts). A start that fails leaves no process or folder.
 */
export async function startFront({ upstreams, port: asked, withinMs = 30_000 }: FrontOptions): Promise<RunningFront> {
  const port = asked ?? (await freePort());
  const dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-caddy-'));
  // Only what the Caddyfile reads, and where Caddy keeps its files: nothing of this process's settings leaks in.
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    XDG_DATA_HOME: path.join(dir, 'data'),
    XDG_CONFIG_HOME: path.join(dir, 'config'),
    SITE_ADDRESS: `${HOST}:${port}`,
    UPSTREAMS: upstreams.join(' '),
    TLS_ISSUER: 'internal',
    CADDY_ADMIN: 'off',
    HTTP_PORT: String(await freePort()),
    BIND_HOSTS: '127.0.0.1',
  };
  const child = spawn('caddy', ['run', '--config', CADDYFILE, '--adapter', 'caddyfile'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (d: Buffer) => (log = (log + String(d)).slice(-20_000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const spawned = new Promise<Error | undefined>((resolve) => {
    child.once('spawn', () => resolve(undefined));
    child.once('error', resolve);
  });
  const fail = async (why: string) => {
    await stopProcess(child, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
    return new Error(`Caddy ${why}:\n${log}`);
  };
  const notStarted = await spawned;
  if (notStarted) throw await fail(`could not start (is Debian's caddy package installed?): ${notStarted.message}`);

  const caFile = path.join(env.XDG_DATA_HOME, 'caddy', 'pki', 'authorities', 'local', 'root.crt');
  const deadline = Date.now() + withinMs;
  let caPem = '';
  let served: Buffer | undefined;
  while (!served) {
    if (exited(child)) throw await fail(`exited with ${child.exitCode ?? child.signalCode}`);
    if (Date.now() > deadline) throw await fail(`served no certificate for ${HOST}:${port} within ${withinMs / 1000} s`);
    caPem ||= await readFile(caFile, 'utf8').catch(() => '');
    served = caPem ? await servedCertificate(port, caPem) : undefined;
    if (!served) await new Promise((r) => setTimeout(r, 50));
  }

  return {
    url: `https://${HOST}:${port}`,
    port,
    caPem,
    caFile,
    chromiumArgs: [`--ignore-certificate-errors-spki-list=${spkiHash(served)}`],
    output: () => log,
    async stop() {
      // Caddy waits for open connections as it stops; a browser's idle ones are closed at once, and a
      // test that left a request open is not kept waiting past a few seconds.
      const killLater = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await stopProcess(child, 'SIGTERM');
      clearTimeout(killLater);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The real server behind the front, as in production: it trusts the front's forwarded headers
 * (TRUST_PROXY=127.0.0.1) and its links are https://localhost:<the front's port> (PUBLIC_URL).
 * `env`: more of the server's settings. The front's port was free when probed; one taken before
 * Caddy binds it is given up for another, with a server that names it.
 */
export async function startServerBehindFront(env: NodeJS.ProcessEnv = {}): Promise<{ server: RunningServer; front: RunningFront }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const server = await startServer({ TRUST_PROXY: '127.0.0.1', PUBLIC_URL: `https://${HOST}:${port}`, ...env });
    try {
      return { server, front: await startFront({ upstreams: [`127.0.0.1:${server.port}`], port }) };
    } catch (error) {
      await server.stop();
      if (!/address already in use/.test(String(error)) || attempt === 3) throw error;
    }
  }
}
