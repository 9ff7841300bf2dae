/**
 * Starts a throwaway PostgreSQL cluster on loopback for the server tests and hands its URL to
 * them (inject('pgAdminUrl')). PostgreSQL missing is a failure, never a skip: CI installs it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort } from '../../kit/freePort.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser URL of the test cluster; each test file creates its own database in it. */
    pgAdminUrl: string;
  }
}

const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** PostgreSQL refuses to run as root, so as root we run its tools as the postgres user. */
function runPg(tool: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(PG_BIN, tool), ...args]] : [path.join(PG_BIN, tool), args];
  const result = spawnSync(cmd, argv, { encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`${tool} failed (exit ${result.status}): ${result.error?.message ?? ''}\n${result.stdout}\n${result.stderr}`);
  }
}

export default async function setup(project: TestProject) {
  if (!existsSync(path.join(PG_BIN, 'pg_ctl'))) {
    throw new Error(
      `PostgreSQL is needed by the server tests but ${PG_BIN}/pg_ctl is missing. ` +
        'Install it (apt-get install postgresql) or point PG_BIN at its bin folder.',
    );
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'milenotes-pg-'));
  chmodSync(dir, 0o777);
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres:postgres', dir]);
  const dataDir = path.join(dir, 'data');
  const port = await freePort();

  runPg('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  // fsync off: this cluster is thrown away; durability of PostgreSQL itself is not under test.
  runPg('pg_ctl', ['-D', dataDir, '-l', path.join(dir, 'server.log'), '-w', '-t', '30',
    '-o', `-p ${port} -k ${dir} -h 127.0.0.1 -c fsync=off -c max_connections=200`, 'start']);

  project.provide('pgAdminUrl', `postgres://postgres@127.0.0.1:${port}/postgres`);

  return () => {
    try {
      runPg('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}
