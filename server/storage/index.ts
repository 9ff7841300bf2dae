/** Picks the blob store from the configuration: S3 when S3_BUCKET is set, else DATA_DIR/blobs on local disk. */
import path from 'node:path';
import type { Config } from '../config/index.js';
import type { BlobStore } from './blob-store.js';
import { createLocalBlobStore } from './local.js';
import { createS3BlobStore } from './s3.js';

/** The audio files' folder inside DATA_DIR when there is no S3 (server/ops/backup.ts copies it). */
export const LOCAL_BLOBS_DIR = 'blobs';

export function openBlobStore(config: Pick<Config, 's3' | 'dataDir'>): BlobStore {
  return config.s3 ? createS3BlobStore(config.s3) : createLocalBlobStore(path.join(config.dataDir, LOCAL_BLOBS_DIR));
}
