/** Settings for runner sign-in and sessions, read from the environment (see .env.example). */
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { wholeSeconds } from './settings.js';

export const APPLE_ISSUER = 'https://appleid.apple.com';
export const APPLE_JWKS_DEFAULT = 'https://appleid.apple.com/auth/keys';

export interface AuthConfig {
  appleJwksUrl: string;
  /** Our app's bundle id: Apple's identity tokens carry it as their audience. */
  appleAudience: string;
  /** HMAC key for access tokens and signed audio URLs; every server behind a balancer needs the same one. */
  sessionSecret: Uint8Array;
  /** True when SESSION_SECRET was not set and a per-process key was made up (no DATA_DIR to keep one in). */
  ephemeralSecret: boolean;
  accessTtlSeconds: number;
  refreshTtlSeconds: number;
  /**
   * A refresh token presented again this long after its first use, its successor still unused,
   * gets the same answer (an answer lost on a congested cell); later, it revokes the session.
   */
  refreshGraceSeconds: number;
  audioUrlTtlSeconds: number;
  /** Wait this long after one JWKS fetch before another; stops forged key ids from hammering Apple. */
  jwksCooldownMs: number;
  /** Sign-in and refresh attempts allowed per IP per minute. */
  signInPerMinute: number;
}

/** The file in DATA_DIR that keeps the development secret between restarts. */
export const DEV_SECRET_FILE = 'session-secret';

/**
 * Outside production without SESSION_SECRET: the secret made on the first start and kept in
 * DATA_DIR (mode 0600), so sign-ins and signed audio URLs survive a restart. Made in a temp file
 * and linked into place, so two processes starting at once end up with the same one.
 */
function devSecret(dataDir: string): Uint8Array {
  const file = path.join(dataDir, DEV_SECRET_FILE);
  const read = () => {
    const secret = readFileSync(file);
    if (secret.length < 32)
      throw new Error(`${file} holds fewer than 32 bytes: delete it to make a new one (signed-in runners sign in again), or set SESSION_SECRET.`);
    return secret;
  };
  try {
    return read();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dataDir, { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  writeFileSync(tmp, randomBytes(48), { mode: 0o600, flag: 'wx' });
  try {
    linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
  return read();
}

/** `dataDir`: where a development secret is kept when SESSION_SECRET is unset; without it the secret lasts one process. */
export function loadAuthConfig(env: NodeJS.ProcessEnv = process.env, dataDir?: string): AuthConfig {
  const secret = env.SESSION_SECRET;
  if (secret !== undefined && secret !== '' && secret.length < 32) {
    throw new Error('SESSION_SECRET must be at least 32 characters (for example: openssl rand -base64 48).');
  }
  if ((secret === undefined || secret === '') && env.NODE_ENV === 'production') {
    throw new Error('SESSION_SECRET is required in production: sessions and audio URLs are signed with it.');
  }
  if (!env.APPLE_AUDIENCE && env.NODE_ENV === 'production') {
    throw new Error("APPLE_AUDIENCE is required in production: it is the app's bundle id, the audience of Apple's identity tokens.");
  }
  return {
    appleJwksUrl: env.APPLE_JWKS_URL || APPLE_JWKS_DEFAULT,
    appleAudience: env.APPLE_AUDIENCE || 'com.milenotes.app',
    sessionSecret: secret ? new TextEncoder().encode(secret) : dataDir ? devSecret(dataDir) : randomBytes(32),
    ephemeralSecret: !secret && !dataDir,
    accessTtlSeconds: wholeSeconds(env, 'ACCESS_TOKEN_TTL_SECONDS', 15 * 60),
    refreshTtlSeconds: wholeSeconds(env, 'REFRESH_TOKEN_TTL_SECONDS', 60 * 24 * 3600),
    refreshGraceSeconds: wholeSeconds(env, 'REFRESH_GRACE_SECONDS', 60),
    audioUrlTtlSeconds: wholeSeconds(env, 'AUDIO_URL_TTL_SECONDS', 10 * 60),
    jwksCooldownMs: wholeSeconds(env, 'APPLE_JWKS_COOLDOWN_SECONDS', 30) * 1000,
    signInPerMinute: wholeSeconds(env, 'SIGN_IN_RATE_LIMIT_PER_MINUTE', 30) || 30,
  };
}
