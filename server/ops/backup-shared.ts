/**
 * Owns backup and restore of a deployment whose data is not all in DATA_DIR: PostgreSQL
 * (DATABASE_URL), S3 (S3_BUCKET), or both. A backup folder holds:
 *
 *   database.pgdump or milenotes.sqlite   pg_dump -Fc of a snapshot, or SQLite's online backup
 *   objects.jsonl                         key, bytes and SHA-256 of every object copied
 *   blobs/                                the objects (or in the bucket --objects-bucket named)
 *   session-secret                        when DATA_DIR kept one (no SESSION_SECRET)
 *   milenotes-backup.json                 written last: without it the backup is not finished
 *
 * The database first, then the objects: a note's objects are stored before its row is committed
 * and deleted after it is, so every row of the snapshot has its objects when the copy starts (a
 * race's picture too: stored before the race names it, and kept after).
 * The objects copied are exactly those the snapshot's rows name (read in the very snapshot
 * pg_dump took), each checked against the size and digest its row records. An object written
 * after the snapshot is not copied; one deleted after it (its note deleted during the backup)
 * fails the backup, which says to run it again.
 *
 * Restore writes only into an empty database, bucket and DATA_DIR: the objects first, each
 * checked against objects.jsonl, then the database in one transaction, so a server started on the
 * pair never sees a row before its objects; a restore that fails removes what it wrote.
 */
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DEV_SECRET_FILE } from '../config/auth.js';
import type { Config } from '../config/index.js';
import { serverMajorVersion, userRelations, withExportedSnapshot } from '../db/backup-store.js';
import { createBlobRefStore } from '../db/blob-refs-store.js';
import { openDatabase, SQLITE_FILE } from '../db/index.js';
import { openSqlite } from '../db/sqlite-driver.js';
import type { BlobStore } from '../storage/blob-store.js';
import { LOCAL_BLOBS_DIR, openBlobStore } from '../storage/index.js';
import { anyBlob } from '../storage/listing.js';
import { createLocalBlobStore } from '../storage/local.js';
import { createS3BlobStore } from '../storage/s3.js';
import { checkSqliteIntegrity, copyDurably, copySecret, exists, isEmptyOrMissing, MANIFEST, sha256OfFile, snapshotSqlite } from './backup-files.js';
import { copyObjectsIn, copyObjectsOut, removeObjects, type CopiedOut } from './backup-objects.js';
import { BackupRefused } from './backup-refused.js';
import { dumpDatabase, findPgTool, restoreDatabase } from './pg-tools.js';

type StorageConfig = Pick<Config, 'dataDir' | 'databaseUrl' | 's3'>;

export interface SharedBackupManifest {
  format: 2;
  createdAt: string;
  database: 'postgres' | 'sqlite';
  /** SHA-256 of the database file, checked before anything is restored. */
  databaseSha256: string;
  notes: number;
  objects: number;
  bytes: number;
  /** The bucket (on the deployment's S3 endpoint) holding the objects; unset: the folder's blobs/. */
  objectsBucket?: string;
}

const PG_DUMP_FILE = 'database.pgdump';
const OBJECTS_FILE = 'objects.jsonl';

const databaseFileOf = (kind: SharedBackupManifest['database']) => (kind === 'postgres' ? PG_DUMP_FILE : SQLITE_FILE);

/** The store a backup keeps its objects in: a bucket beside the deployment's, or the folder's blobs/. */
function objectsStore(config: StorageConfig, dir: string, bucket: string | undefined): BlobStore {
  if (!bucket) return createLocalBlobStore(path.join(dir, LOCAL_BLOBS_DIR));
  if (!config.s3)
    throw new BackupRefused(`The objects' bucket ${bucket} is reached with the S3 settings (S3_BUCKET, S3_ENDPOINT, keys), and S3_BUCKET is unset.`);
  return createS3BlobStore({ ...config.s3, bucket });
}

/** Says why some objects the snapshot's rows name were not copied: deleted since (run it again) or damaged in the store. */
async function problemsError(config: StorageConfig, dir: string, copied: CopiedOut): Promise<Error> {
  const db = openDatabase(config);
  let stillNamed: Map<string, number | null>;
  try {
    stillNamed = await createBlobRefStore(db).namedKeys(copied.problems.map((p) => p.key));
  } finally {
    await db.close();
  }
  const damaged = copied.problems.find((p) => stillNamed.has(p.key));
  const first = damaged ?? copied.problems[0]!;
  const what = `${copied.problemCount} object(s) the database names could not be copied as its rows record them (first: ${first.key}, ${first.problem}, of ${first.owner.kind} ${first.owner.id})`;
  // verify-storage looks at the notes' audio; a race's picture is given again with edit-race.
  const fix =
    damaged?.owner.kind === 'race'
      ? `Give the race its picture again (\`npm run admin -- edit-race --id ${damaged.owner.id} --image FILE\`, or \`--image none\`)`
      : 'Run `npm run admin -- verify-storage`';
  return damaged
    ? new Error(`${what}: the store lacks them or holds other bytes. ${fix}. The backup in ${dir} is not finished.`)
    : new Error(`${what}: their notes were deleted while the backup ran. Run the backup again into a new folder.`);
}

export async function backupShared(
  config: StorageConfig,
  toDir: string,
  options: { objectsBucket?: string },
  env: NodeJS.ProcessEnv,
): Promise<SharedBackupManifest> {
  if (!(await isEmptyOrMissing(toDir))) throw new BackupRefused(`${toDir} is not empty. Back up into a new folder.`);
  if (options.objectsBucket && options.objectsBucket === config.s3?.bucket) throw new BackupRefused('--objects-bucket must be another bucket than S3_BUCKET.');
  const target = objectsStore(config, toDir, options.objectsBucket);
  if (options.objectsBucket && (await anyBlob(target)))
    throw new BackupRefused(`The bucket ${options.objectsBucket} is not empty. Back up into a new or empty bucket.`);
  const source = openBlobStore(config);
  const database: SharedBackupManifest['database'] = config.databaseUrl ? 'postgres' : 'sqlite';
  const databaseFile = path.join(toDir, databaseFileOf(database));
  const objectsFile = path.join(toDir, OBJECTS_FILE);
  const createdAt = new Date().toISOString();

  let copied: CopiedOut;
  if (config.databaseUrl) {
    const db = openDatabase(config);
    try {
      const pgDump = await findPgTool('pg_dump', await serverMajorVersion(db), env);
      await mkdir(toDir, { recursive: true });
      // pg_dump and our reads share one snapshot: the objects copied are those the dump's rows name.
      copied = await withExportedSnapshot(db, async (snapshot, refs) => {
        await dumpDatabase(pgDump, config.databaseUrl!, snapshot, databaseFile, env);
        return copyObjectsOut(refs, source, target, objectsFile);
      });
    } finally {
      await db.close();
    }
  } else {
    await mkdir(toDir, { recursive: true });
    await snapshotSqlite(config.dataDir, databaseFile);
    // The copy is the snapshot: its rows name the objects to copy.
    const snapshot = openSqlite(databaseFile);
    try {
      copied = await copyObjectsOut(createBlobRefStore(snapshot), source, target, objectsFile);
    } finally {
      await snapshot.close();
    }
  }
  if (copied.problemCount > 0) throw await problemsError(config, toDir, copied);
  await copySecret(config.dataDir, toDir);

  const manifest: SharedBackupManifest = {
    format: 2,
    createdAt,
    database,
    databaseSha256: await sha256OfFile(databaseFile),
    notes: copied.notes,
    objects: copied.objects,
    bytes: copied.bytes,
    ...(options.objectsBucket && { objectsBucket: options.objectsBucket }),
  };
  await writeFile(path.join(toDir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { flush: true });
  return manifest;
}

/** Everything that can be checked before a restore writes anything; the pg_restore to run, for PostgreSQL. */
async function preflight(
  config: StorageConfig,
  fromDir: string,
  manifest: SharedBackupManifest,
  env: NodeJS.ProcessEnv,
): Promise<{ pgRestore?: string; writesDataDir: boolean }> {
  const wanted = config.databaseUrl ? 'postgres' : 'sqlite';
  if (manifest.database !== wanted) {
    throw new BackupRefused(
      `This backup is of a ${manifest.database === 'postgres' ? 'PostgreSQL' : 'SQLite'} database; set ${manifest.database === 'postgres' ? 'DATABASE_URL to a new, empty database' : 'no DATABASE_URL (SQLite in DATA_DIR)'} to restore it.`,
    );
  }
  const databaseFile = path.join(fromDir, databaseFileOf(manifest.database));
  if (!(await exists(databaseFile)) || (await sha256OfFile(databaseFile)) !== manifest.databaseSha256) {
    throw new BackupRefused(`The backup's database file (${databaseFile}) is missing or damaged: its SHA-256 is not the one recorded. Nothing was restored.`);
  }
  const writesDataDir = !config.databaseUrl || !config.s3 || (await exists(path.join(fromDir, DEV_SECRET_FILE)));
  if (writesDataDir && !(await isEmptyOrMissing(config.dataDir))) {
    throw new BackupRefused(`DATA_DIR (${config.dataDir}) is not empty. Restore only into an empty or new folder, so nothing there is overwritten.`);
  }
  let pgRestore: string | undefined;
  if (config.databaseUrl) {
    const db = openDatabase(config);
    try {
      pgRestore = await findPgTool('pg_restore', await serverMajorVersion(db), env);
      const found = await userRelations(db);
      if (found.length > 0) {
        throw new BackupRefused(
          `The database at DATABASE_URL is not empty (it has ${found.join(', ')}). Restore only into a new, empty database (createdb), ` +
            'before any server or admin command has run on it: they make the tables.',
        );
      }
    } finally {
      await db.close();
    }
  } else {
    checkSqliteIntegrity(databaseFile);
  }
  if (config.s3) {
    const found = await anyBlob(openBlobStore(config));
    if (found) throw new BackupRefused(`The bucket ${config.s3.bucket} is not empty (it holds ${found.key}). Restore only into a new, empty bucket.`);
  }
  return { pgRestore, writesDataDir };
}

export async function restoreShared(
  config: StorageConfig,
  fromDir: string,
  summary: { format?: unknown },
  env: NodeJS.ProcessEnv,
): Promise<SharedBackupManifest> {
  if (summary.format === undefined) {
    throw new BackupRefused(
      `${fromDir} is a backup of a SQLite file and audio on disk: restore it with DATABASE_URL and S3_BUCKET unset, into an empty DATA_DIR.`,
    );
  }
  if (summary.format !== 2)
    throw new BackupRefused(`${fromDir} was made by another version of MileNotes (backup format ${String(summary.format)}); restore it with that version.`);
  const manifest = summary as SharedBackupManifest;
  const { pgRestore, writesDataDir } = await preflight(config, fromDir, manifest, env);
  const dataDirWasThere = await exists(config.dataDir);
  const target = openBlobStore(config);
  const objectsFile = path.join(fromDir, OBJECTS_FILE);
  const sqliteTemp = path.join(config.dataDir, `${SQLITE_FILE}.restoring-${process.pid}`);
  try {
    // 1. The objects, each checked against objects.jsonl: no row can name one that is not there yet.
    const copied = await copyObjectsIn(objectsFile, objectsStore(config, fromDir, manifest.objectsBucket), target);
    if (copied.objects !== manifest.objects) {
      throw new BackupRefused(
        `The backup's objects.jsonl lists ${copied.objects} objects where the backup recorded ${manifest.objects}: it is damaged. Nothing was restored.`,
      );
    }
    if (writesDataDir) {
      await mkdir(config.dataDir, { recursive: true });
      await copySecret(fromDir, config.dataDir);
    }
    // 2. The database last and all at once (PostgreSQL in one transaction, SQLite renamed into
    // place): once it is there, the restore is done.
    if (pgRestore) await restoreDatabase(pgRestore, config.databaseUrl!, path.join(fromDir, PG_DUMP_FILE), env);
    else {
      await copyDurably(path.join(fromDir, SQLITE_FILE), sqliteTemp);
      await rename(sqliteTemp, path.join(config.dataDir, SQLITE_FILE));
    }
  } catch (err) {
    // Leave the bucket and DATA_DIR as empty as they were, so the restore can be run again.
    if (config.s3) await removeObjects(objectsFile, target).catch(() => {});
    // DATA_DIR was empty or missing (preflight): all in it now is this restore's.
    if (writesDataDir) {
      if (!dataDirWasThere) await rm(config.dataDir, { recursive: true, force: true });
      else for (const name of await readdir(config.dataDir).catch(() => [])) await rm(path.join(config.dataDir, name), { recursive: true, force: true });
    }
    throw err;
  }
  return manifest;
}
