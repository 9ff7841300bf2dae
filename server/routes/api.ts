/** Everything under /api: JSON errors, no caching, per-link rate limits, and the recorder routes. */
import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginAsync } from 'fastify';
import type { Repository } from '../db/repository.js';
import { ApiProblem } from '../http/problem.js';
import { installApiErrors } from '../plugins/api-errors.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { OpenUploads } from '../notes/open-uploads.js';
import type { UploadQuota } from '../notes/quota.js';
import { recorderRoutes } from './recorder.js';

export interface ApiOptions {
  repo: Repository;
  blobs: BlobStore;
  rateLimitPerMinute: number;
  quota: UploadQuota;
  openUploads: OpenUploads;
  onNoteAccepted: () => void;
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

  // A first line against a runaway client, counted in this process's memory (per server). The
  // limits that must hold across servers (notes per link, uploads per address) are counted in
  // the database by server/notes/quota.ts.
  await app.register(rateLimit, {
    max: opts.rateLimitPerMinute,
    timeWindow: 60_000,
    keyGenerator: (req) => `${req.ip}|${(req.params as { token?: string }).token ?? ''}`,
    errorResponseBuilder: (_req, context) =>
      new ApiProblem(429, 'rate_limited', 'Too many requests in a short time. Please wait a moment; your notes will be sent again.', {
        'retry-after': String(Math.max(1, Math.ceil(context.ttl / 1000))),
      }),
  });

  await app.register(recorderRoutes, {
    repo: opts.repo, blobs: opts.blobs, quota: opts.quota, openUploads: opts.openUploads, onNoteAccepted: opts.onNoteAccepted,
  });
};
