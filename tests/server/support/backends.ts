/** Test backends: a fresh temp DATA_DIR (SQLite file + disk) or a fresh PostgreSQL database per call. */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { loadConfig, type Config } from '../../../server/config/index.js';

export type BackendKind = 'sqlite' | 'postgres';
export const BACKENDS: BackendKind[] = ['sqlite', 'postgres'];

export interface TestBackend {
  config: Config;
  /** Environment for a child process (server or CLI) using the same data. */
  env: NodeJS.ProcessEnv;
  cleanup(): Promise<void>;
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: inject('pgAdminUrl') });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function createBackend(kind: BackendKind, overrides: NodeJS.ProcessEnv = {}): Promise<TestBackend> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-test-'));
  const env: NodeJS.ProcessEnv = {
    DATA_DIR: dataDir,
    DIST_DIR: path.join(dataDir, 'no-dist'),
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'error',
    CONVERT_WORKER: 'off',
    ...overrides,
  };
  let dbName: string | undefined;
  if (kind === 'postgres') {
    dbName = `t_${randomBytes(8).toString('hex')}`;
    await adminQuery(`CREATE DATABASE ${dbName}`);
    const url = new URL(inject('pgAdminUrl'));
    url.pathname = `/${dbName}`;
    env.DATABASE_URL = url.toString();
  }
  return {
    config: loadConfig(env),
    env,
    async cleanup() {
      if (dbName) await adminQuery(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
