/**
 * The repository: everything the routes, the worker and the CLI may ask of the database, as one
 * store per concern over one driver, each under its own name. A new store joins here the same way.
 */
import type { ConvertOrder } from '../config/index.js';
import { createAccountStore, type AccountStore } from './account-store.js';
import { createBlobRefStore, type BlobRefStore } from './blob-refs-store.js';
import { createDeletionStore, type DeletionStore } from './deletion-store.js';
import { createDeviceStore, type DeviceStore } from './device-store.js';
import type { Database } from './driver.js';
import { createEntryStore, type EntryStore } from './entry-store.js';
import { createJobStore, type JobStore } from './job-store.js';
import { createLinkStore, type LinkStore } from './link-store.js';
import { migrate } from './migrate.js';
import { createNoteStore, type NoteStore } from './note-store.js';
import { createOpsStore, type OpsStore } from './ops-store.js';
import { createPlayStore, type PlayStore } from './play-store.js';
import { createProgressStore, type ProgressStore } from './progress-store.js';
import { createPushQueueStore, type PushQueueStore } from './push-queue-store.js';
import { createPushStore, type PushStore } from './push-store.js';
import { createQuotaStore, type QuotaStore } from './quota-store.js';
import { createRaceStore, type RaceStore } from './race-store.js';
import { createRefreshStore, type RefreshStore } from './refresh-store.js';
import { createShareStore, type ShareStore } from './share-store.js';
import { createUploadStore, type UploadStore } from './upload-store.js';

export type * from './types.js';
export type { DeviceLink } from './device-store.js';
export type { ClaimedPush } from './push-queue-store.js';
export type { OpenAlert, PushAlertRow, PushSubscriptionRow } from './push-store.js';
export type {
  AccountStore,
  BlobRefStore,
  DeletionStore,
  DeviceStore,
  EntryStore,
  JobStore,
  LinkStore,
  NoteStore,
  OpsStore,
  PlayStore,
  ProgressStore,
  QuotaStore,
  RaceStore,
  PushQueueStore,
  PushStore,
  RefreshStore,
  ShareStore,
  UploadStore,
};

export interface Repository {
  /** Recording links and the `runners` rows they name. */
  links: LinkStore;
  races: RaceStore;
  /** The notes friends sent, each inserted with its conversion job. */
  notes: NoteStore;
  /** The conversion queue (by deadline, or by arrival) and each note's conversion outcome. */
  jobs: JobStore;
  /** Runner accounts and their sessions. */
  accounts: AccountStore;
  /** A runner's race entries, their links and the notes that came through them. */
  entries: EntryStore;
  /** Heard receipts: when and where the runner's app first played a note. */
  plays: PlayStore;
  /** Keepsake shares of an entry or a note. */
  shares: ShareStore;
  /** Deleting a runner's account, rows first listed then removed in one transaction. */
  deletion: DeletionStore;
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
  /** Progress a runner shares on race day: distance along the course and markers passed, never coordinates (migration 10). */
  progress: ProgressStore;
  /** The links each phone opened, for the home screen's list (migration 12). */
  devices: DeviceStore;
  /** Web Push: the VAPID keys, each phone's subscription per link, spectators' marker alerts (migration 13). */
  push: PushStore;
  /** The pushes waiting to be sent, leased to one server at a time. */
  pushQueue: PushQueueStore;
  /** Creates the tables when missing and seeds the races. Safe to run on every start. */
  migrate(): Promise<void>;
  close(): Promise<void>;
}

export interface RepositoryOptions {
  /** Which waiting note the conversion queue hands out next (CONVERT_ORDER). */
  convertOrder: ConvertOrder;
}

export function createRepository(db: Database, opts: RepositoryOptions = { convertOrder: 'deadline' }): Repository {
  return {
    links: createLinkStore(db),
    races: createRaceStore(db),
    notes: createNoteStore(db),
    jobs: createJobStore(db, opts.convertOrder),
    accounts: createAccountStore(db),
    entries: createEntryStore(db),
    plays: createPlayStore(db),
    shares: createShareStore(db),
    deletion: createDeletionStore(db),
    ops: createOpsStore(db),
    quota: createQuotaStore(db),
    refresh: createRefreshStore(db),
    blobRefs: createBlobRefStore(db),
    uploads: createUploadStore(db),
    progress: createProgressStore(db),
    devices: createDeviceStore(db),
    push: createPushStore(db),
    pushQueue: createPushQueueStore(db),
    migrate: () => migrate(db),
    close: () => db.close(),
  };
}
