/** Builds the Fastify app: the API and the built site. Tests build it too; index.ts only listens. */
import cookie from '@fastify/cookie';
import Fastify, { type FastifyInstance } from 'fastify';
import { realClock, type Clock } from './clock.js';
import type { Config } from './config/index.js';
import { openRepository } from './db/index.js';
import { expireOldCookie } from './devices/cookie.js';
import { createDevices, DEVICE_SWEEP_MS, startDeviceSweep } from './devices/index.js';
import { trustedProxyOf, warnOfProxyWithoutProto } from './http/trusted-proxy.js';
import type { Repository } from './db/repository.js';
import { createDrain, stopWorker, type Drain } from './ops/drain.js';
import { createReadiness } from './ops/readiness.js';
import { compression } from './plugins/compression.js';
import { createMetrics, metricsPlugin } from './plugins/metrics.js';
import { createOpenUploads } from './intake/open-uploads.js';
import { createUploadQuota } from './intake/quota.js';
import { createIntake } from './intake/index.js';
import { createPush, type Push } from './push/index.js';
import { deadlinesFollowRunner } from './races/note-deadlines.js';
import { createRunnerMoved } from './races/runner-moved.js';
import { securityHeaders } from './plugins/security.js';
import { api } from './routes/api.js';
import { health } from './routes/health.js';
import { openApi } from './routes/runner/openapi.js';
import { createHomePage } from './routes/home-page.js';
import { raceImages } from './routes/race-images.js';
import { inlineScriptsOf, inlineStylesOf, site } from './routes/site.js';
import type { BlobStore } from './storage/blob-store.js';
import { openBlobStore } from './storage/index.js';
import { MAX_HELD_PER_ACCOUNT, startNoteChanges, type NoteChangeHub } from './sync/note-changes.js';
import type { UploadService } from './intake/resumable/service.js';
import { startConversionWorker, type ConversionWorker } from './conversion/worker.js';
import { startOrphanSweeper, type OrphanSweeper } from './ops/orphans.js';
import { scratchMinAgeMs } from './conversion/scratch.js';
import { API_PREFIX } from '../contract/paths.js';

export interface AppParts {
  repo: Repository;
  blobs: BlobStore;
  /** Resumable uploads; undefined when RESUMABLE_UPLOADS=off. */
  uploads?: UploadService;
  /** The time races are measured against (./clock.ts): the real clock unless the caller gives another (only the demo does). */
  clock: Clock;
  /** Where the log's lines go instead of stdout (the tests keep each test's with it, shown when it fails). */
  logStream?: { write(line: string): void };
}

/** What index.ts needs for a graceful stop. */
export interface AppOps {
  drain: Drain;
  /** Held sync requests: index.ts ends them first on a stop (they answer with what is there). */
  noteChanges: NoteChangeHub;
  /** Web Push: its worker is stopped with the app; tests nudge it. */
  push: Push;
}

export async function buildApp(config: Config, parts?: Partial<AppParts>): Promise<FastifyInstance & AppParts & AppOps> {
  const trustedProxy = trustedProxyOf(config.trustProxy);
  const app = Fastify({
    logger: { level: config.logLevel, ...(parts?.logStream && { stream: parts.logStream }) },
    // X-Forwarded-For only from the proxies TRUST_PROXY names; by default the socket's address.
    trustProxy: trustedProxy,
    // A connection silent this long is closed: a stalled upload ends and its partial file goes.
    // No total request time limit: a phone at 20 kbit/s takes minutes for a note and keeps moving.
    connectionTimeout: config.idleTimeoutMs,
    // Headers are checked every second (Node's default is 30 s), so the limit is near what it says.
    http: { headersTimeout: config.headersTimeoutMs, connectionsCheckingInterval: 1000 },
  });
  const repo = parts?.repo ?? (await openRepository(config));
  const blobs = parts?.blobs ?? openBlobStore(config);
  const clock = parts?.clock ?? realClock;

  let noteChanges: NoteChangeHub | undefined;
  const metrics = createMetrics(
    () => repo.ops.queueDepth(),
    () => noteChanges?.held() ?? 0,
    () => repo.jobs.deadlineStats(clock.now()),
    { folders: { data: config.dataDir, temp: config.tempDir }, minFreeBytes: config.readyMinFreeBytes },
  );
  const drain = createDrain();
  const pollMs = 2_000;
  let worker: ConversionWorker | undefined;
  // Housekeeping runs where conversion runs: API-only servers (CONVERT_WORKER=off) leave it alone.
  let sweeper: OrphanSweeper | undefined;
  if (config.convertWorker) {
    sweeper = startOrphanSweeper({
      blobs,
      refs: repo.blobRefs,
      log: app.log.child({ component: 'orphans' }),
      minAgeMs: config.orphanMinAgeMs,
      intervalMs: config.orphanSweepIntervalMs,
      scratchMinAgeMs: scratchMinAgeMs(config.ffmpegTimeoutMs),
    });
    worker = startConversionWorker({
      repo,
      blobs,
      log: app.log.child({ component: 'convert' }),
      ffmpegTimeoutMs: config.ffmpegTimeoutMs,
      maxNoteSeconds: config.maxNoteSeconds,
      concurrency: config.convertConcurrency,
      pollMs,
      leaseMs: config.convertLeaseMs,
      heartbeatMs: config.convertHeartbeatMs,
      events: metrics.conversion,
      clock,
    });
  }
  const intake = createIntake(
    {
      repo,
      blobs,
      quota: createUploadQuota(repo.quota, config.uploads),
      log: app.log.child({ component: 'intake' }),
      onAccepted: () => worker?.nudge(),
      raceNow: clock.now,
    },
    config.resumableUploads ? { expiryMs: config.uploadExpiryMs } : undefined,
  );
  const { uploads } = intake;
  const push = await createPush({
    repo,
    config: config.push,
    sessionSecret: config.auth.sessionSecret,
    log: app.log.child({ component: 'push' }),
    events: metrics.push,
    raceNow: clock.now,
  });
  // The runner moved: the waiting notes' deadlines follow before the batch is answered; the
  // spectators' marker alerts after it (push.positionsMoved never holds the batch up).
  const runnerMoved = createRunnerMoved();
  runnerMoved.listen(deadlinesFollowRunner(repo));
  runnerMoved.listen(({ entryId, at }) => push.positionsMoved(entryId, at));
  noteChanges = await startNoteChanges(
    repo.notes,
    { maxHeld: config.syncMaxHeld, maxHeldPerAccount: MAX_HELD_PER_ACCOUNT },
    app.log.child({ component: 'sync' }),
  );
  // Before the server waits for requests in flight: held ones answer now instead of holding the stop up.
  app.addHook('preClose', async () => noteChanges?.stop());
  const stopSweeping = uploads?.startSweeping(Math.min(config.uploadExpiryMs / 4, 10 * 60_000));
  // The phones links are opened on: one for the API and /r/:token's page.
  const devices = createDevices(repo, config.auth.sessionSecret, { publicUrl: config.publicUrl, newPhonesPerHour: config.linkNewPhonesPerHour });
  // Every server sweeps the rows of phones unseen for the cookie's life (several sweeping is harmless).
  const stopDeviceSweep = startDeviceSweep(devices, DEVICE_SWEEP_MS, app.log.child({ component: 'devices' }));
  app.addHook('onClose', async () => {
    stopSweeping?.();
    stopDeviceSweep();
    // The connections are closed by now; an append cut by the stop still commits what arrived.
    await uploads?.settle();
    if (worker) await stopWorker(worker, repo, config.shutdownGraceMs, app.log);
    await sweeper?.stop();
    await push.stop();
    await noteChanges?.close();
    await repo.close();
  });

  await app.register(metricsPlugin, { ...config.metrics, metrics, now: clock.now });
  await app.register(drain.plugin);
  await app.register(health, {
    readiness: createReadiness({
      repo,
      blobs,
      worker,
      idleBeatMs: pollMs * 3 + 5_000,
      busyBeatMs: config.convertLeaseMs,
      stopping: drain.stopping,
      space: { dirs: [config.dataDir, config.tempDir], minFreeBytes: config.readyMinFreeBytes },
      onFailure: (check, err) => app.log.warn({ err, check }, 'readiness check failed'),
    }),
  });
  await app.register(securityHeaders, { inlineStyles: inlineStylesOf(config.distDir), inlineScripts: inlineScriptsOf(config.distDir) });
  await app.register(compression);
  await app.register(openApi, { publicUrl: config.publicUrl });
  // The device cookie (server/devices), read and set by the API and /r/:token's page alike.
  await app.register(cookie);
  // The old, adoptable cookie goes from every phone that still sends it.
  app.addHook('onRequest', async (req, reply) => expireOldCookie(req, reply));
  warnOfProxyWithoutProto(app, trustedProxy);
  await app.register(api, {
    devices,
    prefix: API_PREFIX,
    repo,
    blobs,
    config,
    openUploads: createOpenUploads(config.uploads.openUploadsPerAddress),
    intake,
    noteChanges,
    clock,
    push,
    runnerMoved,
  });
  await app.register(raceImages, { races: repo.races, blobs });
  const home = createHomePage({
    distDir: config.distDir,
    races: repo.races,
    cacheMs: config.homePageCacheMs,
    appStoreUrl: config.appStoreUrl,
    log: app.log.child({ component: 'home' }),
    raceNow: clock.now,
  });
  await app.register(site, { distDir: config.distDir, home, recorder: { repo, clock, devices, rateLimitPerMinute: config.rateLimitPerMinute } });
  const built: FastifyInstance = app;
  return Object.assign(built, { repo, blobs, drain, uploads, noteChanges, clock, push });
}
