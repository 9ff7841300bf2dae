/**
 * Owns finding and running PostgreSQL's own pg_dump and pg_restore. They must be of the server's
 * major version or newer (pg_dump refuses a newer server), so they are taken from PG_BIN when set,
 * else from Debian's folder for the server's version, /usr/lib/postgresql/<major>/bin, never from
 * whatever `pg_dump` is first on the PATH.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { BackupRefused } from './backup-refused.js';

export type PgTool = 'pg_dump' | 'pg_restore';

/** Enough of a failing tool's stderr to say why, without keeping all of a long one. */
const STDERR_KEPT = 4_000;

/** Runs a tool to its end; rejects with its stderr when it fails. */
function run(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout = (stdout + d).slice(-STDERR_KEPT)));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-STDERR_KEPT)));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`${path.basename(file)} failed (${signal ?? `exit ${code}`}): ${stderr.trim() || stdout.trim()}`));
    });
  });
}

/** The tool of PostgreSQL `serverMajor` (or the one in PG_BIN), checked to be there and new enough. */
export async function findPgTool(tool: PgTool, serverMajor: number, env: NodeJS.ProcessEnv): Promise<string> {
  const bin = env.PG_BIN || `/usr/lib/postgresql/${serverMajor}/bin`;
  const file = path.join(bin, tool);
  const install = `Install Debian's postgresql-client-${serverMajor} (apt-get install postgresql-client-${serverMajor}) or set PG_BIN to the folder of a ${tool} of PostgreSQL ${serverMajor} or newer.`;
  try {
    await access(file, constants.X_OK);
  } catch {
    throw new BackupRefused(`${tool} for PostgreSQL ${serverMajor} (the server's version) is not at ${file}. ${install}`);
  }
  const version = await run(file, ['--version'], env);
  const major = Number(/\(PostgreSQL\)\s+(\d+)/.exec(version)?.[1]);
  if (!(major >= serverMajor))
    throw new BackupRefused(`${file} is PostgreSQL ${major || 'of an unknown version'}, older than the server (${serverMajor}). ${install}`);
  return file;
}

/**
 * The database URL as libpq takes it, its password moved into PGPASSWORD: the command line of a
 * process is readable by every user of the machine, its environment only by its own.
 */
function connection(databaseUrl: string, env: NodeJS.ProcessEnv): { dbname: string; env: NodeJS.ProcessEnv } {
  const url = new URL(databaseUrl);
  const password = decodeURIComponent(url.password);
  url.password = '';
  return { dbname: url.toString(), env: { ...env, ...(password && { PGPASSWORD: password }) } };
}

/**
 * pg_dump in custom format (-Fc: compressed, read back by pg_restore) of the database as of
 * `snapshot`. Unfinished resumable uploads are left out: their parts are not copied, and a phone
 * resuming one after a restore is answered 404, which its recorder takes as "send it whole".
 */
export async function dumpDatabase(pgDump: string, databaseUrl: string, snapshot: string, file: string, env: NodeJS.ProcessEnv): Promise<void> {
  const target = connection(databaseUrl, env);
  await run(
    pgDump,
    [
      '--format=custom',
      `--snapshot=${snapshot}`,
      '--exclude-table-data=upload_parts',
      '--exclude-table-data=uploads',
      `--file=${file}`,
      `--dbname=${target.dbname}`,
    ],
    target.env,
  );
}

/**
 * pg_restore into an empty database in one transaction (all of it or nothing), owned by the
 * restoring role, whoever owned the rows before.
 */
export async function restoreDatabase(pgRestore: string, databaseUrl: string, file: string, env: NodeJS.ProcessEnv): Promise<void> {
  const target = connection(databaseUrl, env);
  await run(pgRestore, ['--single-transaction', '--exit-on-error', '--no-owner', '--no-privileges', `--dbname=${target.dbname}`, file], target.env);
}
