/** Server configuration, read once from the environment. The CLI reads the same. */
import path from 'node:path';

export interface Config {
  port: number;
  host: string;
  /** Base URL that links point at, e.g. http://localhost:8080. */
  publicUrl: string;
  /** Local data: the SQLite file and, without S3, the audio files. */
  dataDir: string;
  /** PostgreSQL when set; otherwise a SQLite file in dataDir. */
  databaseUrl: string | undefined;
  /** The built site (npm run build). */
  distDir: string;
  logLevel: string;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got '${env.PORT}'`);
  return {
    port,
    host: env.HOST ?? '0.0.0.0',
    publicUrl: (env.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/$/, ''),
    dataDir: path.resolve(env.DATA_DIR ?? 'data'),
    databaseUrl: env.DATABASE_URL || undefined,
    distDir: path.resolve(env.DIST_DIR ?? 'dist'),
    logLevel: env.LOG_LEVEL ?? 'info',
  };
}
