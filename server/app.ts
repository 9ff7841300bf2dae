/** Builds the Fastify app: the API and the built site. Tests build it too; index.ts only listens. */
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { openRepository } from './db/index.js';
import type { Repository } from './db/repository.js';
import { securityHeaders } from './plugins/security.js';
import { api } from './routes/api.js';
import { openApi } from './routes/runner/openapi.js';
import { site } from './routes/site.js';
import type { BlobStore } from './storage/blob-store.js';
import { openBlobStore } from './storage/index.js';
import { createUploadService, type UploadService } from './uploads/service.js';
import { startConversionWorker, type ConversionWorker } from './worker/conversion.js';

export interface AppParts {
  repo: Repository;
  blobs: BlobStore;
  /** Resumable uploads; undefined when RESUMABLE_UPLOADS=off. */
  uploads?: UploadService;
}

export async function buildApp(config: Config, parts?: Partial<AppParts>): Promise<FastifyInstance & AppParts> {
  const app = Fastify({
    logger: { level: config.logLevel },
    trustProxy: true,
  });
  const repo = parts?.repo ?? (await openRepository(config));
  const blobs = parts?.blobs ?? openBlobStore(config);

  let worker: ConversionWorker | undefined;
  if (config.convertWorker) {
    worker = startConversionWorker({ repo, blobs, log: app.log.child({ component: 'convert' }), ffmpegTimeoutMs: config.ffmpegTimeoutMs });
  }
  const uploads = config.resumableUploads
    ? createUploadService({ repo, blobs, log: app.log.child({ component: 'uploads' }), onAccepted: () => worker?.nudge(), expiryMs: config.uploadExpiryMs })
    : undefined;
  const stopSweeping = uploads?.startSweeping(Math.min(config.uploadExpiryMs / 4, 10 * 60_000));
  app.addHook('onClose', async () => {
    stopSweeping?.();
    await worker?.stop();
    await repo.close();
  });

  await app.register(securityHeaders);
  await app.register(openApi, { publicUrl: config.publicUrl });
  await app.register(api, {
    prefix: '/api',
    repo,
    blobs,
    config,
    onNoteAccepted: () => worker?.nudge(),
    uploads,
  });
  await app.register(site, { distDir: config.distDir });
  const built: FastifyInstance = app;
  return Object.assign(built, { repo, blobs, uploads });
}
