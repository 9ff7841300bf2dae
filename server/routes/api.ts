/** Everything under /api: JSON errors, no caching, per-link rate limits, and the recorder routes. */
import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginAsync } from 'fastify';
import type { Repository } from '../db/repository.js';
import { ApiProblem } from '../http/problem.js';
import { installApiErrors } from '../plugins/api-errors.js';
import type { BlobStore } from '../storage/blob-store.js';
import { recorderRoutes } from './recorder.js';
import type { UploadService } from '../uploads/service.js';
import { uploadRoutes } from './uploads.js';

export interface ApiOptions {
  repo: Repository;
  blobs: BlobStore;
  rateLimitPerMinute: number;
  onNoteAccepted: () => void;
  /** Resumable uploads; undefined when RESUMABLE_UPLOADS=off (the upload routes then 404). */
  uploads?: UploadService;
}

export const api: FastifyPluginAsync<ApiOptions> = async (app, opts) => {
  installApiErrors(app);
  // Note bodies are raw audio of any type: hand the request stream to the route untouched, so
  // nothing is buffered whole and the route judges the type by the bytes. No /api route takes JSON.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('cache-control', 'no-store');
    return payload;
  });

  // Counters live in this process's memory: with several servers behind a balancer each
  // counts on its own, so the effective limit is per server. Good enough against a runaway
  // client; a shared store (Redis) would make it exact.
  await app.register(rateLimit, {
    max: opts.rateLimitPerMinute,
    timeWindow: 60_000,
    keyGenerator: (req) => `${req.ip}|${(req.params as { token?: string }).token ?? ''}`,
    errorResponseBuilder: (_req, context) =>
      new ApiProblem(429, 'rate_limited', 'Too many requests in a short time. Please wait a moment; your notes will be sent again.', {
        'retry-after': String(Math.max(1, Math.ceil(context.ttl / 1000))),
      }),
  });

  await app.register(recorderRoutes, { repo: opts.repo, blobs: opts.blobs, onNoteAccepted: opts.onNoteAccepted, uploads: opts.uploads });
  if (opts.uploads) await app.register(uploadRoutes, { uploads: opts.uploads });
};
