/**
 * Caddy (Debian's caddy, or CADDY_PATH) on loopback for the tests and the bench, and the production
 * front (deploy/Caddyfile) on it: the very file operators run, its settings given as they give them
 * (environment variables), with Caddy's own CA (`tls internal`) instead of a public one. Each Caddy
 * keeps its CA, certificate and config in a temporary folder of its own (never the user's home),
 * listens on 127.0.0.1 only, and its admin endpoint is off, so it collides with no other Caddy on
 * the machine.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { freePort } from './freePort.js';
import { root, stopProcess } from './serverProcess.js';
import { type RunningServer, startServer } from './server.js';

export const CADDYFILE = path.join(root, 'deploy', 'Caddyfile');
const CADDY = process.env.CADDY_PATH ?? 'caddy';

/** The host the front's certificate names, and the address browsers open. */
const HOST = 'localhost';

export interface CaddyOptions<T> {
  /** The Caddyfile: a file's path, or its text (written into Caddy's folder). */
  caddyfile: { path: string } | { text: string };
  /** What the Caddyfile reads from the environment; nothing else of this process's settings leaks in. */
  env?: Record<string, string>;
  /** The temporary folder's name starts with this. */
  prefix: string;
  /**
   * Whether Caddy is ready, asked every 50 ms until it answers something other than undefined
   * (kept as the started Caddy's `ready`), while Caddy runs and for `withinMs` at most.
   */
  ready(caddy: CaddyProcess): Promise<T | undefined>;
  /** What `ready` waits for, for the message when it does not come. */
  waitingFor: string;
  withinMs?: number;
}

export interface CaddyProcess {
  /** What Caddy has written (its log, JSON lines), for failure messages. */
  output(): string;
  /** The files of Caddy's local CA (`tls internal`): its root and intermediate certificates (PEM). */
  ca: { root: string; intermediate: string };
  /** Stops Caddy (SIGKILL if it has not gone within 5 s) and removes its folder. */
  stop(): Promise<void>;
}

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/**
 * Starts Caddy in a temporary folder of its own and waits until `ready` says so. A start that
 * fails leaves no process or folder, and a process that exits without stopping it does not leave
 * Caddy behind holding its ports.
 */
export async function startCaddy<T>(o: CaddyOptions<T>): Promise<CaddyProcess & { ready: T }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), o.prefix));
  const dataHome = path.join(dir, 'data');
  const env = { PATH: process.env.PATH ?? '', HOME: dir, XDG_DATA_HOME: dataHome, XDG_CONFIG_HOME: path.join(dir, 'config'), ...o.env };
  let config: string;
  if ('path' in o.caddyfile) config = o.caddyfile.path;
  else {
    config = path.join(dir, 'Caddyfile');
    await writeFile(config, o.caddyfile.text);
  }
  const child = spawn(CADDY, ['run', '--config', config, '--adapter', 'caddyfile'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (d: Buffer) => (log = (log + String(d)).slice(-20_000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const killOnExit = () => {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', killOnExit);
  const pki = path.join(dataHome, 'caddy', 'pki', 'authorities', 'local');
  const caddy: CaddyProcess = {
    output: () => log,
    ca: { root: path.join(pki, 'root.crt'), intermediate: path.join(pki, 'intermediate.crt') },
    async stop() {
      process.off('exit', killOnExit);
      // Caddy waits for open connections as it stops; a browser's idle ones are closed at once, and
      // a client that left a request open is not kept waiting past a few seconds.
      const killLater = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await stopProcess(child, 'SIGTERM');
      clearTimeout(killLater);
      await rm(dir, { recursive: true, force: true });
    },
  };
  const fail = async (why: string) => {
    process.off('exit', killOnExit);
    await stopProcess(child, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
    return new Error(`Caddy ${why}:\n${log}`);
  };
  const notStarted = await new Promise<Error | undefined>((resolve) => {
    child.once('spawn', () => resolve(undefined));
    child.once('error', resolve);
  });
  if (notStarted) throw await fail(`could not start (install Debian's caddy package, or set CADDY_PATH): ${notStarted.message}`);

  const withinMs = o.withinMs ?? 30_000;
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (exited(child)) throw await fail(`exited with ${child.exitCode ?? child.signalCode}`);
    if (Date.now() > deadline) throw await fail(`${o.waitingFor}: not within ${withinMs / 1000} s`);
    const ready = await o.ready(caddy).catch(async (error: unknown) => {
      throw await fail(`started, but ${error instanceof Error ? error.message : String(error)}`);
    });
    if (ready !== undefined) return { ...caddy, ready };
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A port taken by someone else between the probe and Caddy's bind: `start` again on other ports (three times at most). */
export async function onFreePorts<T>(start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= 3 || !/address already in use/.test(String(error))) throw error;
    }
  }
}

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

/** Base64 SHA-256 of a certificate's SubjectPublicKeyInfo (DER or PEM): what Chromium's --ignore-certificate-errors-spki-list takes. */
export function spkiHash(certificate: Buffer | string): string {
  const spki = new X509Certificate(certificate).publicKey.export({ type: 'spki', format: 'der' });
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

/**
 * Starts Caddy on deploy/Caddyfile and waits until it serves its certificate for localhost (Caddy
 * issues it from its CA a moment after it starts).
 */
export async function startFront({ upstreams, port: asked, withinMs = 30_000 }: FrontOptions): Promise<RunningFront> {
  const port = asked ?? (await freePort());
  let caPem = '';
  const caddy = await startCaddy({
    caddyfile: { path: CADDYFILE },
    prefix: 'milenotes-caddy-',
    env: {
      SITE_ADDRESS: `${HOST}:${port}`,
      UPSTREAMS: upstreams.join(' '),
      TLS_ISSUER: 'internal',
      CADDY_ADMIN: 'off',
      HTTP_PORT: String(await freePort()),
      BIND_HOSTS: '127.0.0.1',
    },
    waitingFor: `a certificate served for ${HOST}:${port}`,
    withinMs,
    async ready({ ca }) {
      caPem ||= await readFile(ca.root, 'utf8').catch(() => '');
      return caPem ? await servedCertificate(port, caPem) : undefined;
    },
  });
  return {
    url: `https://${HOST}:${port}`,
    port,
    caPem,
    caFile: caddy.ca.root,
    chromiumArgs: [`--ignore-certificate-errors-spki-list=${spkiHash(caddy.ready)}`],
    output: caddy.output,
    stop: caddy.stop,
  };
}

/**
 * The real server behind the front, as in production: it trusts the front's forwarded headers
 * (TRUST_PROXY=127.0.0.1) and its links are https://localhost:<the front's port> (PUBLIC_URL).
 * `env`: more of the server's settings. The front's port was free when probed; one taken before
 * Caddy binds it is given up for another, with a server that names it.
 */
export function startServerBehindFront(env: NodeJS.ProcessEnv = {}): Promise<{ server: RunningServer; front: RunningFront }> {
  return onFreePorts(async () => {
    const port = await freePort();
    const server = await startServer({ TRUST_PROXY: '127.0.0.1', PUBLIC_URL: `https://${HOST}:${port}`, ...env });
    try {
      return { server, front: await startFront({ upstreams: [`127.0.0.1:${server.port}`], port }) };
    } catch (error) {
      await server.stop();
      throw error;
    }
  });
}
