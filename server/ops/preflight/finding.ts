/** What a preflight check is (npm run admin -- check, ./run.ts) and what it answers: one line, OK or what is wrong and how to fix it. */
import type { Config } from '../../config/index.js';
import type { Repository } from '../../db/repository.js';
import type { BlobStore } from '../../storage/blob-store.js';

/** `warn`: worth fixing, but the server works (the exit code stays 0); `fail`: race morning would find it (exit code 1). */
export type Verdict = 'ok' | 'warn' | 'fail';

export interface Finding {
  verdict: Verdict;
  /** What was found, in a sentence. */
  says: string;
  /** How to put it right (warn and fail). */
  fix?: string;
}

export const ok = (says: string): Finding => ({ verdict: 'ok', says });
export const warn = (says: string, fix: string): Finding => ({ verdict: 'warn', says, fix });
export const fail = (says: string, fix: string): Finding => ({ verdict: 'fail', says, fix });

/** Apple's answer for its sign-in keys, fetched once per run (the Apple check reads the keys, the clock check its Date). */
export interface AppleKeysAnswer {
  url: string;
  status: number;
  body: string;
  /** The Date header, when there is one. */
  date: string | null;
  /** Date.now() when the request went out and when the answer came. */
  sentAt: number;
  receivedAt: number;
}

/** What the checks share: the server's own configuration, and what it opens, opened once by the first check that asks. */
export interface PreflightContext {
  env: NodeJS.ProcessEnv;
  config: Config;
  /** The database as the server opens it (pending migrations applied); a failure to open is thrown to every check that asks. */
  repository(): Promise<Repository>;
  blobs(): BlobStore;
  /** Rejects when nothing answered (refused, timed out). */
  appleKeys(): Promise<AppleKeysAnswer>;
}

export interface PreflightCheck {
  /** The line's label: 'database', 'ffmpeg'. */
  name: string;
  run(ctx: PreflightContext): Promise<Finding>;
  /** Longest the check may take before it is reported as failed (default 30 s). */
  timeoutMs?: number;
}

/**
 * An error's message for a line, on one line: with S3's error code (the SDK's error name, e.g.
 * AccessDenied), and what caused it (fetch's "fetch failed" says nothing alone).
 */
export function reasonOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  const name = '$metadata' in err && !err.message.startsWith(err.name) ? `${err.name}: ` : '';
  let text = `${name}${err.message || (typeof code === 'string' ? code : 'no message')}`;
  const cause = err.cause instanceof Error ? err.cause : undefined;
  if (cause && !text.includes(cause.message)) text += ` (${cause.message})`;
  return text.replace(/\s+/g, ' ').trim().replace(/[.]$/, '');
}
