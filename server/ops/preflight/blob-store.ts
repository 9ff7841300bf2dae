/**
 * The preflight's blob store line: a probe object written, read back and removed, through the store
 * the server uses (the disk under DATA_DIR, or the S3 bucket), so a store the server cannot write is
 * found now and not by the first note on race morning.
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Config } from '../../config/index.js';
import { LOCAL_BLOBS_DIR } from '../../storage/index.js';
import { preflightProbeKey } from '../../storage/keys.js';
import { fail, ok, reasonOf, type Finding, type PreflightCheck } from './finding.js';

async function readAll(stream: Readable, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of stream) {
    bytes += (chunk as Buffer).length;
    if (bytes > maxBytes) {
      stream.destroy();
      break;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Why a folder (or the nearest one above it that exists) cannot be written, when it cannot: Node's
 * recursive mkdir, which the disk store uses, reports a read-only file system as ENOENT.
 */
async function whyNotWritable(dir: string): Promise<string | undefined> {
  for (let at = dir; ; at = path.dirname(at)) {
    try {
      await access(at, constants.W_OK);
      return undefined;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return reasonOf(err);
      if (path.dirname(at) === at) return undefined;
    }
  }
}

function storeName(config: Pick<Config, 's3' | 'dataDir'>): string {
  if (!config.s3) return `the folder ${path.join(config.dataDir, LOCAL_BLOBS_DIR)}`;
  return `S3 bucket ${config.s3.bucket}${config.s3.endpoint ? ` at ${config.s3.endpoint}` : ` (${config.s3.region})`}`;
}

function fixFor(config: Pick<Config, 's3' | 'dataDir'>): string {
  if (config.s3) {
    return 'check S3_BUCKET, S3_ENDPOINT and S3_REGION, and that the keys (S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY) may s3:PutObject, s3:GetObject, s3:DeleteObject and s3:ListBucket on the bucket.';
  }
  return `let the server's user write ${path.join(config.dataDir, LOCAL_BLOBS_DIR)} (its owner and mode, a disk mounted read-write), or point DATA_DIR elsewhere.`;
}

export const blobStoreCheck: PreflightCheck = {
  name: 'blob store',
  async run({ config, blobs }) {
    const where = storeName(config);
    const store = blobs();
    const key = preflightProbeKey();
    const body = Buffer.from(`MileNotes preflight probe, ${new Date().toISOString()}\n`);
    try {
      await store.put(key, Readable.from([body]), { maxBytes: body.length, contentType: 'text/plain' });
    } catch (err) {
      const why = config.s3 ? undefined : await whyNotWritable(path.join(config.dataDir, LOCAL_BLOBS_DIR));
      return fail(`could not write a probe object to ${where}: ${why ?? reasonOf(err)}.`, fixFor(config));
    }
    let found: Finding | undefined;
    try {
      const back = await readAll(await store.get(key), body.length + 1);
      if (!back.equals(body))
        found = fail(`${where} gave back other bytes than the probe object written (${back.length} bytes for ${body.length}).`, fixFor(config));
    } catch (err) {
      found = fail(`wrote a probe object to ${where} but could not read it back: ${reasonOf(err)}.`, fixFor(config));
    }
    try {
      await store.delete(key);
      if (await store.exists(key)) return found ?? fail(`${where} still holds the probe object ${key} after deleting it.`, fixFor(config));
    } catch (err) {
      return (
        found ??
        fail(`could not remove the probe object ${key} from ${where}: ${reasonOf(err)}; the server removes the files of deleted notes.`, fixFor(config))
      );
    }
    return found ?? ok(`${where}: a probe object was written, read back and removed.`);
  },
};
