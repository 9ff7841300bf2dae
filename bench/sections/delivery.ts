/**
 * Section 3, delivery of notes of real length through links that drop. Two schedules play at the
 * same time, each in front of four systems: ours (resumable uploads), ours on a server with
 * resuming turned off (whole-note retries), a plain fetch PUT and Workbox's BackgroundSyncPlugin.
 *   venue:       the crowded venue as before: offline windows, 30 % failed requests, 50 kbit/s.
 *   short-lived: every connection is cut 3-10 s after it opens, at 50 kbit/s, and the link never
 *                gets better while we measure.
 */
import { rm } from 'node:fs/promises';
import { launchPhone } from '../../tests/e2e/support/recorder.js';
import { speechWav } from '../../tests/e2e/support/speech.js';
import { startServer } from '../../tests/e2e/support/server.js';
import { seededRandom, type VenueSchedule } from '../chaosProxy.js';
import type { Row, Section } from '../report.js';
import type { BenchContext } from './context.js';
import { runDelivery, SYSTEMS, type Outcome, type RunResult, type SystemName } from './deliveryRun.js';

/** Note lengths drawn from a triangular distribution on 10-60 s with its mode at 20 s (mean 30 s). */
export function noteLengths(n: number, seed: number): number[] {
  const random = seededRandom(seed);
  const [a, c, b] = [10, 20, 60];
  return Array.from({ length: n }, () => {
    const u = random();
    const x = u < (c - a) / (b - a) ? a + Math.sqrt(u * (b - a) * (c - a)) : b - Math.sqrt((1 - u) * (b - a) * (b - c));
    return Math.round(x);
  });
}

/** The crowded venue: the same 75 s pattern of offline windows, repeated for as long as the notes take. */
export function venueSchedule(smoke: boolean, durationMs: number): VenueSchedule {
  const base = { failureShare: 0.3, bitsPerSecond: 50_000, latencyMs: 1_000, seed: 20251012 };
  if (smoke) return { ...base, durationMs: 8_000, offline: [{ fromMs: 2_000, toMs: 4_000 }] };
  const pattern = [[8_000, 16_000], [30_000, 42_000], [58_000, 64_000]] as const;
  const offline: VenueSchedule['offline'] = [];
  for (let cycle = 0; cycle < durationMs; cycle += 75_000) {
    for (const [from, to] of pattern) if (cycle + to <= durationMs) offline.push({ fromMs: cycle + from, toMs: cycle + to });
  }
  return { ...base, durationMs, offline };
}

/** A link that never holds: every connection is cut after a random 3-10 s. */
export function shortLivedSchedule(durationMs: number): VenueSchedule {
  return { durationMs, offline: [], failureShare: 0, bitsPerSecond: 50_000, latencyMs: 600, connectionLifetimeMs: { min: 3_000, max: 10_000 }, seed: 20251102 };
}

const pct = (x: Outcome, n: number) => (100 * x.delivered) / n;
const fatesOf = (x: Outcome) => Object.entries(x.fates).map(([k, v]) => `${k} ${v}`).join(', ') || 'none';

function rowsFor(r: RunResult, kind: 'venue' | 'short-lived'): Row[] {
  const o = r.outcomes.ours;
  const whole = r.outcomes['ours, whole-note retries'];
  const all = o.delivered === r.n;
  const rows: Row[] = [];
  for (const name of ['ours, whole-note retries', 'plain fetch', 'Workbox BackgroundSyncPlugin'] as const) {
    const b = r.outcomes[name];
    rows.push({
      metric: `${kind}: notes delivered (vs ${name})`, ours: pct(o, r.n), baseline: pct(b, r.n), unit: '%', digits: 0,
      aim: kind === 'venue' ? { text: '100 %', met: all } : { text: '100 % where whole-note retries fall short', met: all && (name !== 'ours, whole-note retries' || b.delivered < r.n) },
    });
  }
  rows.push(
    { metric: `${kind}: duplicates (vs whole-note retries)`, ours: o.duplicates, baseline: whole.duplicates, unit: '', digits: 0, aim: { text: '0', met: o.duplicates === 0 } },
    {
      metric: `${kind}: wire bytes / audio bytes (vs whole-note retries)`, ours: o.wireRatio, baseline: whole.wireRatio, unit: 'x', digits: 2,
      aim: kind === 'venue' ? { text: '<= 1.05x', met: o.wireRatio <= 1.05 } : undefined,
    },
    { metric: `${kind}: wire bytes / audio bytes (vs plain fetch)`, ours: o.wireRatio, baseline: r.outcomes['plain fetch'].wireRatio, unit: 'x', digits: 2 },
    {
      metric: kind === 'venue' ? 'venue: s from first good link to last delivery (vs whole-note retries)' : 'short-lived: s from last note sent to last delivery (vs whole-note retries)',
      ours: o.lastDeliverySeconds, baseline: whole.lastDeliverySeconds, unit: 's', digits: 1,
      aim: kind === 'venue' ? { text: '<= 60 s, all notes', met: all && o.lastDeliverySeconds !== null && o.lastDeliverySeconds <= 60 } : undefined,
    },
  );
  return rows;
}

function tableOf(r: RunResult): string[] {
  return SYSTEMS.map((name: SystemName) => {
    const x = r.outcomes[name];
    const s = x.lastDeliverySeconds === null ? '—' : `${x.lastDeliverySeconds.toFixed(1)} s`;
    return `${r.label} | ${name}: delivered ${x.delivered}/${r.n} (${pct(x, r.n).toFixed(0)} %), duplicates ${x.duplicates}, wire ${x.wireRatio.toFixed(2)}x, last delivery ${s}; attempts ${x.attempts} (${fatesOf(x)})${x.stuck.length ? `; outbox: ${x.stuck.join(' | ')}` : ''}`;
  });
}

export async function deliverySection(ctx: BenchContext): Promise<Section> {
  const lengths = ctx.smoke ? [2] : noteLengths(6, 20251122);
  const recordingMs = lengths.reduce((s, x) => s + x, 0) * 1000 + lengths.length * 4_000;
  const venue = venueSchedule(ctx.smoke, recordingMs + 20_000);
  const short = ctx.smoke ? { ...shortLivedSchedule(10_000) } : shortLivedSchedule(recordingMs + 60_000);
  const wav = await speechWav();
  const whole = await startServer({ DIST_DIR: ctx.site.dir, RESUMABLE_UPLOADS: 'off' });
  const launched: Array<{ context: import('@playwright/test').BrowserContext; dir: string }> = [];
  const phones = async () => {
    const [a, b, c] = await Promise.all([launchPhone(wav), launchPhone(wav), launchPhone(wav)]);
    launched.push(a, b, c);
    return { recorders: [a.context, b.context] as [typeof a.context, typeof a.context], baselines: c.context };
  };
  try {
    const servers = { resume: ctx.server, whole };
    const [v, s] = await Promise.all([
      runDelivery(servers, await phones(), {
        label: 'venue', schedule: venue, lengths, measureFrom: 'schedule end', log: ctx.log,
        waitAfterMs: { ours: ctx.smoke ? 30_000 : 120_000, baselines: ctx.smoke ? 10_000 : 60_000 },
      }),
      runDelivery(servers, await phones(), {
        label: 'short-lived', schedule: short, lengths, measureFrom: 'last send', log: ctx.log,
        waitAfterMs: { ours: ctx.smoke ? 30_000 : 0, baselines: 0 },
      }),
    ]);
    const mean = lengths.reduce((a, b) => a + b, 0) / lengths.length;
    return {
      id: 'delivery',
      title: `3. Delivery of ${lengths.length} notes of ${Math.min(...lengths)}-${Math.max(...lengths)} s through links that drop`,
      baseline: "the same recorder on a server with resuming turned off (RESUMABLE_UPLOADS=off: whole-note retries); and the bytes ours recorded, sent the moment ours sends each note, (a) by one plain fetch PUT, (b) through Workbox 7.4's stock BackgroundSyncPlugin in a service worker scoped to /bench/. Each system behind its own proxy with the same schedule and seed.",
      rows: [...rowsFor(v, 'venue'), ...rowsFor(s, 'short-lived')],
      chart: {
        kind: 'bars',
        title: `Notes delivered (of ${lengths.length})`,
        unit: 'notes',
        series: [...SYSTEMS],
        groups: [
          { label: 'venue', values: SYSTEMS.map((n) => v.outcomes[n].delivered) },
          { label: 'short-lived link', values: SYSTEMS.map((n) => s.outcomes[n].delivered) },
        ],
      },
      notes: [
        `Notes recorded through the fake microphone (espeak-ng speech), lengths ${lengths.join(', ')} s (mean ${mean.toFixed(0)} s; drawn from a triangular distribution on 10-60 s with mean 30 s); ${v.audioBytes} audio bytes per system on the venue run, ${s.audioBytes} on the short-lived run.`,
        `Venue schedule: ${venue.durationMs / 1000} s of bad network, then a good link. Offline windows at ${venue.offline.map((x) => `${x.fromMs / 1000}-${x.toMs / 1000} s`).join(', ')}; outside them ${venue.failureShare * 100} % of requests fail (a third each: 502 after the body, cut mid-request, cut before the answer after the server stored it); one ${venue.bitsPerSecond / 1000} kbit/s link each way with ${venue.latencyMs} ms added round trip.`,
        `Short-lived schedule: ${short.durationMs / 1000} s in which every connection is cut a random 3-10 s after it opens (${s.cutByLifetime} cuts for ours), ${short.bitsPerSecond / 1000} kbit/s each way, ${short.latencyMs} ms added round trip; measured at its end, with no good link.`,
        'Delivered = stored on the server under the note\'s id (read from its database). Wire bytes count request bodies pushed through the proxy, whole or cut. Duplicates = the same audio stored under two ids plus repeated 201s for one id that reached the phone.',
        ...tableOf(v),
        ...tableOf(s),
      ],
    };
  } finally {
    for (const p of launched) {
      await p.context.close();
      await rm(p.dir, { recursive: true, force: true });
    }
    await whole.stop();
  }
}
