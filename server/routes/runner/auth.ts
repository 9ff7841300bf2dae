/** Sign in with Apple and session refresh: the only runner routes without a bearer token. */
import { randomUUID } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppleSignInSchema, RefreshSchema, SessionSchema, type Session } from '../../../contract/runnerApi.js';
import { API_ROUTES } from '../../../contract/paths.js';
import { IdentityTokenError, JwksUnavailableError } from '../../auth/apple.js';
import { hashToken, issueAccessToken, newRefreshToken, successorRefreshToken } from '../../auth/tokens.js';
import { addressKey } from '../../http/client-key.js';
import { refusals } from '../../http/contract.js';
import { refusal } from '../../http/refusals.js';
import { sessionRefusal } from '../../http/session-refusals.js';
import type { Account } from '../../db/repository.js';
import type { RunnerContext } from './context.js';

const { sign_in_refused: signInRefused, apple_unavailable: appleUnavailable, session_expired: refreshRefused } = sessionRefusal;

export const authRoutes: FastifyPluginAsyncTypebox<{ ctx: RunnerContext }> = async (app, { ctx }) => {
  const { auth, repo } = ctx;
  // Per server process, like the recorder's limit: enough for a person retrying, not for a script guessing.
  // Per client, as every other limit: an IPv6 client by its /64, whose addresses a phone changes at will.
  await app.register(rateLimit, {
    max: auth.signInPerMinute,
    timeWindow: 60_000,
    keyGenerator: (req) => addressKey(req.ip),
    errorResponseBuilder: (_req, context) => refusal.rate_limited(Math.max(1, Math.ceil(context.ttl / 1000)), 'runner'),
  });
  const expiresAt = (now: number) => new Date(now + auth.refreshTtlSeconds * 1000).toISOString();

  /** `issuedAt` (ms): a replayed refresh answers with the tokens made then, and their time left. */
  async function sessionFor(account: Account, sessionId: string, refreshToken: string, issuedAt = Date.now()): Promise<Session> {
    const iat = Math.floor(issuedAt / 1000);
    return {
      accessToken: await issueAccessToken(auth.sessionSecret, { runnerId: account.id, sessionId }, auth.accessTtlSeconds, iat),
      accessTokenExpiresIn: Math.max(0, iat + auth.accessTtlSeconds - Math.floor(Date.now() / 1000)),
      refreshToken,
      runner: { id: account.id, createdAt: account.createdAt },
    };
  }

  app.post(
    API_ROUTES.appleSignIn,
    {
      schema: {
        operationId: 'signInWithApple',
        body: AppleSignInSchema,
        summary: 'Sign in with Apple: exchange an identity token for a session',
        response: { 200: SessionSchema, ...refusals(signInRefused, appleUnavailable, refusal.rate_limited) },
      },
    },
    async (req) => {
      let sub: string;
      try {
        ({ sub } = await ctx.verifyApple(req.body.identityToken, req.body.nonce));
      } catch (err) {
        if (err instanceof IdentityTokenError) {
          req.log.info({ reason: err.reason }, 'apple identity token refused');
          throw signInRefused();
        }
        if (err instanceof JwksUnavailableError) {
          req.log.error({ err }, 'apple JWKS unavailable');
          throw appleUnavailable();
        }
        throw err;
      }
      const now = Date.now();
      const account = await repo.accounts.forAppleSub(sub, new Date(now).toISOString());
      const refreshToken = newRefreshToken();
      const sessionId = randomUUID();
      await repo.accounts.createSession({
        id: sessionId,
        accountId: account.id,
        refreshHash: hashToken(refreshToken),
        createdAt: new Date(now).toISOString(),
        expiresAt: expiresAt(now),
      });
      return sessionFor(account, sessionId, refreshToken);
    },
  );

  app.post(
    API_ROUTES.refresh,
    {
      schema: {
        operationId: 'refreshSession',
        body: RefreshSchema,
        summary: 'Swap a refresh token (used once; retried within REFRESH_GRACE_SECONDS, the same answer again) for a new session',
        response: { 200: SessionSchema, ...refusals(refreshRefused, refusal.rate_limited) },
      },
    },
    async (req) => {
      const now = Date.now();
      const refreshToken = successorRefreshToken(auth.sessionSecret, req.body.refreshToken);
      const rotation = await repo.refresh.rotate(
        hashToken(req.body.refreshToken),
        hashToken(refreshToken),
        new Date(now).toISOString(),
        expiresAt(now),
        auth.refreshGraceSeconds * 1000,
      );
      if (rotation.kind === 'reused') {
        // Two parties held this session's tokens (RFC 9700, 4.14.2): it is revoked for both. Never log the token.
        req.log.warn({ sessionId: rotation.sessionId }, 'refresh token used twice: session revoked');
      }
      if (rotation.kind === 'replayed') req.log.info({ sessionId: rotation.sessionId }, 'refresh retried within the grace: same tokens again');
      const kept = rotation.kind === 'rotated' || rotation.kind === 'replayed' ? rotation : undefined;
      const account = kept && (await repo.accounts.find(kept.accountId));
      if (!kept || !account) throw refreshRefused();
      return sessionFor(account, kept.sessionId, refreshToken, Date.parse(kept.rotatedAt));
    },
  );
};
