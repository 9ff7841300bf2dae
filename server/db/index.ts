/** Picks the repository from the configuration: PostgreSQL when DATABASE_URL is set, else SQLite in DATA_DIR. */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { createPostgresRepository } from './postgres.js';
import type { Repository } from './repository.js';
import { createSqliteRepository } from './sqlite.js';

/** The SQLite file's name inside DATA_DIR (server/ops/backup.ts copies it). */
export const SQLITE_FILE = 'milenotes.sqlite';

export async function openRepository(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Promise<Repository> {
  let repo: Repository;
  if (config.databaseUrl) {
    repo = createPostgresRepository(config.databaseUrl);
  } else {
    mkdirSync(config.dataDir, { recursive: true });
    repo = createSqliteRepository(path.join(config.dataDir, SQLITE_FILE));
  }
  await repo.migrate();
  return repo;
}
