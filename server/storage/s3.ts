/** Owns audio in an S3-compatible bucket (@aws-sdk/client-s3). A PutObject is durable once S3 answers. */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import type { S3Config } from '../config.js';
import { assertSafeKey, Meter, removeOldFiles, type BlobStore } from './blob-store.js';

/** Bodies of unknown length are spooled here before the PutObject; a crash leaves them behind. */
const SPOOL_PREFIX = 'milenotes-';

const statusOf = (err: unknown) => (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

/** `spoolDir`: where bodies of unknown length wait for their PutObject (tests give each store its own). */
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
  const Bucket = config.bucket;

  const putStream = async (key: string, body: Readable, length: number, contentType: string | undefined, abortSignal?: AbortSignal) => {
    await client.send(new PutObjectCommand({ Bucket, Key: key, Body: body, ContentLength: length, ContentType: contentType }), { abortSignal });
  };

  return {
    async put(key, body, { maxBytes, contentType, length }) {
      assertSafeKey(key);
      const meter = new Meter(maxBytes);
      if (length !== undefined) {
        // S3 needs the length up front to stream a body; the client declared it and Node enforces it.
        body.on('error', (err) => meter.destroy(err));
        // A body that fails (the client hung up, the idle limit ended it) must end the request to
        // S3 too: the SDK does not notice on its own and would wait for the rest for ever. The
        // error is rethrown below from meter.errored; unheard, it crashed the process.
        const abort = new AbortController();
        meter.on('error', () => abort.abort());
        const sent = putStream(key, body.pipe(meter), length, contentType, abort.signal);
        try {
          await sent;
        } catch (err) {
          throw meter.errored ?? body.errored ?? err;
        }
        return { bytes: meter.bytes, sha256: meter.digestHex() };
      }
      // Unknown length (chunked upload): spool to a temp file so memory stays flat, then send it.
      await mkdir(spoolDir, { recursive: true });
      const spool = path.join(spoolDir, `${SPOOL_PREFIX}${randomBytes(12).toString('hex')}.part`);
      try {
        await pipeline(body, meter, createWriteStream(spool));
        await putStream(key, createReadStream(spool), (await stat(spool)).size, contentType);
      } finally {
        await rm(spool, { force: true });
      }
      return { bytes: meter.bytes, sha256: meter.digestHex() };
    },
    async get(key) {
      assertSafeKey(key);
      const result = await client.send(new GetObjectCommand({ Bucket, Key: key }));
      return result.Body as Readable;
    },
    async exists(key) {
      assertSafeKey(key);
      try {
        await client.send(new HeadObjectCommand({ Bucket, Key: key }));
        return true;
      } catch (err) {
        if (statusOf(err) === 404) return false;
        throw err;
      }
    },
    async delete(key) {
      assertSafeKey(key);
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },
    async *list(prefix) {
      let ContinuationToken: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix: prefix, ContinuationToken }));
        for (const object of page.Contents ?? []) {
          if (object.Key && object.LastModified) yield { key: object.Key, modifiedAt: object.LastModified };
        }
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
    },
    removeStaleTemp(before) {
      return removeOldFiles(spoolDir, before, (name) => name.startsWith(SPOOL_PREFIX) && name.endsWith('.part'));
    },
  };
}
