/** Owns the steps on local files that both kinds of backup take: SQLite's online backup and integrity check, empty folders, the development session secret, a file's digest. */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import Database from 'better-sqlite3';
import { DEV_SECRET_FILE } from '../config/auth.js';
import { SQLITE_FILE } from '../db/index.js';
import { BackupRefused } from './backup-refused.js';

/** The summary a backup writes last: a folder without it is not a finished backup. */
export const MANIFEST = 'milenotes-backup.json';

/** Whether `dir` is an empty folder or nothing at all; a file there is refused with a sentence (a mistyped --to, say). */
export async function isEmptyOrMissing(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length === 0;
  } catch (err) {
    const { code } = err as NodeJS.ErrnoException;
    if (code === 'ENOENT') return true;
    if (code === 'ENOTDIR') throw new BackupRefused(`${dir} is a file, not a folder. Give a new or empty folder; nothing was changed.`);
    throw err;
  }
}

export const exists = async (file: string): Promise<boolean> => Boolean(await stat(file).catch(() => undefined));

/** A consistent copy of DATA_DIR's SQLite file into `toFile`, taken page by page while writers carry on. */
export async function snapshotSqlite(dataDir: string, toFile: string): Promise<void> {
  const sourceDb = path.join(dataDir, SQLITE_FILE);
  if (!(await exists(sourceDb))) throw new BackupRefused(`There is no database to back up at ${sourceDb}. Check DATA_DIR.`);
  const db = new Database(sourceDb, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    await db.backup(toFile);
  } finally {
    db.close();
  }
}

/** Refuses a backup's SQLite file that SQLite finds damaged. */
export function checkSqliteIntegrity(file: string): void {
  const check = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const result = check.pragma('integrity_check', { simple: true });
    if (result !== 'ok') throw new BackupRefused(`The backup's database is damaged (${String(result)}). Nothing was restored.`);
  } finally {
    check.close();
  }
}

/** Copies the development session secret (made when SESSION_SECRET is unset) from one folder to another, if there is one. */
export async function copySecret(fromDir: string, toDir: string): Promise<boolean> {
  const secret = path.join(fromDir, DEV_SECRET_FILE);
  if (!(await exists(secret))) return false;
  await copyFile(secret, path.join(toDir, DEV_SECRET_FILE));
  return true;
}

/** Copies a file and syncs the copy to the disk before resolving. */
export async function copyDurably(from: string, to: string): Promise<void> {
  await copyFile(from, to);
  const handle = await open(to, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Lower-case hex SHA-256 of a file, read as a stream. */
export async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}
