/** The blob store interface: where note audio lives (local disk or S3), and the streaming meter both use. */
import { createHash } from 'node:crypto';
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type TransformCallback, type Readable } from 'node:stream';

export interface PutResult {
  bytes: number;
  /** Lower-case hex SHA-256 of what was stored. */
  sha256: string;
}

export interface PutOptions {
  maxBytes: number;
  contentType?: string;
}

/** Bytes `start` to `end` of a blob, both included, as in an HTTP Range. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface BlobStore {
  /**
   * Streams `body` into `key`, hashing as it goes; durable when it resolves. Rejects with
   * BlobTooLargeError past maxBytes (nothing is kept) or with the stream's own error.
   */
  put(key: string, body: Readable, options: PutOptions): Promise<PutResult>;
  /** The blob, or only `range` of it (a resumed audio download reads just its rest). */
  get(key: string, range?: ByteRange): Promise<Readable>;
  exists(key: string): Promise<boolean>;
  /** Deleting a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Every blob whose key starts with `prefix`, with when it was last written and its size, in pages. */
  list(prefix: string): AsyncIterable<ListedBlob>;
  /** Removes this store's temporary files (uploads cut off by a crash) last written before `before`; returns how many. */
  removeStaleTemp(before: Date): Promise<number>;
}

export interface ListedBlob {
  key: string;
  modifiedAt: Date;
  /** Its size in bytes. */
  bytes: number;
}

/**
 * Removes the files in `dir` that `match` picks and that were last written before `before`
 * (`kind: 'directory'`: the directories, with all in them); returns how many. All are judged
 * before any is removed, so one call's verdicts all date from its start.
 */
export async function removeOldFiles(dir: string, before: Date, match: (name: string) => boolean, kind: 'file' | 'directory' = 'file'): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  const old: string[] = [];
  for (const name of names.filter(match)) {
    const entry = path.join(dir, name);
    const info = await stat(entry).catch(() => undefined); // gone meanwhile: its upload finished
    if (!info || (kind === 'file' ? !info.isFile() : !info.isDirectory()) || info.mtime >= before) continue;
    old.push(entry);
  }
  for (const entry of old) await rm(entry, { recursive: kind === 'directory', force: true });
  return old.length;
}

/** Whether `err` says the blob is not there: the disk store's ENOENT, S3's 404 (NoSuchKey). */
export const isBlobMissing = (err: unknown): boolean =>
  (err as NodeJS.ErrnoException)?.code === 'ENOENT' || (err as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode === 404;

export class BlobTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The upload is larger than ${maxBytes} bytes.`);
    this.name = 'BlobTooLargeError';
  }
}

/** Counts and hashes the bytes passing through and fails the stream once they exceed maxBytes. */
export class Meter extends Transform {
  bytes = 0;
  private readonly hash = createHash('sha256');

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      done(new BlobTooLargeError(this.maxBytes));
      return;
    }
    this.hash.update(chunk);
    done(null, chunk);
  }

  digestHex(): string {
    return this.hash.digest('hex');
  }
}

/** Keys come from our own code, but a key that could climb out of the store's root is a bug worth stopping. */
export function assertSafeKey(key: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(key) || key.split('/').some((part) => part === '..' || part === '.' || part === '')) {
    throw new Error(`Unsafe blob key: ${key}`);
  }
}
