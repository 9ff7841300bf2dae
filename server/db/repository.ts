/**
 * The repository: everything the routes, the worker and the CLI may ask of the database, as one
 * store per concern over one driver. New stores (e.g. `quotas: createQuotaStore(db)`) join here.
 */
import type { Database } from './driver.js';
import { createJobStore, type JobStore } from './job-store.js';
import { createLinkStore, type LinkStore } from './link-store.js';
import { migrate } from './migrate.js';
import { createNoteStore, type NoteStore } from './note-store.js';
import { createOpsStore, type OpsStore } from './ops-store.js';
import { createQuotaStore, type QuotaStore } from './quota-store.js';
import { createRefreshStore, type RefreshStore } from './refresh-store.js';
import { createRunnerStore, type RunnerStore } from './runner-store.js';
import { createUploadStore, type UploadStore } from './upload-store.js';
import { createBlobRefStore, type BlobRefStore } from './blob-refs-store.js';

export type * from './types.js';
export type { BlobRefStore, JobStore, LinkStore, NoteStore, QuotaStore, RefreshStore, RunnerStore, UploadStore };

export interface Repository extends LinkStore, NoteStore, JobStore {
  /** Creates the tables when missing and seeds the races. Safe to run on every start. */
  migrate(): Promise<void>;
  close(): Promise<void>;
  /** The runner app's rows (accounts, entries, receipts, shares), on the same connection. */
  runner: RunnerStore;
  /** Health, metrics and shutdown questions (server/ops). */
  ops: OpsStore;
  /** Per-link and per-address upload limits (migration 3). */
  quota: QuotaStore;
  /** Refresh-token rotation with reuse detection (migration 3). */
  refresh: RefreshStore;
  /** Which blob keys rows refer to, for the orphan sweep. */
  blobRefs: BlobRefStore;
  /** Unfinished resumable uploads (offsets, parts, append leases), on the same connection. */
  uploads: UploadStore;
}

export function createRepository(db: Database): Repository {
  return {
    ...createLinkStore(db),
    ...createNoteStore(db),
    ...createJobStore(db),
    runner: createRunnerStore(db),
    ops: createOpsStore(db),
    quota: createQuotaStore(db),
    refresh: createRefreshStore(db),
    blobRefs: createBlobRefStore(db),
    uploads: createUploadStore(db),
    migrate: () => migrate(db),
    close: () => db.close(),
  };
}
