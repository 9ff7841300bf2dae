/**
 * One delivery run: notes of realistic length recorded on two of our recorder screens (one on a
 * server that resumes uploads, one on a server with resuming turned off, so it retries whole
 * notes) while one scripted network plays out in front of every system; the two baselines upload
 * the bytes ours recorded the moment ours sends each note. Each system has its own proxy with the
 * same schedule and seed.
 */
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { join as pathJoin } from 'node:path';
import type { BrowserContext, Page } from '@playwright/test';
import { linkIdOf } from '../../server/links.js';
import { fillDetails, openRecorder, record } from '../../kit/browser/recorder.js';
import type { RunningServer } from '../../kit/server.js';
import { uploadPath } from '../../contract/paths.js';
import { INTEROP_VERSION, UPLOAD_HEADER } from '../../contract/uploadProtocol.js';
import { startBadNetwork, type ChaosProxy, type ProxyLogEntry, type VenueSchedule } from '../../stand-ins/badNetwork/index.js';
import { newestOutboxNote, openBaselinePage, sendFromBaseline, settledCount, type BaselineKind } from './deliveryPhones.js';

export const SYSTEMS = ['ours', 'ours, whole-note retries', 'plain fetch', 'Workbox BackgroundSyncPlugin'] as const;
export type SystemName = (typeof SYSTEMS)[number];

/** Any request that carries note bytes: the whole PUT and every resumable request alike. */
const UPLOAD_PATH = /^\/api\/r\/[^/]+\/.*([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})/;
const UPLOAD_METHODS = new Set(['PUT', 'POST', 'PATCH']);

/**
 * Where the wire bytes beyond the audio went, in bytes. Lost to a 502 and in flight at a cut are
 * the network's doing; resent-held (bytes the server already had, sent again) is the uploader's.
 */
export interface ByteSplit {
  /** Whole bodies a gateway took and answered 502 for (less what the server already held). */
  lostTo502: number;
  /** Bytes that reached the proxy in a request that was cut and that the server did not keep. */
  inFlightAtCut: number;
  /** Bytes sent again that the server already held when the request went out: avoidable. */
  resentHeld: number;
}

export interface Outcome {
  delivered: number;
  /** The same audio stored under two ids, plus repeated 201s for one id that reached the phone. */
  duplicates: number;
  /** Request body bytes pushed through the proxy, whole or cut, over the audio bytes. */
  wireRatio: number;
  headerBytes: number;
  /** Audio bytes this system was given (the whole-note phone records its own). */
  audioBytes: number;
  bytes: ByteSplit;
  /** The longest silence inside a body request the server answered (a live upload), ms. */
  maxSilentMs: number;
  /** Seconds from `fromMs` to the first request of this system after it (how soon it noticed the good link); null when none. */
  firstRequestSeconds: number | null;
  /** Seconds from `fromMs` (on the proxy's clock) to the last note stored; null when none was. */
  lastDeliverySeconds: number | null;
  attempts: number;
  fates: Record<string, number>;
  /** Our outbox's own words for notes it still holds (ours only). */
  stuck: string[];
}

export interface RunResult {
  label: string;
  schedule: VenueSchedule;
  n: number;
  lengths: number[];
  audioBytes: number;
  outcomes: Record<SystemName, Outcome>;
  cutByLifetime: number;
}

export interface Servers {
  /** Resumable uploads on (the default). */
  resume: RunningServer;
  /** RESUMABLE_UPLOADS=off: creation refused, so the recorder falls back to whole-note PUTs. */
  whole: RunningServer;
}

export interface Phones {
  /** Two recorder phones (ours, ours with whole-note retries) and one browser for both baselines. */
  recorders: [BrowserContext, BrowserContext];
  baselines: BrowserContext;
}

interface SystemRun {
  name: SystemName;
  proxy: ChaosProxy;
  server: RunningServer;
  token: string;
  ids: string[];
  /** Audio bytes this system was given to deliver (the whole-note phone records its own). */
  audioBytes: number;
}

/** Notes the server stored through this system's link, read from its SQLite file. */
function storedNotes(run: SystemRun): Array<{ id: string; sha256: string; receivedAt: string }> {
  const db = new Database(pathJoin(run.server.dataDir, 'milenotes.sqlite'), { readonly: true });
  try {
    const rows = db.prepare('SELECT id, sha256, received_at AS receivedAt FROM notes WHERE link_id = ?').all(linkIdOf(run.token)) as Array<{
      id: string;
      sha256: string;
      receivedAt: string;
    }>;
    return rows.filter((r) => run.ids.includes(r.id));
  } finally {
    db.close();
  }
}

/** What the server holds of a note right now, asked beside the proxy (no schedule): Infinity once stored. */
async function heldOf(server: RunningServer, token: string, path: string): Promise<number | undefined> {
  const id = UPLOAD_PATH.exec(path)?.[1]?.toLowerCase();
  if (!id) return undefined;
  const db = new Database(pathJoin(server.dataDir, 'milenotes.sqlite'), { readonly: true });
  try {
    if (db.prepare('SELECT 1 FROM notes WHERE id = ?').get(id)) return Infinity;
  } finally {
    db.close();
  }
  const head = await fetch(`${server.url}${uploadPath(token, id)}`, { method: 'HEAD', headers: { [UPLOAD_HEADER.interopVersion]: INTEROP_VERSION } }).catch(
    () => undefined,
  );
  if (!head?.ok) return 0;
  if (head.headers.get(UPLOAD_HEADER.complete) === '?1') return Infinity;
  return Number(head.headers.get(UPLOAD_HEADER.offset)) || 0;
}

/** Splits the bytes beyond the audio by cause (see ByteSplit). */
export function splitBytes(uploads: readonly ProxyLogEntry[], audioBytes: number): ByteSplit {
  let resentHeld = 0;
  let lostTo502 = 0;
  let wire = 0;
  for (const e of uploads) {
    wire += e.bodyBytesUp;
    const held = Math.max(0, Math.min(e.bodyBytesUp, (e.heldBefore ?? 0) - e.offset));
    resentHeld += held;
    if (e.fate === 'bad-gateway') lostTo502 += e.bodyBytesUp - held;
  }
  return { lostTo502, resentHeld, inFlightAtCut: Math.max(0, wire - audioBytes - resentHeld - lostTo502) };
}

function outcomeOf(run: SystemRun, startedWallMs: number, fromMs: number, stuck: string[]): Outcome {
  const stored = storedNotes(run);
  const uploads = run.proxy.log.filter((e) => UPLOAD_METHODS.has(e.method) && UPLOAD_PATH.test(e.path));
  const after = run.proxy.log.filter((e) => e.atMs >= fromMs && UPLOAD_PATH.test(e.path));
  const created = new Map<string, number>();
  for (const e of uploads) {
    if (e.status !== 201 || e.doneMs === undefined) continue;
    const id = UPLOAD_PATH.exec(e.path)![1]!.toLowerCase();
    created.set(id, (created.get(id) ?? 0) + 1);
  }
  const fates: Record<string, number> = {};
  for (const e of uploads) {
    const key = `${e.method} ${e.fate}${e.status ? ` ${e.status}` : ''}`;
    fates[key] = (fates[key] ?? 0) + 1;
  }
  if (run.proxy.refused()) fates['connection refused (offline)'] = run.proxy.refused();
  const lastMs = Math.max(-Infinity, ...stored.map((n) => Date.parse(n.receivedAt) - startedWallMs));
  return {
    delivered: stored.length,
    duplicates: stored.length - new Set(stored.map((n) => n.sha256)).size + [...created.values()].reduce((s, k) => s + k - 1, 0),
    wireRatio: uploads.reduce((s, e) => s + e.bodyBytesUp, 0) / run.audioBytes,
    headerBytes: uploads.reduce((s, e) => s + e.headerBytesUp + e.bytesDown, 0),
    audioBytes: run.audioBytes,
    bytes: splitBytes(uploads, run.audioBytes),
    maxSilentMs: Math.max(0, ...uploads.filter((e) => e.status !== undefined && e.fate !== 'bad-gateway').map((e) => e.maxSilentMs)),
    firstRequestSeconds: after.length ? (after[0]!.atMs - fromMs) / 1000 : null,
    lastDeliverySeconds: stored.length ? Math.max(0, (lastMs - fromMs) / 1000) : null,
    attempts: uploads.length,
    fates,
    stuck,
  };
}

/** Why notes of ours did not arrive, in the outbox's own words. */
async function outboxLeftovers(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open('milenotes');
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    const all = await new Promise<Array<{ state: string; attempts: number; lastStatus?: number; lastError?: string }>>((resolve, reject) => {
      const req = db.transaction('notes').objectStore('notes').getAll();
      req.onsuccess = () => resolve(req.result as Array<{ state: string; attempts: number; lastStatus?: number; lastError?: string }>);
      req.onerror = () => reject(req.error);
    });
    db.close();
    return all
      .filter((n) => n.state !== 'delivered')
      .map((n) => `${n.state} after ${n.attempts} attempts, last status ${n.lastStatus ?? '-'}: ${n.lastError ?? ''}`);
  });
}

export interface RunOptions {
  label: string;
  schedule: VenueSchedule;
  /** Seconds of each note, in the order recorded. */
  lengths: number[];
  /** How long to keep waiting after the schedule ends, per system kind. */
  waitAfterMs: { ours: number; baselines: number };
  /** Where "seconds to the last delivery" counts from: the schedule's end, or the last note sent. */
  measureFrom: 'schedule end' | 'last send';
  log(message: string): void;
}

export async function runDelivery(servers: Servers, phones: Phones, opts: RunOptions): Promise<RunResult> {
  const { schedule, lengths } = opts;
  const n = lengths.length;
  const proxies: ChaosProxy[] = [];
  try {
    const runs = [] as SystemRun[];
    for (const name of SYSTEMS) {
      const server = name === 'ours, whole-note retries' ? servers.whole : servers.resume;
      const token = await server.createLink(`Bench ${opts.label} ${name}`);
      const proxy = await startBadNetwork(
        { host: '127.0.0.1', port: server.port },
        { kind: 'venue', schedule, hooks: { heldBefore: (_method, p) => heldOf(server, token, p) } },
      );
      proxies.push(proxy);
      runs.push({ name, proxy, server, token, ids: [], audioBytes: 0 });
    }
    const [ours, whole, naive, workbox] = runs as [SystemRun, SystemRun, SystemRun, SystemRun];
    const recorders = await Promise.all(
      [ours, whole].map(async (r, i) => {
        const page = await openRecorder(phones.recorders[i]!, { url: r.proxy.url } as Parameters<typeof openRecorder>[1], r.token);
        await fillDetails(page, 'Mile 1', 'Bench');
        return page;
      }),
    );
    const baselinePages = await Promise.all(
      [naive, workbox].map(async (r, i) => {
        const context = phones.baselines;
        const page = (i === 0 ? context.pages()[0] : undefined) ?? (await context.newPage());
        return openBaselinePage(page, r.proxy.url, r.name as BaselineKind);
      }),
    );

    const startedWallMs = Date.now();
    for (const r of runs) r.proxy.start();
    opts.log(`delivery (${opts.label}): schedule started (${schedule.durationMs / 1000} s); recording ${n} notes of ${lengths.join(', ')} s`);
    let audioBytes = 0;
    let lastSendMs = 0;
    for (const [i, seconds] of lengths.entries()) {
      await Promise.all(recorders.map((page) => record(page, seconds)));
      await Promise.all(
        recorders.map(async (page) => {
          await page.getByRole('button', { name: 'Send' }).click();
          await page.getByRole('button', { name: 'Record' }).waitFor();
        }),
      );
      const [note, wholeNote] = await Promise.all([newestOutboxNote(recorders[0]!, new Set(ours.ids)), newestOutboxNote(recorders[1]!, new Set(whole.ids))]);
      ours.ids.push(note.id);
      whole.ids.push(wholeNote.id);
      audioBytes += note.audio.length;
      for (const r of [ours, naive, workbox]) r.audioBytes += note.audio.length;
      whole.audioBytes += wholeNote.audio.length;
      for (const [j, r] of [naive, workbox].entries()) {
        const id = randomUUID();
        r.ids.push(id);
        await sendFromBaseline(baselinePages[j]!, r.token, id, note);
      }
      lastSendMs = ours.proxy.now();
      opts.log(`delivery (${opts.label}): note ${i + 1}/${n} (${seconds} s, ${note.audio.length} B) sent at ${(lastSendMs / 1000).toFixed(0)} s`);
    }

    // Wait for the state each system can still reach: everything delivered, or its time is up.
    const past = (limit: number) => ours.proxy.now() > schedule.durationMs + limit;
    for (;;) {
      const done = (r: SystemRun, limit: number) => storedNotes(r).length === n || past(limit);
      const naiveDone = (storedNotes(naive).length === n || (await settledCount(baselinePages[0]!)) === n) && ours.proxy.now() > schedule.durationMs;
      if (done(ours, opts.waitAfterMs.ours) && done(whole, opts.waitAfterMs.ours) && naiveDone && done(workbox, opts.waitAfterMs.baselines)) break;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    opts.log(`delivery (${opts.label}): measuring what arrived`);
    const fromMs = opts.measureFrom === 'schedule end' ? schedule.durationMs : lastSendMs;
    const leftovers = await Promise.all(recorders.map(outboxLeftovers));
    const outcomes = Object.fromEntries(runs.map((r, i) => [r.name, outcomeOf(r, startedWallMs, fromMs, i < 2 ? leftovers[i]! : [])])) as Record<
      SystemName,
      Outcome
    >;
    return { label: opts.label, schedule, n, lengths, audioBytes, outcomes, cutByLifetime: ours.proxy.cutByLifetime() };
  } finally {
    for (const p of proxies) await p.close();
  }
}
