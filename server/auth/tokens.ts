/**
 * Runner session tokens. Access tokens are HS256 JWTs signed with SESSION_SECRET: any server
 * checks them without a database round trip, and they live 15 minutes. Refresh tokens are
 * random, stored only as a SHA-256 hash, and replaced on every use, so a stolen copy works once.
 */
import { createHash, randomBytes } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';

const ISSUER = 'milenotes';
const AUDIENCE = 'milenotes-runner-app';

export interface AccessClaims {
  /** The runner's account id (ours, not Apple's sub). */
  runnerId: string;
  sessionId: string;
}

export async function issueAccessToken(secret: Uint8Array, claims: AccessClaims, ttlSeconds: number): Promise<string> {
  return new SignJWT({ sid: claims.sessionId })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(claims.runnerId)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
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

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');
