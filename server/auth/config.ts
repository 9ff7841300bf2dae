/** Settings for runner sign-in and sessions, read from the environment (see .env.example). */
import { randomBytes } from 'node:crypto';

export const APPLE_ISSUER = 'https://appleid.apple.com';
export const APPLE_JWKS_DEFAULT = 'https://appleid.apple.com/auth/keys';

export interface AuthConfig {
  appleJwksUrl: string;
  /** Our app's bundle id: Apple's identity tokens carry it as their audience. */
  appleAudience: string;
  /** HMAC key for access tokens and signed audio URLs; every server behind a balancer needs the same one. */
  sessionSecret: Uint8Array;
  /** True when SESSION_SECRET was not set and a per-process key was made up. */
  ephemeralSecret: boolean;
  accessTtlSeconds: number;
  refreshTtlSeconds: number;
  audioUrlTtlSeconds: number;
  /** Wait this long after one JWKS fetch before another; stops forged key ids from hammering Apple. */
  jwksCooldownMs: number;
  /** Sign-in and refresh attempts allowed per IP per minute. */
  signInPerMinute: number;
}

function seconds(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number of seconds, got '${raw}'`);
  return value;
}

export function loadAuthConfig(env: NodeJS.ProcessEnv = process.env): AuthConfig {
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
    sessionSecret: secret ? new TextEncoder().encode(secret) : randomBytes(32),
    ephemeralSecret: !secret,
    accessTtlSeconds: seconds(env, 'ACCESS_TOKEN_TTL_SECONDS', 15 * 60),
    refreshTtlSeconds: seconds(env, 'REFRESH_TOKEN_TTL_SECONDS', 60 * 24 * 3600),
    audioUrlTtlSeconds: seconds(env, 'AUDIO_URL_TTL_SECONDS', 10 * 60),
    jwksCooldownMs: seconds(env, 'APPLE_JWKS_COOLDOWN_SECONDS', 30) * 1000,
    signInPerMinute: seconds(env, 'SIGN_IN_RATE_LIMIT_PER_MINUTE', 30) || 30,
  };
}
