/**
 * Everything under /api: one error path (../plugins/api-errors.ts), no caching unless a route says
 * otherwise, and three families of routes as siblings: the recorder's (raw audio bodies, ./recorder.ts),
 * The home screen's list of this phone's links (./home-screen.ts) and the runner app's with the keepsake
 * routes (JSON, ./runner/).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Clock } from '../clock.js';
import type { Config } from '../config/index.js';
import type { Repository } from '../db/repository.js';
import type { Devices } from '../devices/index.js';
import { installApiErrors } from '../plugins/api-errors.js';
import type { Intake } from '../intake/index.js';
import type { OpenUploads } from '../intake/open-uploads.js';
import type { Push } from '../push/index.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { NoteChangeHub } from '../sync/note-changes.js';
import { homeScreenApi } from './home-screen.js';
import { recorderApi } from './recorder.js';
import type { RunnerMovedEvent } from '../races/runner-moved.js';
import { runnerApi } from './runner/index.js';

export interface ApiOptions {
  repo: Repository;
  blobs: BlobStore;
  config: Pick<Config, 'auth' | 'publicUrl' | 'rateLimitPerMinute' | 'idleTimeoutMs'>;
  /** The phones links are opened on (server/devices): one for the server, shared with /r/:token's page. */
  devices: Devices;
  /** Held sync requests of the runner's app (server/sync). */
  noteChanges: NoteChangeHub;
  openUploads: OpenUploads;
  /** Where a note's bytes go; without resumable uploads (RESUMABLE_UPLOADS=off) the upload routes 404. */
  intake: Intake;
  /** The time races are measured against (../clock.ts). */
  clock: Clock;
  /** Web Push (server/push): the recorder's subscriptions, the runner app's plays. */
  push: Push;
  /** What the runner app's position batches tell (server/races/runner-moved.ts). */
  runnerMoved: RunnerMovedEvent;
}

export const api: FastifyPluginAsync<ApiOptions> = async (
  app,
  { repo, blobs, config, openUploads, intake, noteChanges, clock, push, runnerMoved, devices },
) => {
  installApiErrors(app);
  // An unknown /api path is a 404 whatever its body: the not-found answer reads none.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
  app.addHook('onSend', async (_req, reply, payload) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });
  await app.register(recorderApi, { repo, rateLimitPerMinute: config.rateLimitPerMinute, openUploads, intake, devices, clock, push });
  await app.register(homeScreenApi, { devices, rateLimitPerMinute: config.rateLimitPerMinute, clock });
  await app.register(runnerApi, { repo, blobs, config, noteChanges, clock, push, runnerMoved });
};
