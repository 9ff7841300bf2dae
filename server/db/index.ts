/** Opens the database the configuration names (PostgreSQL when DATABASE_URL is set, else SQLite in DATA_DIR), migrated. */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/index.js';
import type { Database } from './driver.js';
import { openPostgres } from './postgres-driver.js';
import { createRepository, type Repository } from './repository.js';
import { openSqlite } from './sqlite-driver.js';

/** The SQLite file's name inside DATA_DIR (server/ops/backup.ts copies it). */
export const SQLITE_FILE = 'milenotes.sqlite';

export function openDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Database {
  if (config.databaseUrl) return openPostgres(config.databaseUrl);
  mkdirSync(config.dataDir, { recursive: true });
  return openSqlite(path.join(config.dataDir, SQLITE_FILE));
}

export async function openRepository(config: Pick<Config, 'databaseUrl' | 'dataDir'> & Partial<Pick<Config, 'convertOrder'>>): Promise<Repository> {
  const repo = createRepository(openDatabase(config), { convertOrder: config.convertOrder ?? 'deadline' });
  await repo.migrate();
  return repo;
}
