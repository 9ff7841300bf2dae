/** Owns audio in an S3-compatible bucket (@aws-sdk/client-s3). A PutObject is durable once S3 answers. */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as delay } from 'node:timers/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import type { S3Config } from '../config/index.js';
import { assertSafeKey, Meter, removeOldFiles, type BlobStore } from './blob-store.js';
import { StorageFault } from './faults.js';

/** Bodies are spooled here before the PutObject; a crash leaves them behind. */
const SPOOL_PREFIX = 'milenotes-';

const statusOf = (err: unknown) => (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

const PUT_ATTEMPTS = 3;
const PUT_RETRY_MS = 250;
/** A failure worth a second try: no answer at all (a reset or refused connection), a 5xx, throttling, S3's own timeout. */
const isTransient = (err: unknown) => {
  const status = statusOf(err);
  return status === undefined || status >= 500 || status === 429 || status === 408 || (err as { name?: string }).name === 'RequestTimeout';
};

/** The store's answer, its failures that are not ours nor the caller's (no answer, a 5xx, throttling) thrown as a StorageFault. */
async function asking<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw isTransient(err) ? new StorageFault('store_unavailable', err) : err;
  }
}

/** `spoolDir`: where bodies wait for their PutObject (tests give each store its own). */
export function createS3BlobStore(config: S3Config, spoolDir = os.tmpdir()): BlobStore {
  const clientConfig: S3ClientConfig = {
    region: config.region,
    endpoint: config.endpoint,
    forcePathStyle: config.forcePathStyle,
    // S3-compatible servers often reject the newer default checksums; send them only when required.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
  if (config.accessKeyId && config.secretAccessKey) {
    clientConfig.credentials = { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey };
  }
  const client = new S3Client(clientConfig);
  // The SDK cannot send a stream twice: a retry of a streamed PutObject hangs or fails
  // (aws-sdk-js-v3#5479). Puts go out once per attempt from the spooled file; see putFile.
  const putClient = new S3Client({ ...clientConfig, maxAttempts: 1 });
  const Bucket = config.bucket;

  /** Sends a spooled file, from a fresh read each attempt, so a reset connection or a 5xx is tried again. */
  const putFile = async (key: string, file: string, contentType: string | undefined) => {
    const { size } = await stat(file);
    for (let attempt = 1; ; attempt++) {
      try {
        await putClient.send(new PutObjectCommand({ Bucket, Key: key, Body: createReadStream(file), ContentLength: size, ContentType: contentType }));
        return;
      } catch (err) {
        if (attempt >= PUT_ATTEMPTS || !isTransient(err)) throw isTransient(err) ? new StorageFault('store_unavailable', err) : err;
        await delay(PUT_RETRY_MS * attempt);
      }
    }
  };

  return {
    /**
     * Every body is spooled to local disk first, then sent: S3 never waits on a phone's slow or
     * stalling upload (S3 drops a request idle for about 20 s), and a failed put can be sent again.
     */
    async put(key, body, { maxBytes, contentType }) {
      assertSafeKey(key);
      const meter = new Meter(maxBytes);
      await mkdir(spoolDir, { recursive: true });
      const spool = path.join(spoolDir, `${SPOOL_PREFIX}${randomBytes(12).toString('hex')}.part`);
      try {
        await pipeline(body, meter, createWriteStream(spool));
        await putFile(key, spool, contentType);
      } finally {
        await rm(spool, { force: true });
      }
      return { bytes: meter.bytes, sha256: meter.digestHex() };
    },
    async get(key, range) {
      assertSafeKey(key);
      const result = await asking(() => client.send(new GetObjectCommand({ Bucket, Key: key, ...(range && { Range: `bytes=${range.start}-${range.end}` }) })));
      return result.Body as Readable;
    },
    async exists(key) {
      assertSafeKey(key);
      try {
        await client.send(new HeadObjectCommand({ Bucket, Key: key }));
        return true;
      } catch (err) {
        if (statusOf(err) === 404) return false;
        throw isTransient(err) ? new StorageFault('store_unavailable', err) : err;
      }
    },
    async delete(key) {
      assertSafeKey(key);
      await asking(() => client.send(new DeleteObjectCommand({ Bucket, Key: key })));
    },
    async *list(prefix) {
      let ContinuationToken: string | undefined;
      do {
        const page = await asking(() => client.send(new ListObjectsV2Command({ Bucket, Prefix: prefix, ContinuationToken })));
        for (const object of page.Contents ?? []) {
          if (object.Key && object.LastModified) yield { key: object.Key, modifiedAt: object.LastModified, bytes: object.Size ?? 0 };
        }
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
    },
    removeStaleTemp(before) {
      return removeOldFiles(spoolDir, before, (name) => name.startsWith(SPOOL_PREFIX) && name.endsWith('.part'));
    },
  };
}
