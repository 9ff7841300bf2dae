/**
 * Owns backup and restore: the CLI's entry for every deployment, and all of it for a
 * single-machine install (SQLite file + audio on disk in DATA_DIR); a deployment on PostgreSQL or
 * S3 goes to ./backup-shared.ts. Here: SQLite's online backup API first, then the audio files. A
 * note's files are stored before its row is committed and never change, so every row in the
 * snapshot already has its files on disk when the copy of the folder starts; the copy is then
 * checked against the rows. Restore: into an empty DATA_DIR only, through a sibling folder
 * renamed into place.
 */
import { constants, type Dirent } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Config } from '../config/index.js';
import { SQLITE_FILE } from '../db/index.js';
import { LOCAL_BLOBS_DIR } from '../storage/index.js';
import { checkSqliteIntegrity, copySecret, isEmptyOrMissing, MANIFEST, snapshotSqlite } from './backup-files.js';
import { BackupRefused } from './backup-refused.js';
import { backupShared, restoreShared, type SharedBackupManifest } from './backup-shared.js';

export { BackupRefused };

export interface BackupManifest {
  createdAt: string;
  notes: number;
  files: number;
  bytes: number;
}

type StorageConfig = Pick<Config, 'dataDir' | 'databaseUrl' | 's3'>;

/** What a backup may be told besides its folder. */
export interface BackupOptions {
  /** PostgreSQL or S3 deployments: put the objects in this bucket (on S3_ENDPOINT, with the same keys) instead of the folder. */
  objectsBucket?: string;
}

const isShared = (config: StorageConfig) => Boolean(config.databaseUrl || config.s3);

/** Copies every file under `from` into `to`, skipping the store's unfinished uploads. Returns files and bytes copied. */
async function copyTree(from: string, to: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  let entries: Dirent[];
  try {
    entries = await readdir(from, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { files, bytes };
    throw err;
  }
  await mkdir(to, { recursive: true });
  for (const entry of entries) {
    if (entry.name === '.incoming') continue;
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      const sub = await copyTree(source, target);
      files += sub.files;
      bytes += sub.bytes;
    } else if (entry.isFile()) {
      try {
        await copyFile(source, target, constants.COPYFILE_EXCL);
      } catch (err) {
        // Removed since the listing (a discarded duplicate upload): the check against the rows below decides.
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      files += 1;
      bytes += (await stat(target)).size;
    }
  }
  return { files, bytes };
}

/** The audio files the rows of a SQLite file point at that are not in `blobsDir`. */
async function missingFiles(sqliteFile: string, blobsDir: string): Promise<{ notes: number; missing: string[] }> {
  const db = new Database(sqliteFile, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT original_key, converted_key FROM notes').all() as { original_key: string; converted_key: string | null }[];
    const missing: string[] = [];
    for (const row of rows) {
      for (const key of [row.original_key, row.converted_key]) {
        if (key && !(await stat(path.join(blobsDir, key)).catch(() => undefined))) missing.push(key);
      }
    }
    return { notes: rows.length, missing };
  } finally {
    db.close();
  }
}

/**
 * Copies the deployment's database and audio into `toDir` (missing or empty) while the server
 * keeps serving. `env`: where PG_BIN is read (pg_dump's folder).
 */
export async function backup(
  config: StorageConfig,
  toDir: string,
  options: BackupOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<BackupManifest | SharedBackupManifest> {
  if (isShared(config)) return backupShared(config, toDir, options, env);
  if (options.objectsBucket) throw new BackupRefused('--objects-bucket needs the audio in S3 (S3_BUCKET); this install keeps it on disk in DATA_DIR.');
  if (!(await isEmptyOrMissing(toDir))) throw new BackupRefused(`${toDir} is not empty. Back up into a new folder.`);
  await mkdir(toDir, { recursive: true });
  const createdAt = new Date().toISOString();

  // 1. The database: a consistent snapshot, taken page by page while writers carry on.
  await snapshotSqlite(config.dataDir, path.join(toDir, SQLITE_FILE));
  // 2. The audio, after the snapshot: every row in it was committed after its files were stored.
  const copied = await copyTree(path.join(config.dataDir, LOCAL_BLOBS_DIR), path.join(toDir, LOCAL_BLOBS_DIR));
  await copySecret(config.dataDir, toDir);

  const { notes, missing } = await missingFiles(path.join(toDir, SQLITE_FILE), path.join(toDir, LOCAL_BLOBS_DIR));
  if (missing.length > 0) {
    // Only a note deleted (account deletion) between the snapshot and the copy can do this.
    throw new Error(`The backup in ${toDir} lacks ${missing.length} audio file(s) its database names (first: ${missing[0]}). Run the backup again.`);
  }
  const manifest: BackupManifest = { createdAt, notes, files: copied.files, bytes: copied.bytes };
  await writeFile(path.join(toDir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/**
 * Brings a backup into the configured storage, which must be empty: a missing or empty DATA_DIR,
 * and on a shared deployment an empty database and bucket (./backup-shared.ts).
 */
export async function restore(config: StorageConfig, fromDir: string, env: NodeJS.ProcessEnv = process.env): Promise<BackupManifest | SharedBackupManifest> {
  let summary: Record<string, unknown>;
  try {
    summary = JSON.parse(await readFile(path.join(fromDir, MANIFEST), 'utf8')) as Record<string, unknown>;
  } catch {
    throw new BackupRefused(`${fromDir} is not a finished MileNotes backup (${MANIFEST} is missing or unreadable).`);
  }
  if (summary.format !== undefined || isShared(config)) return restoreShared(config, fromDir, summary, env);
  const manifest = summary as unknown as BackupManifest;
  if (!(await isEmptyOrMissing(config.dataDir))) {
    throw new BackupRefused(`DATA_DIR (${config.dataDir}) is not empty. Restore only into an empty or new folder, so nothing there is overwritten.`);
  }
  checkSqliteIntegrity(path.join(fromDir, SQLITE_FILE));

  // Built beside DATA_DIR and renamed into place, so a restore cut short leaves DATA_DIR empty.
  const staging = `${config.dataDir}.restoring-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  try {
    await mkdir(staging, { recursive: true });
    await copyFile(path.join(fromDir, SQLITE_FILE), path.join(staging, SQLITE_FILE));
    await copyTree(path.join(fromDir, LOCAL_BLOBS_DIR), path.join(staging, LOCAL_BLOBS_DIR));
    await copySecret(fromDir, staging);
    const { missing } = await missingFiles(path.join(staging, SQLITE_FILE), path.join(staging, LOCAL_BLOBS_DIR));
    if (missing.length > 0) throw new BackupRefused(`The backup lacks ${missing.length} audio file(s) its database names. Nothing was restored.`);
    await rmdir(config.dataDir).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
    await rename(staging, config.dataDir);
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    throw err;
  }
  return manifest;
}
