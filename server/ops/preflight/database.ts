/**
 * The preflight's database line: it answers (opened as the server opens it, so pending migrations are
 * applied, as at any start), and holds no migration this code does not know, which would mean a newer
 * MileNotes has run on it and this older one would write to a schema it does not understand.
 */
import path from 'node:path';
import type { Config } from '../../config/index.js';
import { SQLITE_FILE } from '../../db/index.js';
import { MIGRATIONS } from '../../db/migrate.js';
import { fail, ok, reasonOf, type PreflightCheck } from './finding.js';

/** Where the database is, without its password: 'PostgreSQL at db.internal:5432/milenotes', 'SQLite file /srv/data/milenotes.sqlite'. */
export function databaseName(config: Pick<Config, 'databaseUrl' | 'dataDir'>): string {
  if (!config.databaseUrl) return `SQLite file ${path.join(config.dataDir, SQLITE_FILE)}`;
  try {
    const url = new URL(config.databaseUrl);
    return `PostgreSQL at ${url.hostname || 'localhost'}:${url.port || 5432}${url.pathname}`;
  } catch {
    return 'PostgreSQL (DATABASE_URL is not a URL)';
  }
}

export const databaseCheck: PreflightCheck = {
  name: 'database',
  async run({ config, repository }) {
    const where = databaseName(config);
    let versions: number[];
    try {
      versions = await (await repository()).ops.migrationVersions();
    } catch (err) {
      return fail(
        `the ${where} did not answer: ${reasonOf(err)}.`,
        config.databaseUrl
          ? 'check DATABASE_URL (host, port, user, password, database), that PostgreSQL runs, and that it lets this host in (pg_hba.conf, firewall).'
          : `DATA_DIR (${config.dataDir}) must be a folder this user can write, on a disk with room: the SQLite file lives there.`,
      );
    }
    const unknown = versions.filter((v) => v > MIGRATIONS.length);
    if (unknown.length > 0) {
      return fail(
        `the ${where} holds migrations this code does not know (${unknown.join(', ')}; it knows 1 to ${MIGRATIONS.length}): a newer MileNotes has run on it.`,
        'run that newer version here too: every server on one database runs the same version, never an older one.',
      );
    }
    return ok(`the ${where} answers; its schema is at version ${MIGRATIONS.length}, this code's.`);
  },
};
