/** The blob store interface: where note audio lives (local disk or S3), and the streaming meter both use. */
import { createHash } from 'node:crypto';
import { Transform, type TransformCallback, type Readable } from 'node:stream';

export interface PutResult {
  bytes: number;
  /** Lower-case hex SHA-256 of what was stored. */
  sha256: string;
}

export interface PutOptions {
  maxBytes: number;
  contentType?: string;
  /** The body's length when the client declared it (Content-Length); lets S3 stream without spooling. */
  length?: number;
}

export interface BlobStore {
  /**
   * Streams `body` into `key`, hashing as it goes; durable when it resolves. Rejects with
   * BlobTooLargeError past maxBytes (nothing is kept) or with the stream's own error.
   */
  put(key: string, body: Readable, options: PutOptions): Promise<PutResult>;
  get(key: string): Promise<Readable>;
  exists(key: string): Promise<boolean>;
  /** Deleting a missing key is not an error. */
  delete(key: string): Promise<void>;
}

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
    if (this.bytes > this.maxBytes) return done(new BlobTooLargeError(this.maxBytes));
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
