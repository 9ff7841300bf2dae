/** Server configuration, read once from the environment. The CLI reads the same. */
import path from 'node:path';
import { loadAuthConfig, type AuthConfig } from './auth/config.js';

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
  /** Longest one ffmpeg conversion may run before it is killed. */
  ffmpegTimeoutMs: number;
  /** Runner sign-in, sessions and signed audio URLs (server/auth). */
  auth: AuthConfig;
  /** Resumable note uploads (IETF draft); RESUMABLE_UPLOADS=off makes every upload a whole PUT again. */
  resumableUploads: boolean;
  /** How long an unfinished resumable upload is kept before it and its parts are removed. */
  uploadExpiryMs: number;
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive whole number, got '${raw}'`);
  return value;
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

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got '${env.PORT}'`);
  return {
    port,
    host: env.HOST ?? '0.0.0.0',
    publicUrl: (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/$/, ''),
    dataDir: path.resolve(env.DATA_DIR ?? 'data'),
    databaseUrl: env.DATABASE_URL || undefined,
    s3: loadS3(env),
    distDir: path.resolve(env.DIST_DIR ?? 'dist'),
    logLevel: env.LOG_LEVEL ?? 'info',
    convertWorker: !['off', '0', 'false'].includes((env.CONVERT_WORKER ?? 'on').toLowerCase()),
    rateLimitPerMinute: positiveInt(env, 'RATE_LIMIT_PER_MINUTE', 120),
    ffmpegTimeoutMs: positiveInt(env, 'FFMPEG_TIMEOUT_MS', 60_000),
    auth: loadAuthConfig(env),
    resumableUploads: !['off', '0', 'false'].includes((env.RESUMABLE_UPLOADS ?? 'on').toLowerCase()),
    uploadExpiryMs: positiveInt(env, 'UPLOAD_EXPIRY_HOURS', 24) * 60 * 60 * 1000,
  };
}
