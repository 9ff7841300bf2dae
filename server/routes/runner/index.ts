/**
 * The runner app's API under /api (JSON, bearer sessions) and the keepsake routes the site uses.
 * A sibling of the recorder API (../recorder.ts), not inside it: that one takes raw audio bodies.
 * /api/openapi.json (./openapi.ts) is generated from the typebox schemas the routes validate with.
 */
import type { FastifyPluginAsync } from 'fastify';
import { createAppleVerifier } from '../../auth/apple.js';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config/index.js';
import type { Repository } from '../../db/repository.js';
import type { Push } from '../../push/index.js';
import type { RunnerMovedEvent } from '../../races/runner-moved.js';
import type { BlobStore } from '../../storage/blob-store.js';
import type { NoteChangeHub } from '../../sync/note-changes.js';
import { accountRoutes } from './account.js';
import { authRoutes } from './auth.js';
import { BEARER, requireRunner, type RunnerContext } from './context.js';
import { entryNoteRoutes } from './entry-notes.js';
import { entryRoutes } from './entries.js';
import { noteRoutes } from './notes.js';
import { raceRoutes } from './races.js';
import { progressRoutes } from './progress.js';
import { shareRoutes } from './shares.js';

export interface RunnerApiOptions {
  repo: Repository;
  blobs: BlobStore;
  config: Pick<Config, 'auth' | 'publicUrl' | 'idleTimeoutMs'>;
  noteChanges: NoteChangeHub;
  clock: Clock;
  push: Push;
  runnerMoved: RunnerMovedEvent;
}

export const runnerApi: FastifyPluginAsync<RunnerApiOptions> = async (app, { repo, blobs, config, noteChanges, clock, push, runnerMoved }) => {
  if (config.auth.ephemeralSecret) {
    app.log.warn('SESSION_SECRET is not set: sessions and audio URLs last only until this process stops');
  }
  const ctx: RunnerContext = {
    repo,
    blobs,
    auth: config.auth,
    publicUrl: config.publicUrl,
    clock,
    // A held answer goes out a second before the idle timeout would close its silent connection.
    sync: { hub: noteChanges, maxHoldMs: Math.max(0, config.idleTimeoutMs - 1_000) },
    push,
    runnerMoved,
    verifyApple: createAppleVerifier({ jwksUrl: config.auth.appleJwksUrl, audience: config.auth.appleAudience, cooldownMs: config.auth.jwksCooldownMs }),
  };

  // JSON only (the /api parent hands bodies over raw, for the recorder's audio).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, app.getDefaultJsonParser('error', 'error'));

  // A missing session is the first thing to report, before any complaint about the body.
  app.addHook('onRoute', (route) => {
    if (route.schema?.security !== BEARER) return;
    const hooks = route.onRequest === undefined ? [] : [route.onRequest].flat();
    route.onRequest = [async (req) => void (await requireRunner(ctx, req)), ...hooks];
  });
  for (const routes of [authRoutes, raceRoutes, entryRoutes, entryNoteRoutes, noteRoutes, shareRoutes, accountRoutes, progressRoutes]) {
    await app.register(routes, { ctx });
  }
};
