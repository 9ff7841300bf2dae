/**
 * Verifies Sign in with Apple identity tokens: signature against Apple's JWKS (cached; a token
 * with an unknown key id makes one refetch, at most once per cooldown), issuer, audience, expiry
 * and the nonce, which is required: without it a token stolen from another app's sign-in (same
 * audience, still fresh) could be replayed here.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import { APPLE_ISSUER } from '../config/auth.js';

export interface AppleIdentity {
  /** Apple's stable user id for our team: the runner's identity. */
  sub: string;
  email?: string;
}

export interface AppleVerifierOptions {
  jwksUrl: string;
  audience: string;
  cooldownMs?: number;
  /** Allowed clock skew between Apple and us. */
  clockToleranceSeconds?: number;
}

/** A token that must be refused with 401; `reason` is for logs, never for the client. */
export class IdentityTokenError extends Error {
  constructor(readonly reason: string) {
    super(`Apple identity token refused: ${reason}`);
    this.name = 'IdentityTokenError';
  }
}

/** A JWKS we could not reach: our problem, not the runner's, so not a 401. */
export class JwksUnavailableError extends Error {
  constructor(cause: unknown) {
    super('Apple sign-in keys could not be fetched.', { cause });
    this.name = 'JwksUnavailableError';
  }
}

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The usual flow (Apple's and Firebase's samples) passes SHA-256(raw nonce) as hex to Apple and
 * sends the raw nonce to the server; some apps pass the raw nonce to Apple. Apple echoes what it
 * was given, so the claim may hold either: we accept both, and nothing else.
 */
export function nonceMatches(claim: unknown, nonce: string): boolean {
  if (typeof claim !== 'string') return false;
  return sameText(claim, nonce) || sameText(claim, sha256Hex(nonce));
}

export type AppleVerifier = (identityToken: string, nonce: string) => Promise<AppleIdentity>;

export function createAppleVerifier(opts: AppleVerifierOptions): AppleVerifier {
  const jwks = createRemoteJWKSet(new URL(opts.jwksUrl), {
    cooldownDuration: opts.cooldownMs ?? 30_000,
    cacheMaxAge: 24 * 3600 * 1000,
    timeoutDuration: 5_000,
  });

  return async (identityToken, nonce) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(identityToken, jwks, {
        issuer: APPLE_ISSUER,
        audience: opts.audience,
        algorithms: ['RS256', 'ES256'],
        clockTolerance: opts.clockToleranceSeconds ?? 30,
        requiredClaims: ['sub', 'exp', 'iat'],
      }));
    } catch (err) {
      if (err instanceof errors.JWKSTimeout || (err instanceof errors.JOSEError && err.code === 'ERR_JOSE_GENERIC')) {
        throw new JwksUnavailableError(err);
      }
      if (err instanceof errors.JOSEError) throw new IdentityTokenError(err.code);
      // fetch failures (refused connection, DNS) are not JOSE errors
      if (err instanceof TypeError) throw new JwksUnavailableError(err);
      throw err;
    }
    if (!nonce) throw new IdentityTokenError('nonce missing');
    if (!nonceMatches(payload.nonce, nonce)) throw new IdentityTokenError('nonce mismatch');
    if (typeof payload.sub !== 'string' || payload.sub === '') throw new IdentityTokenError('no subject');
    return { sub: payload.sub, email: typeof payload.email === 'string' ? payload.email : undefined };
  };
}
