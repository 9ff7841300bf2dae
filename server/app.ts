/** Builds the Fastify app: the API and the built site. Tests build it too; index.ts only listens. */
import cookie from '@fastify/cookie';
import Fastify, { type FastifyInstance } from 'fastify';
import { realClock, type Clock } from './clock.js';
import type { Config } from './config/index.js';
import { openRepository } from './db/index.js';
import { expireOldCookie } from './devices/cookie.js';
import { createDevices, type Devices } from './devices/index.js';
import { trustedProxyOf, warnOfProxyWithoutProto } from './http/trusted-proxy.js';
import type { Repository } from './db/repository.js';
import { createDrain, type Drain } from './ops/drain.js';
import { createReadiness } from './ops/readiness.js';
import { compression } from './plugins/compression.js';
import { createMetrics, metricsPlugin, type Metrics } from './plugins/metrics.js';
import { createOpenUploads } from './intake/open-uploads.js';
import { createUploadQuota } from './intake/quota.js';
import { createIntake, type Intake } from './intake/index.js';
import { createPush, type Push } from './push/index.js';
import { deadlinesFollowRunner } from './races/note-deadlines.js';
import { createRunnerMoved, type RunnerMovedEvent } from './races/runner-moved.js';
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
import type { ConversionWorker } from './conversion/worker.js';
import type { Background } from './background/services.js';
import { conversionIdleBeatMs, CONVERSION_POLL_MS } from './config/background.js';
import { backgroundWork, conversionOf, type WorkDeps } from './app-work.js';
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
  /** Web Push: its loops run with the app's other background work; tests nudge it. */
  push: Push;
  /** The background work, started when the app is ready and stopped, in reverse order, when it closes. */
  background: Background;
}

export async function buildApp(config: Config, parts?: Partial<AppParts>): Promise<FastifyInstance & AppParts & AppOps> {
  const trustedProxy = trustedProxyOf(config.trustProxy);
  const app = createFastify(config, trustedProxy, parts?.logStream);
  const repo = parts?.repo ?? (await openRepository(config));
  const blobs = parts?.blobs ?? openBlobStore(config);
  const clock = parts?.clock ?? realClock;
  const work: WorkDeps = { config, repo, blobs, clock, log: app.log };

  let noteChanges: NoteChangeHub | undefined;
  const metrics = createMetrics(
    () => repo.ops.queueDepth(),
    () => noteChanges?.held() ?? 0,
    () => repo.jobs.deadlineStats(clock.now()),
    { folders: { data: config.dataDir, temp: config.tempDir }, minFreeBytes: config.readyMinFreeBytes },
  );
  const drain = createDrain();
  const conversion = conversionOf(work, metrics.conversion);
  const intake = createIntake(
    {
      repo,
      blobs,
      quota: createUploadQuota(repo.quota, config.uploads),
      log: app.log.child({ component: 'intake' }),
      onAccepted: () => conversion?.nudge(),
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
  const held = noteChanges;
  // The phones links are opened on: one for the API and /r/:token's page.
  const devices = createDevices(repo, config.auth.sessionSecret, { publicUrl: config.publicUrl, newPhonesPerHour: config.linkNewPhonesPerHour });
  const background = backgroundWork(work, { conversion, push, uploads, devices });
  // Once every plugin is in place (inject and listen alike): the loops may nudge and serve at once.
  app.addHook('onReady', async () => background.start());
  // Before the server waits for requests in flight: held ones answer now instead of holding the stop up.
  app.addHook('preClose', async () => held.stop());
  app.addHook('onClose', async () => {
    // The connections are closed by now; an append cut by the stop still commits what arrived.
    await uploads?.settle();
    await background.stop();
    await held.close();
    await repo.close();
  });

  await registerPlugins(app, { config, repo, blobs, clock, metrics, drain, conversion, trustedProxy });
  await registerSite(app, { config, repo, blobs, clock, devices, intake, noteChanges: held, push, runnerMoved });
  const built: FastifyInstance = app;
  return Object.assign(built, { repo, blobs, drain, uploads, noteChanges: held, clock, push, background });
}

function createFastify(config: Config, trustProxy: ReturnType<typeof trustedProxyOf>, logStream: AppParts['logStream']): FastifyInstance {
  return Fastify({
    logger: { level: config.logLevel, ...(logStream && { stream: logStream }) },
    // X-Forwarded-For only from the proxies TRUST_PROXY names; by default the socket's address.
    trustProxy,
    // A connection silent this long is closed: a stalled upload ends and its partial file goes.
    // No total request time limit: a phone at 20 kbit/s takes minutes for a note and keeps moving.
    connectionTimeout: config.idleTimeoutMs,
    // Headers are checked every second (Node's default is 30 s), so the limit is near what it says.
    http: { headersTimeout: config.headersTimeoutMs, connectionsCheckingInterval: 1000 },
  });
}

/** What every request passes through: metrics, the drain, health, headers, compression, the OpenAPI page and cookies. */
async function registerPlugins(
  app: FastifyInstance,
  p: Pick<WorkDeps, 'config' | 'repo' | 'blobs' | 'clock'> & {
    metrics: Metrics;
    drain: Drain;
    conversion: ConversionWorker | undefined;
    trustedProxy: ReturnType<typeof trustedProxyOf>;
  },
): Promise<void> {
  const { config } = p;
  await app.register(metricsPlugin, { ...config.metrics, metrics: p.metrics, now: p.clock.now });
  await app.register(p.drain.plugin);
  await app.register(health, {
    readiness: createReadiness({
      repo: p.repo,
      blobs: p.blobs,
      worker: p.conversion,
      idleBeatMs: conversionIdleBeatMs(CONVERSION_POLL_MS),
      busyBeatMs: config.convertLeaseMs,
      stopping: p.drain.stopping,
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
  warnOfProxyWithoutProto(app, p.trustedProxy);
}

/** The API, the races' images, the home page and the rest of the built site. */
async function registerSite(
  app: FastifyInstance,
  p: Pick<WorkDeps, 'config' | 'repo' | 'blobs' | 'clock'> & {
    devices: Devices;
    intake: Intake;
    noteChanges: NoteChangeHub;
    push: Push;
    runnerMoved: RunnerMovedEvent;
  },
): Promise<void> {
  const { config, repo, blobs, clock, devices } = p;
  await app.register(api, {
    devices,
    prefix: API_PREFIX,
    repo,
    blobs,
    config,
    openUploads: createOpenUploads(config.uploads.openUploadsPerAddress),
    intake: p.intake,
    noteChanges: p.noteChanges,
    clock,
    push: p.push,
    runnerMoved: p.runnerMoved,
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
}
