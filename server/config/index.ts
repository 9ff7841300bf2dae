/** Server configuration, read once from the environment. The CLI reads the same. */
import os from 'node:os';
import path from 'node:path';
import { MAX_NOTE_BYTES } from '../../contract/limits.js';
import { loadAuthConfig, type AuthConfig } from './auth.js';
import { CONVERSION_LEASE_MS, heartbeatFor } from './background.js';
import { loadPushConfig, type PushConfig } from './push.js';
import { positiveInt } from './settings.js';

export interface S3Config {
  bucket: string;
  /** Custom endpoint for S3-compatible stores (MinIO, s3rver, R2); unset for AWS. */
  endpoint: string | undefined;
  region: string;
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  forcePathStyle: boolean;
}

export interface Config {
  port: number;
  host: string;
  /** Base URL that links point at, e.g. http://localhost:8080. */
  publicUrl: string;
  /** Local data: the SQLite file and, without S3, the audio files. */
  dataDir: string;
  /** PostgreSQL when set; otherwise a SQLite file in dataDir. */
  databaseUrl: string | undefined;
  /** Audio goes to S3 when set; otherwise to dataDir. */
  s3: S3Config | undefined;
  /** The built site (npm run build). */
  distDir: string;
  logLevel: string;
  /** Run the background audio conversion in this process (CONVERT_WORKER=off to disable). */
  convertWorker: boolean;
  /** Recorder API requests allowed per IP and link per minute. */
  rateLimitPerMinute: number;
  /**
   * New phones one recorder link takes in any hour, counted in the database over every server
   * (LINK_NEW_PHONES_PER_HOUR, server/db/device-store.ts). 100: a club's friends opening it on race
   * morning pass, while filling a link's 500 phones takes at least four hours.
   */
  linkNewPhonesPerHour: number;
  /** Longest one ffmpeg conversion may run before it is killed. */
  ffmpegTimeoutMs: number;
  /** Notes longer than this are failed with the reason, never converted (server/audio/length.ts). */
  maxNoteSeconds: number;
  /** Conversions run side by side in this process, so one slow file never holds up the rest. */
  convertConcurrency: number;
  /** Blobs no row refers to, and stale temp files, older than this are removed (server/ops/orphans.ts). */
  orphanMinAgeMs: number;
  /** How often this process looks for them, after once at start. */
  orphanSweepIntervalMs: number;
  /** Runner sign-in, sessions and signed audio URLs (server/auth). */
  auth: AuthConfig;
  /** How long a conversion job stays one worker's without a heartbeat before another server may take it over (CONVERSION_LEASE_MS, ./background.ts). */
  convertLeaseMs: number;
  /** How often a running conversion renews its lease (heartbeatFor the lease, ./background.ts). */
  convertHeartbeatMs: number;
  /** On SIGTERM: how long uploads in flight, then the conversion in hand, may take to finish. */
  shutdownGraceMs: number;
  /** GET /metrics for anyone (METRICS=on), else only from these socket addresses (METRICS_ALLOW). */
  metrics: { enabled: boolean; allow: string[] };
  /** Upload limits counted in the database (server/intake/quota.ts) and held per process (open uploads). */
  uploads: UploadLimits;
  /** Which proxies may name the client in X-Forwarded-For: false (none) or their addresses/CIDRs. */
  trustProxy: TrustProxy;
  /** Longest a client may take to send a request's headers. */
  headersTimeoutMs: number;
  /**
   * A connection that sends and receives nothing this long is closed. Above the note body's own
   * silence cut (APPEND_IDLE_MS, which keeps what arrived), so a stalling but live upload from a
   * one-bar phone is never cut here; the open-uploads cap bounds what a stranger can hold open.
   */
  idleTimeoutMs: number;
  /** Resumable note uploads (IETF draft); RESUMABLE_UPLOADS=off makes every upload a whole PUT again. */
  resumableUploads: boolean;
  /** Held sync requests (server/sync): at most this many per process (SYNC_MAX_HELD), past it 503 + Retry-After. */
  syncMaxHeld: number;
  /** How long an unfinished resumable upload is kept before it and its parts are removed. */
  uploadExpiryMs: number;
  /**
   * /readyz answers 503 when less than this is free under dataDir or tempDir (READY_MIN_FREE_MB;
   * default: readyMinFreeDefault), so a balancer sends notes elsewhere before the disk is full.
   */
  readyMinFreeBytes: number;
  /** The system's temp folder (TMPDIR) when the server started: S3 uploads wait there, conversions work there. */
  tempDir: string;
  /**
   * Which waiting note is converted next (CONVERT_ORDER): `deadline`, the one the runner is expected
   * to reach first, or `arrival`, the oldest (first come, first served, as before).
   */
  convertOrder: ConvertOrder;
  /**
   * How long one rendering of the home page (its races ahead) is served (HOME_PAGE_CACHE_SECONDS,
   * at most 60): a race added on any server shows on every server within it.
   */
  homePageCacheMs: number;
  /** The runner app's page on the App Store (APP_STORE_URL): the home page's badge links there; unset, it says the app is coming. */
  appStoreUrl: string | undefined;
  /** Web Push: on unless PUSH=off; keys, subject, the hosts pushes may go to, limits (./push.ts). */
  push: PushConfig;
}

export type ConvertOrder = 'deadline' | 'arrival';

function convertOrder(raw: string | undefined): ConvertOrder {
  const value = (raw ?? '').trim().toLowerCase() || 'deadline';
  if (value !== 'deadline' && value !== 'arrival') throw new Error(`CONVERT_ORDER must be deadline or arrival, got '${raw}'`);
  return value;
}

export interface UploadLimits {
  linkMaxNotes: number;
  linkMaxBytes: number;
  /**
   * Notes one address (an IPv4 address, an IPv6 /64) may start per window, over all links, in any
   * span of uploadWindowMs, counted in the database; a retried note counts once. Sized for a crowd
   * behind a carrier NAT at a venue, not for one sender: a link's own quota bounds one link.
   */
  uploadsPerAddress: number;
  uploadWindowMs: number;
  /** Uploads one address may have open at once on one server (a venue's crowd sends side by side). */
  openUploadsPerAddress: number;
}

export type TrustProxy = false | string[];

/**
 * TRUST_PROXY: unset or 'off' trusts nobody (the socket's address is the client); otherwise a
 * comma-separated list of the proxies' addresses or CIDRs, or proxy-addr's names (loopback,
 * linklocal, uniquelocal), as Fastify's trustProxy takes them. Not 'true' (anyone could name
 * themselves) and not a hop count (Fastify 5 ignores one: it cannot check the nearest peer).
 */
export function parseTrustProxy(raw: string | undefined): TrustProxy {
  const value = (raw ?? '').trim();
  if (value === '' || ['off', 'false', 'no'].includes(value.toLowerCase())) return false;
  const list = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const entry of list) {
    if (!/^(([0-9]{1,3}\.){3}[0-9]{1,3}|[0-9a-fA-F]*:[0-9a-fA-F:.]*)(\/\d{1,3})?$|^(loopback|linklocal|uniquelocal)$/.test(entry)) {
      throw new Error(`TRUST_PROXY must list the proxies' addresses or CIDRs (or loopback, linklocal, uniquelocal), got '${entry}'`);
    }
  }
  return list;
}

function loadS3(env: NodeJS.ProcessEnv): S3Config | undefined {
  if (!env.S3_BUCKET) return undefined;
  return {
    bucket: env.S3_BUCKET,
    endpoint: env.S3_ENDPOINT || undefined,
    region: env.S3_REGION ?? 'us-east-1',
    accessKeyId: env.S3_ACCESS_KEY_ID || undefined,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY || undefined,
    forcePathStyle: env.S3_FORCE_PATH_STYLE === 'true' || env.S3_FORCE_PATH_STYLE === '1',
  };
}

/** The home page promises a new race within a minute: more than 60 s would break it. */
function homePageCacheSeconds(env: NodeJS.ProcessEnv): number {
  const seconds = positiveInt(env, 'HOME_PAGE_CACHE_SECONDS', 30);
  if (seconds > 60) throw new Error(`HOME_PAGE_CACHE_SECONDS must be at most 60 (a race added shows within a minute), got '${env.HOME_PAGE_CACHE_SECONDS}'`);
  return seconds;
}

/**
 * The badge reads "Download on the App Store", so it may only ever lead to the App Store: an https
 * address on apps.apple.com, or nothing.
 */
export function parseAppStoreUrl(raw: string | undefined): string | undefined {
  const value = (raw ?? '').trim();
  if (value === '') return undefined;
  const url = URL.parse(value);
  if (url?.protocol !== 'https:' || url.hostname !== 'apps.apple.com' || url.username || url.password || url.port) {
    throw new Error(`APP_STORE_URL must be the app's page on the App Store, https://apps.apple.com/..., got '${value.slice(0, 100)}'`);
  }
  return url.href;
}

/** Where the data lives, read without side effects: backup and restore must not create anything in DATA_DIR. */
export function loadStorageConfig(env: NodeJS.ProcessEnv = process.env): Pick<Config, 'dataDir' | 'databaseUrl' | 's3'> {
  return { dataDir: path.resolve(env.DATA_DIR ?? 'data'), databaseUrl: env.DATABASE_URL || undefined, s3: loadS3(env) };
}

/** The conversion lease and its heartbeat; a heartbeat not well inside the lease would let a live job be taken. */
function leaseTiming(env: NodeJS.ProcessEnv): Pick<Config, 'convertLeaseMs' | 'convertHeartbeatMs'> {
  const convertLeaseMs = positiveInt(env, 'CONVERT_LEASE_MS', CONVERSION_LEASE_MS);
  const convertHeartbeatMs = positiveInt(env, 'CONVERT_HEARTBEAT_MS', heartbeatFor(convertLeaseMs));
  if (convertHeartbeatMs * 2 > convertLeaseMs) {
    throw new Error(
      `CONVERT_HEARTBEAT_MS (${convertHeartbeatMs}) must be at most half of CONVERT_LEASE_MS (${convertLeaseMs}), so one late beat does not lose the lease.`,
    );
  }
  return { convertLeaseMs, convertHeartbeatMs };
}

/**
 * A one-bar phone at a venue goes silent for about 20 s and then goes on; the venue
 * schedule of the delivery bench measured at most a few seconds inside a live upload. Three times
 * the field figure: a stall is not a cut.
 */
export const IDLE_TIMEOUT_DEFAULT_MS = 60_000;

const MIB = 1024 * 1024;

/**
 * The free space /readyz asks for by default: room for what this server may already have taken on
 * when it turns not-ready and the balancer stops sending. That is the uploads open at once (as many
 * as one address may hold, OPEN_UPLOADS_PER_ADDRESS: a venue's crowd behind one carrier NAT, the
 * most this server lets one network hold) at the note cap each, plus each conversion in hand (its
 * original copied to scratch and its M4A, each at most the note cap). With the defaults, 64 x 3 MiB
 * + 2 x 2 x 3 MiB = 204 MiB. In MiB, rounded up.
 */
export const readyMinFreeDefault = (openUploadsPerAddress: number, convertConcurrency: number): number =>
  Math.ceil(((openUploadsPerAddress + 2 * convertConcurrency) * MAX_NOTE_BYTES) / MIB);

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got '${env.PORT}'`);
  const { dataDir, databaseUrl, s3 } = loadStorageConfig(env);
  const ffmpegTimeoutMs = positiveInt(env, 'FFMPEG_TIMEOUT_MS', 60_000);
  const convertConcurrency = positiveInt(env, 'CONVERT_CONCURRENCY', 2);
  const openUploadsPerAddress = positiveInt(env, 'OPEN_UPLOADS_PER_ADDRESS', 64);
  const publicUrl = (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/$/, '');
  return {
    port,
    host: env.HOST ?? '0.0.0.0',
    publicUrl,
    dataDir,
    databaseUrl,
    s3,
    distDir: path.resolve(env.DIST_DIR ?? 'dist'),
    logLevel: env.LOG_LEVEL ?? 'info',
    convertWorker: !['off', '0', 'false'].includes((env.CONVERT_WORKER ?? 'on').toLowerCase()),
    rateLimitPerMinute: positiveInt(env, 'RATE_LIMIT_PER_MINUTE', 120),
    linkNewPhonesPerHour: positiveInt(env, 'LINK_NEW_PHONES_PER_HOUR', 100),
    ffmpegTimeoutMs,
    maxNoteSeconds: positiveInt(env, 'MAX_NOTE_SECONDS', 75),
    convertConcurrency,
    orphanMinAgeMs: positiveInt(env, 'ORPHAN_MIN_AGE_MS', 60 * 60_000),
    orphanSweepIntervalMs: positiveInt(env, 'ORPHAN_SWEEP_INTERVAL_MS', 60 * 60_000),
    auth: loadAuthConfig(env, dataDir),
    ...leaseTiming(env),
    shutdownGraceMs: positiveInt(env, 'SHUTDOWN_GRACE_MS', 20_000),
    metrics: {
      enabled: ['on', '1', 'true'].includes((env.METRICS ?? 'off').toLowerCase()),
      allow: (env.METRICS_ALLOW ?? '')
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean),
    },
    uploads: {
      linkMaxNotes: positiveInt(env, 'LINK_MAX_NOTES', 200),
      linkMaxBytes: positiveInt(env, 'LINK_MAX_BYTES', 100 * 1024 * 1024),
      uploadsPerAddress: positiveInt(env, 'UPLOADS_PER_ADDRESS', 1000),
      uploadWindowMs: positiveInt(env, 'UPLOAD_WINDOW_SECONDS', 600) * 1000,
      openUploadsPerAddress,
    },
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    headersTimeoutMs: positiveInt(env, 'HEADERS_TIMEOUT_MS', 15_000),
    idleTimeoutMs: positiveInt(env, 'IDLE_TIMEOUT_MS', IDLE_TIMEOUT_DEFAULT_MS),
    resumableUploads: !['off', '0', 'false'].includes((env.RESUMABLE_UPLOADS ?? 'on').toLowerCase()),
    uploadExpiryMs: positiveInt(env, 'UPLOAD_EXPIRY_HOURS', 24) * 60 * 60 * 1000,
    // Race morning: a thousand phones each holding one on a server is the plan.
    syncMaxHeld: positiveInt(env, 'SYNC_MAX_HELD', 5_000),
    // 0 turns the check off.
    readyMinFreeBytes:
      (env.READY_MIN_FREE_MB === '0' ? 0 : positiveInt(env, 'READY_MIN_FREE_MB', readyMinFreeDefault(openUploadsPerAddress, convertConcurrency))) * MIB,
    tempDir: os.tmpdir(),
    convertOrder: convertOrder(env.CONVERT_ORDER),
    homePageCacheMs: homePageCacheSeconds(env) * 1000,
    appStoreUrl: parseAppStoreUrl(env.APP_STORE_URL),
    push: loadPushConfig(env, publicUrl),
  };
}
