/**
 * A throwaway PostgreSQL cluster on loopback: initdb, trust on loopback, fsync off (its durability
 * is not what is measured or tested). The server tests' shared cluster (tests/server/globalSetup.ts)
 * is one; a test file or a bench section that stops and starts its database (pg_ctl) to play one
 * that goes away takes one of its own, since the shared one serves other files at the same time.
 * Each has a guard (./postgres-guard.mjs) that stops it and removes its folder if this process ends
 * first, however it ends: a stopped or killed test run leaves no PostgreSQL behind.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './freePort.js';

export const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** PostgreSQL refuses to run as root, so as root we run its tools as the postgres user. */
function runPg(tool: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(PG_BIN, tool), ...args]] : [path.join(PG_BIN, tool), args];
  const result = spawnSync(cmd, argv, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${tool} failed (exit ${result.status}): ${result.error?.message ?? ''}\n${result.stdout}\n${result.stderr}`);
}

export interface OwnPostgres {
  /** Its `postgres` database (superuser), for the app or for creating more databases in it. */
  url: string;
  /** pg_ctl stop -m fast: open connections are ended (57P01), new ones refused. */
  stop(): void;
  /** pg_ctl start, waiting until it takes connections. */
  start(): void;
  /** Stops it at once if it runs, and removes its folder. */
  remove(): void;
  /** The postmaster's process id (its backends are its children), undefined while it is stopped. */
  pid(): number | undefined;
}

/**
 * `maxConnections`: for a cluster many test files share (PostgreSQL's default is 100). `settings`:
 * more `-c name=value` for the server (a bench loading pg_stat_statements, say).
 */
export async function startOwnPostgres({
  maxConnections,
  settings = {},
}: {
  maxConnections?: number;
  settings?: Record<string, string>;
} = {}): Promise<OwnPostgres> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'milenotes-own-pg-'));
  const dataDir = path.join(dir, 'data');
  const guard = startGuard(dir, dataDir);
  const port = await freePort();
  // Loopback TCP only (-k '': no Unix socket), since a socket's path may be at most 107 bytes and the
  // temp folder it would go in can be deep (npm test's own, inside another's in tests/kit/stopped-run.test.ts).
  const more = Object.entries({ ...(maxConnections && { max_connections: String(maxConnections) }), ...settings }).map(([k, v]) => ` -c ${k}=${v}`);
  const options = `-p ${port} -k '' -h 127.0.0.1 -c fsync=off${more.join('')}`;
  const start = () => runPg('pg_ctl', ['-D', dataDir, '-l', path.join(dir, 'server.log'), '-w', '-t', '30', '-o', options, 'start']);
  try {
    chmodSync(dir, 0o777);
    if (process.getuid?.() === 0) execFileSync('chown', ['postgres:postgres', dir]);
    runPg('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
    start();
  } catch (err) {
    // A cluster that did not start leaves nothing: a start that timed out may have left one running.
    try {
      if (existsSync(path.join(dataDir, 'postmaster.pid'))) runPg('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      guard.release();
    }
    throw err;
  }
  let running = true;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      runPg('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
      running = false;
    },
    start() {
      start();
      running = true;
    },
    pid() {
      if (!running) return undefined;
      const first = readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0];
      return first ? Number(first) : undefined;
    },
    remove() {
      try {
        if (running) runPg('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
        guard.release();
      }
    },
  };
}

/**
 * The cluster's guard, a child in this process's group whose stdin is a pipe only this process holds:
 * it closes when this process ends, and the guard then stops the cluster. Neither the child nor the
 * pipe keeps this process running.
 */
function startGuard(dir: string, dataDir: string): { release(): void } {
  const args = JSON.stringify({ dir, dataDir, pgBin: PG_BIN, asRoot: process.getuid?.() === 0 });
  const child = spawn(process.execPath, [path.join(import.meta.dirname, 'postgres-guard.mjs'), args], { stdio: ['pipe', 'ignore', 'ignore'] });
  child.unref();
  const stdin = child.stdin as NodeJS.WritableStream & { unref?(): void };
  stdin.unref?.();
  return { release: () => stdin.end('removed\n') };
}
