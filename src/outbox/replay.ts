/** Owns the replay policy: which note goes next, what each server answer means, backoff. */
import type { OutboxNote } from './notes.js';
import { LINK_FULL_ERRORS } from '../../contract/refusals.js';
import { readRefusal } from '../../contract/refusalsReader.js';
import { OUTBOX_CODE } from './codes.js';
import { withUploaderLock, type LockOptions } from './lock.js';
import { offsetRequest, sendNote } from './resume.js';
import { earliestDue, isNetworkTrouble, isPending, waitsOnNetwork } from './states.js';
import type { Transport, UploadResponse } from './transport.js';
import { allNotes, announce, freeDeliveredAudio, readAudio, updateNote } from './store.js';

export const BACKOFF_BASE_MS = 2_000;
export const BACKOFF_CAP_MS = 5 * 60_000;
/**
 * After a network error (or a gateway's 502/504) a body is tried again at most this far apart.
 * The comeback probe (states.ts, COMEBACK_PROBE_MS) notices a recovered link much sooner; this
 * backoff only spaces out bodies sent into a link that keeps failing. Treated as server trouble
 * (5-minute cap) such a note sat out the benchmark's good link while the others went.
 */
export const NETWORK_BACKOFF_CAP_MS = 30_000;
export { isNetworkTrouble };

/** The server itself answered (whatever it said): the way to it works. */
const reachedServer = (status: number | undefined) => status !== undefined && !isNetworkTrouble(status);
const RETRY_AFTER_CAP_MS = 60 * 60_000;

export interface ReplayOptions extends LockOptions {
  /** Ignore backoff (not a server's Retry-After): the page came online, or the person asked. */
  force?: boolean;
  random?: () => number;
  onDelivered?: (note: OutboxNote) => void;
}

export interface ReplayReport {
  /** False when another uploader held the lock, so this one did nothing. */
  ran: boolean;
  delivered: string[];
  failed: string[];
  /** Notes still waiting after this run (retryable failures, or not yet due). */
  waiting: number;
  /** When the earliest waiting note is due, for a page timer. */
  nextAttemptAt?: number;
  /** Whether this run asked (headers only) if the way to the server was back, and what came of it. */
  probe?: 'reached' | 'no answer';
}

export function backoffDelay(attempts: number, random: () => number = Math.random, cap = BACKOFF_CAP_MS): number {
  const ceiling = Math.min(cap, BACKOFF_BASE_MS * 2 ** Math.max(0, attempts - 1));
  // Equal jitter: never sooner than half, so a flapping server is not hammered.
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Retry-After as seconds or an HTTP date, in ms from now; 0 when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number {
  if (!value) return 0;
  const ms = /^\d+$/.test(value.trim()) ? Number(value) * 1000 : Date.parse(value) - now;
  return Number.isFinite(ms) ? Math.min(Math.max(0, ms), RETRY_AFTER_CAP_MS) : 0;
}

export function isRetryable(status: number): boolean {
  return status === 0 || status === 408 || status === 429 || status >= 500;
}

/** A 429 for a full link: waiting will not help, so the person sees the server's sentence and acts. */
const isLinkFull = (status: number, code: string | undefined) => status === 429 && LINK_FULL_ERRORS.includes(code ?? '');

function isDue(note: OutboxNote, now: number, force: boolean): boolean {
  if (!isPending(note)) return false;
  if (force && note.lastStatus !== 429) return true;
  return note.nextAttemptAt <= now;
}

/**
 * Uploads every due note, one at a time, each at most once per run; page and worker both call
 * this. A note leaves 'waiting' only for 'delivered' (2xx) or 'failed' (a 4xx the person must see).
 */
export async function replayOutbox(transport: Transport, options: ReplayOptions = {}): Promise<ReplayReport> {
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const delivered: string[] = [];
  const failed: string[] = [];
  let probed: ReplayReport['probe'];
  const result = await withUploaderLock(async (renew) => {
    await freeDeliveredAudio(now());
    const force = options.force ?? false;
    const tried = new Set<string>();
    // Once the server answers anything, the way to it works: notes that waited on the network go
    // now, even those this run already tried before the answer came (no backoff left over).
    let connected = false;
    const connect = async () => {
      if (connected) return;
      connected = true;
      for (const n of await allNotes()) if (waitsOnNetwork(n)) tried.delete(n.id);
    };
    const notes = await allNotes();
    if (!notes.some((n) => isDue(n, now(), force))) {
      // Nothing is due, but a note waits on the network: ask (headers only) whether the way is back.
      const oldest = notes.filter(waitsOnNetwork).sort((a, b) => a.createdAt - b.createdAt)[0];
      if (oldest) {
        probed = reachedServer((await probe(transport, oldest)).status) ? 'reached' : 'no answer';
        if (probed === 'reached') await connect();
      }
    }
    for (;;) {
      if (!(await renew())) break;
      const next = (await allNotes())
        .filter((n) => !tried.has(n.id) && isDue(n, now(), force || (connected && waitsOnNetwork(n))))
        .sort((a, b) => a.createdAt - b.createdAt)[0];
      if (!next) break;
      tried.add(next.id);
      const outcome = await attempt(next, transport, now, random);
      if (reachedServer(outcome?.lastStatus)) await connect();
      if (outcome?.state === 'delivered') {
        delivered.push(outcome.id);
        options.onDelivered?.(outcome);
      } else if (outcome?.state === 'failed') failed.push(outcome.id);
    }
  }, options);
  const notes = await allNotes();
  return { ran: result.ran, delivered, failed, waiting: notes.filter(isPending).length, nextAttemptAt: earliestDue(notes), probe: probed };
}

/** The comeback probe: where the oldest such note's upload stands. Never rejects; status 0 when no answer came. */
async function probe(transport: Transport, note: OutboxNote): Promise<UploadResponse> {
  try {
    return await transport(offsetRequest(note));
  } catch {
    return { status: 0, body: '', retryAfter: null };
  }
}

async function attempt(note: OutboxNote, transport: Transport, now: () => number, random: () => number) {
  const audio = await readAudio(note.id);
  const claimed = await updateNote(note.id, (n) => (isPending(n) ? { ...n, state: 'sending', attempts: n.attempts + 1 } : undefined));
  if (!claimed) return undefined;
  if (!audio) {
    return updateNote(note.id, (n) => ({
      ...n,
      state: 'failed',
      lastError: 'The recording of this note is missing on this phone. Please record it again.',
      lastCode: OUTBOX_CODE.recordingMissing,
    }));
  }
  const response = await sendNote(claimed, audio, transport, {
    save: async (progress) => void (await updateNote(note.id, (n) => ({ ...n, ...progress }))),
    progress: (fraction) => announce({ type: 'outbox-progress', noteId: note.id, fraction }),
  });
  const status = response.status;
  if (status >= 200 && status < 300) {
    return updateNote(note.id, (n) => ({
      ...n,
      state: 'delivered',
      deliveredAt: now(),
      lastStatus: status,
      lastError: undefined,
      lastCode: undefined,
      uploadStarted: false,
      uploadOffset: n.bytes,
    }));
  }
  // Not our JSON (a proxy's page): no code, and a sentence of our own.
  const server = readRefusal(status, response.body);
  if (isRetryable(status) && !isLinkFull(status, server.code)) {
    const cap = isNetworkTrouble(status) ? NETWORK_BACKOFF_CAP_MS : BACKOFF_CAP_MS;
    const wait = Math.max(backoffDelay(claimed.attempts, random, cap), retryAfterMs(response.retryAfter, now()));
    const lastError =
      status === 0
        ? 'No connection right now. The note is saved on this phone and will be sent when there is one.'
        : `The server is busy (error ${status}). Trying again soon.`;
    const lastCode = server.code ?? (status === 0 ? OUTBOX_CODE.offline : OUTBOX_CODE.serverBusy);
    return updateNote(note.id, (n) =>
      n.state === 'sending' ? { ...n, state: 'waiting', nextAttemptAt: now() + wait, lastStatus: status, lastError, lastCode } : undefined,
    );
  }
  return updateNote(note.id, (n) => ({
    ...n,
    state: 'failed',
    lastStatus: status,
    lastError: server.message ?? `The server could not accept this note (error ${status}).`,
    lastCode: server.code ?? OUTBOX_CODE.refused,
  }));
}
