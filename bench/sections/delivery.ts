/**
 * Section 3, delivery under a venue network: N notes recorded on our recorder screen while a
 * scripted bad network (bench/chaosProxy.ts) plays out in front of the server. The two baselines
 * run at the same time, each behind its own proxy with the same schedule and seed, and upload the
 * same bytes the moment ours sends each note.
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { BrowserContext } from '@playwright/test';
import { linkIdOf } from '../../server/links.js';
import { fillDetails, launchPhone, openRecorder } from '../../tests/e2e/support/recorder.js';
import { speechWav } from '../../tests/e2e/support/speech.js';
import { startChaosProxy, type ChaosProxy, type VenueSchedule } from '../chaosProxy.js';
import type { Row, Section } from '../report.js';
import type { BenchContext } from './context.js';
import { newestOutboxNote, openBaselinePage, recordAtLeast, sendFromBaseline, settledCount, type BaselineKind, type RecordedNote } from './deliveryPhones.js';

const NOTE_PATH = /^\/api\/r\/[^/]+\/notes\/([0-9a-fA-F-]{36})(\?|$)/;

interface SystemRun {
  name: string;
  proxy: ChaosProxy;
  token: string;
  /** Note ids this system sent, in order. */
  ids: string[];
  /** Wall-clock ms when the proxy's schedule started, to place the server's receivedAt on its clock. */
  startedWallMs: number;
}

interface Outcome {
  delivered: number;
  duplicates: number;
  wireRatio: number;
  headerBytes: number;
  /** Seconds from the end of the schedule to the last note stored; 0 if all arrived during it. */
  afterGoodSeconds: number | null;
  attempts: number;
  fates: Record<string, number>;
}

interface StoredNote {
  id: string;
  sha256: string;
  receivedAt: string;
}

/** The notes the server stored through a link, read from its SQLite file (cheaper than a CLI process per poll). */
function storedNotes(db: Database.Database, run: SystemRun): StoredNote[] {
  const rows = db.prepare('SELECT id, sha256, received_at AS receivedAt FROM notes WHERE link_id = ?').all(linkIdOf(run.token)) as StoredNote[];
  return rows.filter((n) => run.ids.includes(n.id));
}

function outcomeOf(db: Database.Database, run: SystemRun, audioBytes: number): Outcome {
  const stored = storedNotes(db, run);
  const shas = new Set(stored.map((n) => n.sha256));
  const uploads = run.proxy.log.filter((e) => e.method === 'PUT' && NOTE_PATH.test(e.path));
  const okAnswers = new Map<string, number>();
  for (const e of uploads) {
    if (e.status !== 201 || e.doneMs === undefined) continue;
    const id = NOTE_PATH.exec(e.path)![1]!.toLowerCase();
    okAnswers.set(id, (okAnswers.get(id) ?? 0) + 1);
  }
  const repeated201s = [...okAnswers.values()].reduce((sum, n) => sum + n - 1, 0);
  const lastMs = Math.max(-Infinity, ...stored.map((n) => Date.parse(n.receivedAt) - run.startedWallMs));
  const fates: Record<string, number> = {};
  for (const e of uploads) {
    const key = `${e.fate}${e.status ? ` ${e.status}` : ''}`;
    fates[key] = (fates[key] ?? 0) + 1;
  }
  if (run.proxy.refused()) fates['connection refused (offline)'] = run.proxy.refused();
  return {
    delivered: stored.length,
    duplicates: stored.length - shas.size + repeated201s,
    wireRatio: uploads.reduce((s, e) => s + e.bodyBytesUp, 0) / audioBytes,
    headerBytes: uploads.reduce((s, e) => s + e.headerBytesUp + e.bytesDown, 0),
    afterGoodSeconds: stored.length ? Math.max(0, (lastMs - run.proxy.schedule.durationMs) / 1000) : null,
    attempts: uploads.length,
    fates,
  };
}

export function venueSchedule(smoke: boolean): VenueSchedule {
  const base = { failureShare: 0.3, bitsPerSecond: 50_000, latencyMs: 1_000, seed: 20251012 };
  if (smoke) return { ...base, durationMs: 8_000, offline: [{ fromMs: 2_000, toMs: 4_000 }] };
  return {
    ...base,
    durationMs: 75_000,
    offline: [{ fromMs: 8_000, toMs: 16_000 }, { fromMs: 30_000, toMs: 42_000 }, { fromMs: 58_000, toMs: 64_000 }],
  };
}

export async function deliverySection(ctx: BenchContext): Promise<Section> {
  const n = ctx.smoke ? 2 : 20;
  const seconds = ctx.smoke ? 1 : 2;
  const schedule = venueSchedule(ctx.smoke);
  const waitAfterGood = { ours: ctx.smoke ? 30_000 : 120_000, baselines: ctx.smoke ? 10_000 : 60_000 };
  const wav = await speechWav();
  const phones: Array<{ context: BrowserContext; dir: string }> = [];
  const proxies: ChaosProxy[] = [];
  const db = new Database(path.join(ctx.server.dataDir, 'milenotes.sqlite'), { readonly: true });
  try {
    const runs: SystemRun[] = [];
    for (const name of ['ours', 'plain fetch', 'Workbox BackgroundSyncPlugin']) {
      const proxy = await startChaosProxy(ctx.server.port, schedule);
      proxies.push(proxy);
      phones.push(await launchPhone(wav));
      runs.push({ name, proxy, token: await ctx.server.createLink(`Bench ${name}`), ids: [], startedWallMs: 0 });
    }
    const [ours, naive, workbox] = runs as [SystemRun, SystemRun, SystemRun];
    const page = await openRecorder(phones[0]!.context, { url: ours.proxy.url } as Parameters<typeof openRecorder>[1], ours.token);
    await fillDetails(page, 'Mile 1', 'Bench');
    const baselinePages = await Promise.all(
      [naive, workbox].map((r, i) => openBaselinePage(phones[i + 1]!.context, r.proxy.url, r.name as BaselineKind)),
    );

    for (const r of runs) {
      r.startedWallMs = Date.now();
      r.proxy.start();
    }
    ctx.log(`delivery: venue schedule started (${schedule.durationMs / 1000} s); recording ${n} notes of ${seconds} s`);
    let audioBytes = 0;
    for (let i = 0; i < n; i++) {
      await recordAtLeast(page, seconds);
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByRole('button', { name: 'Record' }).waitFor();
      const note: RecordedNote = await newestOutboxNote(page, new Set(ours.ids));
      ours.ids.push(note.id);
      audioBytes += note.audio.length;
      for (const [j, r] of [naive, workbox].entries()) {
        const id = randomUUID();
        r.ids.push(id);
        await sendFromBaseline(baselinePages[j]!, r.token, id, note);
      }
      ctx.log(`delivery: note ${i + 1}/${n} sent at ${(ours.proxy.now() / 1000).toFixed(0)} s`);
    }

    // Wait for the state each system can still reach: everything delivered, or its time is up.
    const deliveredIds = async (r: SystemRun) => storedNotes(db, r).length;
    const deadline = (limit: number) => ours.proxy.now() > schedule.durationMs + limit;
    for (;;) {
      const oursDone = (await deliveredIds(ours)) === n || deadline(waitAfterGood.ours);
      const naiveDone = ((await deliveredIds(naive)) === n || (await settledCount(baselinePages[0]!)) === n) && ours.proxy.now() > schedule.durationMs;
      const workboxDone = (await deliveredIds(workbox)) === n || deadline(waitAfterGood.baselines);
      if (oursDone && naiveDone && workboxDone) break;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    ctx.log('delivery: measuring what arrived');
    // Why a note of ours did not arrive, in the outbox's own words.
    const stuck = await page.evaluate(async () => {
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
      return all.filter((n) => n.state !== 'delivered').map((n) => `${n.state} after ${n.attempts} attempts, last status ${n.lastStatus ?? '-'}: ${n.lastError ?? ''}`);
    });

    const [o, p, w] = [outcomeOf(db, ours, audioBytes), outcomeOf(db, naive, audioBytes), outcomeOf(db, workbox, audioBytes)];
    const pct = (x: Outcome) => (100 * x.delivered) / n;
    const rows: Row[] = [];
    for (const [b, name] of [[p, 'plain fetch'], [w, 'Workbox']] as const) {
      rows.push(
        { metric: `notes delivered (vs ${name})`, ours: pct(o), baseline: pct(b), unit: '%', digits: 0, aim: { text: '100 %, baseline loses notes', met: o.delivered === n && b.delivered < n } },
        { metric: `duplicates (vs ${name})`, ours: o.duplicates, baseline: b.duplicates, unit: '', digits: 0, aim: { text: '0', met: o.duplicates === 0 } },
        { metric: `wire bytes / audio bytes (vs ${name})`, ours: o.wireRatio, baseline: b.wireRatio, unit: 'x', digits: 2, aim: { text: '<= 1.1x', met: o.wireRatio <= 1.1 } },
        {
          metric: `s from first good link to last delivery (vs ${name})`, ours: o.afterGoodSeconds, baseline: b.afterGoodSeconds, unit: 's', digits: 1,
          aim: { text: '<= 60 s, all notes', met: o.delivered === n && o.afterGoodSeconds !== null && o.afterGoodSeconds <= 60 },
        },
      );
    }
    const fates = (x: Outcome) => Object.entries(x.fates).map(([k, v]) => `${k} ${v}`).join(', ');
    return {
      id: 'delivery',
      title: `3. Delivery under a venue network (N = ${n})`,
      baseline: 'the same audio bytes, sent the moment ours sends each note, behind an identical proxy: (a) one plain fetch PUT from the page; (b) the PUT through Workbox 7.4\'s stock BackgroundSyncPlugin (NetworkOnly) in a service worker scoped to /bench/.',
      rows,
      chart: {
        kind: 'bars',
        title: `Delivery of ${n} notes through the venue network`,
        unit: 'notes / seconds',
        series: ['ours', 'plain fetch', 'Workbox BackgroundSyncPlugin'],
        groups: [
          { label: `delivered (of ${n})`, values: [o.delivered, p.delivered, w.delivered] },
          { label: 'duplicates', values: [o.duplicates, p.duplicates, w.duplicates] },
          { label: 's after good link', values: [o.afterGoodSeconds, p.afterGoodSeconds, w.afterGoodSeconds] },
        ],
      },
      notes: [
        `Schedule: ${schedule.durationMs / 1000} s of bad network, then a good link. Offline windows (connections refused, open ones cut) at ${schedule.offline
          .map((x) => `${x.fromMs / 1000}-${x.toMs / 1000} s`).join(', ')}; outside them ${schedule.failureShare * 100} % of requests fail (a third each: 502 after the body, cut mid-request, cut before the answer after the server stored it); one ${schedule.bitsPerSecond / 1000} kbit/s link each way with ${schedule.latencyMs} ms added round trip. Same seed for all three proxies. The phone's browser still believes it is online throughout.`,
        `Notes of ${seconds} s recorded through the fake microphone; ${audioBytes} audio bytes in all. Wire bytes count the request bodies the phone pushed through the proxy, whole or cut; headers and answers came to ${o.headerBytes} B more for ours.`,
        `Delivered = stored on the server under the note's id (read from its database); the time of delivery is the server's receivedAt. Duplicates = the same audio stored under two ids plus repeated 201s for one id that reached the phone.`,
        `Upload attempts and their fates at the proxy: ours ${o.attempts} (${fates(o)}); plain fetch ${p.attempts} (${fates(p)}); Workbox ${w.attempts} (${fates(w)}).`,
        `Our outbox at the end: ${stuck.length ? stuck.join(' | ') : 'every note delivered'}.`,
        `Waited up to ${waitAfterGood.ours / 1000} s after the good link for ours and ${waitAfterGood.baselines / 1000} s for the baselines.`,
      ],
    };
  } finally {
    db.close();
    for (const p of phones) {
      await p.context.close();
      await rm(p.dir, { recursive: true, force: true });
    }
    for (const p of proxies) await p.close();
  }
}
