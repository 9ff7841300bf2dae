/** Opens the database the configuration names (PostgreSQL when DATABASE_URL is set, else SQLite in DATA_DIR), migrated. */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import type { Database } from './driver.js';
import { openPostgres } from './postgres-driver.js';
import { createRepository, type Repository } from './repository.js';
import { openSqlite } from './sqlite-driver.js';

export function openDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Database {
  if (config.databaseUrl) return openPostgres(config.databaseUrl);
  mkdirSync(config.dataDir, { recursive: true });
  return openSqlite(path.join(config.dataDir, 'milenotes.sqlite'));
}

export async function openRepository(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Promise<Repository> {
  const repo = createRepository(openDatabase(config));
  await repo.migrate();
  return repo;
}
