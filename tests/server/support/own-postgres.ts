/**
 * A PostgreSQL cluster of one test file's own, which the test stops and starts (pg_ctl) to play a
 * database that goes away: the suite's shared cluster (../globalSetup.ts) serves other files at
 * the same time and must stay up. Made like that one: initdb, trust on loopback, fsync off.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../../kit/freePort.js';

const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

function runPg(tool: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(PG_BIN, tool), ...args]] : [path.join(PG_BIN, tool), args];
  const result = spawnSync(cmd, argv, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${tool} failed (exit ${result.status}): ${result.error?.message ?? ''}\n${result.stdout}\n${result.stderr}`);
}

export interface OwnPostgres {
  /** Its `postgres` database, for the app. */
  url: string;
  /** pg_ctl stop -m fast: open connections are ended (57P01), new ones refused. */
  stop(): void;
  /** pg_ctl start, waiting until it takes connections. */
  start(): void;
  remove(): void;
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'milenotes-own-pg-'));
  chmodSync(dir, 0o777);
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres:postgres', dir]);
  const dataDir = path.join(dir, 'data');
  const port = await freePort();
  runPg('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const start = () => runPg('pg_ctl', ['-D', dataDir, '-l', path.join(dir, 'server.log'), '-w', '-t', '30',
    '-o', `-p ${port} -k ${dir} -h 127.0.0.1 -c fsync=off`, 'start']);
  start();
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
    remove() {
      try {
        if (running) runPg('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
