/**
 * Runner session tokens. Access tokens are HS256 JWTs signed with SESSION_SECRET: any server
 * checks them without a database round trip, and they live 15 minutes. Refresh tokens are
 * random at sign-in, stored only as a SHA-256 hash, and replaced on every use, so a stolen copy
 * works once (within the refresh grace, once more: ../db/refresh-store.ts).
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';

const ISSUER = 'milenotes';
const AUDIENCE = 'milenotes-runner-app';

export interface AccessClaims {
  /** The runner's account id (ours, not Apple's sub). */
  runnerId: string;
  sessionId: string;
}

/**
 * `issuedAt` (seconds) fixes the token: HS256 is deterministic, so the same claims and time give
 * the same token again, which a refresh retried within the grace needs.
 */
export async function issueAccessToken(
  secret: Uint8Array,
  claims: AccessClaims,
  ttlSeconds: number,
  issuedAt = Math.floor(Date.now() / 1000),
): Promise<string> {
  return new SignJWT({ sid: claims.sessionId })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(claims.runnerId)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ttlSeconds)
    .sign(secret);
}

/** The claims of a valid access token, or undefined for anything else (bad signature, expired, not ours). */
export async function readAccessToken(secret: Uint8Array, token: string): Promise<AccessClaims | undefined> {
  try {
    const { payload } = await jwtVerify(token, secret, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] });
    if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string') return undefined;
    return { runnerId: payload.sub, sessionId: payload.sid };
  } catch (err) {
    if (err instanceof errors.JOSEError) return undefined;
    throw err;
  }
}

/** 32 random bytes, URL-safe. */
export const newRefreshToken = (): string => randomBytes(32).toString('base64url');

/**
 * The refresh token that replaces `token`: keyed with the session secret, so a retry of a refresh
 * whose answer was lost gets the same one back without the database ever holding a usable token
 * (it keeps only hashes; without the secret and the old token neither can be recomputed).
 */
export const successorRefreshToken = (secret: Uint8Array, token: string): string =>
  createHmac('sha256', secret).update('milenotes refresh successor\0').update(token).digest('base64url');

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');
