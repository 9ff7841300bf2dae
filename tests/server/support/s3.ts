/** An S3 emulator (s3rver) on loopback with the bucket `notes` (and any others asked for), and the environment that points a server at the first. */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

export interface TestS3 {
  endpoint: string;
  /** S3_* settings for the server under test. */
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

export async function startS3(buckets: string[] = ['notes']): Promise<TestS3> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-s3-'));
  const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: buckets.map((name) => ({ name })) });
  const endpoint = `http://127.0.0.1:${(await s3.run()).port}`;
  return {
    endpoint,
    env: {
      S3_BUCKET: buckets[0],
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
    },
    async close() {
      await s3.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
