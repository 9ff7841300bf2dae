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

/**
 * Access tokens already verified, by secret, until they expire: an app sends the same token with
 * every sync and positions batch for its 15 minutes, and whether a token is valid depends on
 * nothing but the secret and the clock, so verifying it once is enough (jose's HS256 goes through
 * WebCrypto, a round trip to the thread pool each time). Only a token that verified is kept, so a
 * stranger's guesses fill nothing. At most VERIFIED_KEPT a secret, the oldest dropped first (a
 * token no longer kept is verified again). Whether its account still exists is the caller's check,
 * made on every request.
 */
const VERIFIED_KEPT = 20_000;
const verifiedBySecret = new WeakMap<Uint8Array, Map<string, { claims: AccessClaims; expiresAtMs: number }>>();

function verifiedUnder(secret: Uint8Array): Map<string, { claims: AccessClaims; expiresAtMs: number }> {
  let kept = verifiedBySecret.get(secret);
  if (!kept) verifiedBySecret.set(secret, (kept = new Map()));
  return kept;
}

/** The claims of a valid access token, or undefined for anything else (bad signature, expired, not ours). */
export async function readAccessToken(secret: Uint8Array, token: string): Promise<AccessClaims | undefined> {
  const kept = verifiedUnder(secret);
  const known = kept.get(token);
  // Expired at exp exactly, as jose has it (exp <= now in whole seconds).
  if (known && Date.now() < known.expiresAtMs) return known.claims;
  if (known) kept.delete(token);
  try {
    const { payload } = await jwtVerify(token, secret, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] });
    if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string' || typeof payload.exp !== 'number') return undefined;
    const claims = { runnerId: payload.sub, sessionId: payload.sid };
    if (kept.size >= VERIFIED_KEPT) kept.delete(kept.keys().next().value!);
    kept.set(token, { claims, expiresAtMs: payload.exp * 1000 });
    return claims;
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
