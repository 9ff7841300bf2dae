/** What the runner routes share: the stores, the auth settings, and who is asking. */
import type { FastifyRequest } from 'fastify';
import type { AppleVerifier } from '../../auth/apple.js';
import type { AuthConfig } from '../../config/auth.js';
import type { Clock } from '../../clock.js';
import { readAccessToken } from '../../auth/tokens.js';
import type { Account, Repository } from '../../db/repository.js';
import { sessionRefusal } from '../../http/session-refusals.js';
import type { Push } from '../../push/index.js';
import type { RunnerMovedEvent } from '../../races/runner-moved.js';
import type { BlobStore } from '../../storage/blob-store.js';
import type { NoteChangeHub } from '../../sync/note-changes.js';

export interface RunnerContext {
  repo: Repository;
  blobs: BlobStore;
  auth: AuthConfig;
  publicUrl: string;
  verifyApple: AppleVerifier;
  /** Where races stand and when positions were taken (../../clock.ts); tokens and audio URLs keep the real clock. */
  clock: Clock;
  /** Held sync requests: the hub, and the longest one is held (under the idle timeout, which would cut it). */
  sync: { hub: NoteChangeHub; maxHoldMs: number };
  /** A first play queues its sender's pushes (server/push). */
  push: Push;
  /** What a position batch that placed fixes tells: the notes' deadlines and the marker alerts listen. */
  runnerMoved: RunnerMovedEvent;
}

export const notSignedIn = sessionRefusal.not_signed_in;

export function bearerOf(req: FastifyRequest): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  return match?.[1];
}

/** The signed-in runner, or undefined without a valid session. A deleted account's tokens stop at once. */
export async function currentRunner(ctx: RunnerContext, req: FastifyRequest): Promise<Account | undefined> {
  const token = bearerOf(req);
  if (!token) return undefined;
  const claims = await readAccessToken(ctx.auth.sessionSecret, token);
  return claims && ctx.repo.accounts.find(claims.runnerId);
}

/** OpenAPI security for routes that need a session; such routes check it before validating the body. */
export const BEARER = [{ bearer: [] }];

const signedIn = new WeakMap<FastifyRequest, Account>();

export async function requireRunner(ctx: RunnerContext, req: FastifyRequest): Promise<Account> {
  const known = signedIn.get(req);
  if (known) return known;
  const account = await currentRunner(ctx, req);
  if (!account) throw notSignedIn();
  signedIn.set(req, account);
  return account;
}
