/**
 * Section 3, delivery of notes of real length through links that drop. Two schedules play at the
 * same time, each in front of four systems: ours (resumable uploads), ours on a server with
 * resuming turned off (whole-note retries), a plain fetch PUT and Workbox's BackgroundSyncPlugin.
 *   venue:       the crowded venue as before: offline windows, 30 % failed requests, 50 kbit/s.
 *   short-lived: every connection is cut 3-10 s after it opens, at 50 kbit/s, and the link never
 *                gets better while we measure.
 */
import { rm } from 'node:fs/promises';
import { launchPhone } from '../../kit/browser/recorder.js';
import { speechWav } from '../../stand-ins/speech.js';
import { startServer } from '../../kit/server.js';
import { noteLengths, shortLivedSchedule, venueSchedule } from '../../stand-ins/venueSchedules.js';
import type { Row, Section } from '../report.js';
import type { BenchContext } from './context.js';
import { runDelivery, SYSTEMS, type Outcome, type RunResult, type SystemName } from './deliveryRun.js';

const pct = (x: Outcome, n: number) => (100 * x.delivered) / n;
const fatesOf = (x: Outcome) =>
  Object.entries(x.fates)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ') || 'none';

/** Seeded runs per schedule: five for a measurement (one run is not one), one for the smoke run. */
export const SEEDS = 5;

/** min, median, max of one figure over the seeded runs. */
export function spread(values: readonly number[]): { min: number; median: number; max: number } {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return { min: s[0] ?? NaN, median: s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2, max: s[s.length - 1] ?? NaN };
}

type Kind = 'venue' | 'short-lived';
const WHOLE = 'ours, whole-note retries' as const;

/** The figures of one system in one run, as the table reports them. */
function figures(r: RunResult, x: Outcome) {
  const audio = x.audioBytes;
  return {
    delivered: pct(x, r.n),
    duplicates: x.duplicates,
    wire: x.wireRatio,
    seconds: x.lastDeliverySeconds ?? Infinity,
    lostTo502: x.bytes.lostTo502 / audio,
    inFlightAtCut: x.bytes.inFlightAtCut / audio,
    resentHeld: x.bytes.resentHeld / audio,
    silentMs: x.maxSilentMs,
  };
}
type Figure = keyof ReturnType<typeof figures>;

const fmtSpread = (values: number[], digits: number) => {
  const { min, median, max } = spread(values);
  return `${min.toFixed(digits)} / ${median.toFixed(digits)} / ${max.toFixed(digits)}`;
};

function rowsFor(runs: RunResult[], kind: Kind): Row[] {
  const of = (name: SystemName, f: Figure) => runs.map((r) => figures(r, r.outcomes[name])[f]);
  const med = (name: SystemName, f: Figure) => spread(of(name, f)).median;
  const everyRun = runs.every((r) => r.outcomes.ours.delivered === r.n && r.outcomes.ours.duplicates === 0);
  const n = runs.length;
  const rows: Row[] = [];
  for (const name of [WHOLE, 'plain fetch', 'Workbox BackgroundSyncPlugin'] as const) {
    rows.push({
      metric: `${kind}: notes delivered, median of ${n} (vs ${name})`,
      ours: med('ours', 'delivered'),
      baseline: med(name, 'delivered'),
      unit: '%',
      digits: 0,
      aim: kind === 'venue' ? { text: '100 %, every run', met: everyRun } : undefined,
    });
  }
  rows.push(
    {
      metric: `${kind}: duplicates, worst of ${n} (vs whole-note retries)`,
      ours: Math.max(...of('ours', 'duplicates')),
      baseline: Math.max(...of(WHOLE, 'duplicates')),
      unit: '',
      digits: 0,
      aim: { text: '0, every run', met: everyRun || of('ours', 'duplicates').every((d) => d === 0) },
    },
    {
      metric: `${kind}: wire bytes / audio bytes, median of ${n} (vs whole-note retries)`,
      ours: med('ours', 'wire'),
      baseline: med(WHOLE, 'wire'),
      unit: 'x',
      digits: 2,
      aim: kind === 'venue' ? { text: '<= 1.1x', met: med('ours', 'wire') <= 1.1 } : undefined,
    },
    {
      metric: `${kind}: of which resent bytes the server held (avoidable) / audio, median (vs whole-note retries)`,
      ours: med('ours', 'resentHeld'),
      baseline: med(WHOLE, 'resentHeld'),
      unit: 'x',
      digits: 3,
      aim: { text: '<= 0.05x', met: Math.max(...of('ours', 'resentHeld')) <= 0.05 },
    },
    {
      metric: `${kind}: of which whole bodies lost to a 502 / audio, median (vs whole-note retries)`,
      ours: med('ours', 'lostTo502'),
      baseline: med(WHOLE, 'lostTo502'),
      unit: 'x',
      digits: 3,
    },
    {
      metric: `${kind}: of which bytes in flight at a cut / audio, median (vs whole-note retries)`,
      ours: med('ours', 'inFlightAtCut'),
      baseline: med(WHOLE, 'inFlightAtCut'),
      unit: 'x',
      digits: 3,
    },
    {
      metric: `${kind}: wire bytes / audio bytes, median (vs plain fetch)`,
      ours: med('ours', 'wire'),
      baseline: med('plain fetch', 'wire'),
      unit: 'x',
      digits: 2,
    },
    {
      metric:
        kind === 'venue'
          ? `venue: s from first good link to last delivery, median of ${n} (vs whole-note retries)`
          : `short-lived: s from last note sent to last delivery, median of ${n} (vs whole-note retries)`,
      ours: med('ours', 'seconds'),
      baseline: med(WHOLE, 'seconds'),
      unit: 's',
      digits: 1,
      aim: kind === 'venue' ? { text: '<= 5 s', met: med('ours', 'seconds') <= 5 } : undefined,
    },
  );
  if (kind === 'venue') {
    rows.push({
      metric: `venue: longest silence inside a live upload, worst of ${n} (vs whole-note retries)`,
      ours: Math.max(...of('ours', 'silentMs')) / 1000,
      baseline: Math.max(...of(WHOLE, 'silentMs')) / 1000,
      unit: 's',
      digits: 1,
    });
  }
  return rows;
}

/** min / median / max over the seeds of every figure, per system: the table a reader quotes. */
function spreadTable(runs: RunResult[], kind: Kind): string[] {
  const cols: Array<[Figure, string, number]> = [
    ['delivered', 'delivered %', 0],
    ['duplicates', 'duplicates', 0],
    ['wire', 'wire ×audio', 2],
    ['seconds', 's to last delivery', 1],
    ['resentHeld', 'resent held ×audio', 3],
    ['lostTo502', 'lost to 502 ×audio', 3],
    ['inFlightAtCut', 'in flight at cut ×audio', 3],
    ['silentMs', 'longest silence ms', 0],
  ];
  return SYSTEMS.map(
    (name) =>
      `${kind} | ${name} (min / median / max of ${runs.length}): ${cols
        .map(
          ([f, label, d]) =>
            `${label} ${fmtSpread(
              runs.map((r) => figures(r, r.outcomes[name])[f]),
              d,
            )}`,
        )
        .join('; ')}`,
  );
}

function tableOf(r: RunResult, seed: number): string[] {
  return SYSTEMS.map((name: SystemName) => {
    const x = r.outcomes[name];
    const s = x.lastDeliverySeconds === null ? '—' : `${x.lastDeliverySeconds.toFixed(1)} s`;
    const first = x.firstRequestSeconds === null ? '—' : `${x.firstRequestSeconds.toFixed(1)} s`;
    return `${r.label} seed ${seed} | ${name}: delivered ${x.delivered}/${r.n} (${pct(x, r.n).toFixed(0)} %), duplicates ${x.duplicates}, wire ${x.wireRatio.toFixed(2)}x (resent held ${x.bytes.resentHeld} B, lost to 502 ${x.bytes.lostTo502} B, in flight at cut ${x.bytes.inFlightAtCut} B), last delivery ${s}, first request after ${first}; attempts ${x.attempts} (${fatesOf(x)})${x.stuck.length ? `; outbox: ${x.stuck.join(' | ')}` : ''}`;
  });
}

export async function deliverySection(ctx: BenchContext): Promise<Section> {
  const lengths = ctx.smoke ? [2] : noteLengths(6, 20251122);
  const recordingMs = lengths.reduce((s, x) => s + x, 0) * 1000 + lengths.length * 4_000;
  const seeds = Array.from({ length: ctx.smoke ? 1 : Number(process.env.BENCH_SEEDS ?? SEEDS) }, (_, k) => k);
  const venueOf = (k: number) => ({ ...venueSchedule(ctx.smoke, recordingMs + 20_000), ...(k && { seed: 20251012 + k }) });
  const shortOf = (k: number) => ({ ...(ctx.smoke ? shortLivedSchedule(10_000) : shortLivedSchedule(recordingMs + 60_000)), ...(k && { seed: 20251102 + k }) });
  const venue = venueOf(0);
  const short = shortOf(0);
  const wav = await speechWav();
  // Every simulated phone uploads from 127.0.0.1: the per-address limits would measure themselves.
  const whole = await startServer({ DIST_DIR: ctx.site.dir, RESUMABLE_UPLOADS: 'off', UPLOADS_PER_ADDRESS: '1000000', OPEN_UPLOADS_PER_ADDRESS: '1000' });
  let launched: Array<{ context: import('@playwright/test').BrowserContext; dir: string }> = [];
  const phones = async () => {
    const [a, b, c] = await Promise.all([launchPhone(wav), launchPhone(wav), launchPhone(wav)]);
    launched.push(a, b, c);
    return { recorders: [a.context, b.context] as [typeof a.context, typeof a.context], baselines: c.context };
  };
  const closePhones = async () => {
    for (const p of launched) {
      await p.context.close();
      await rm(p.dir, { recursive: true, force: true });
    }
    launched = [];
  };
  const v: RunResult[] = [];
  const s: RunResult[] = [];
  try {
    const servers = { resume: ctx.server, whole };
    for (const k of seeds) {
      // Fresh phones for every seed: each run starts with an empty outbox.
      const [vr, sr] = await Promise.all([
        runDelivery(servers, await phones(), {
          label: `venue #${k + 1}`,
          schedule: venueOf(k),
          lengths,
          measureFrom: 'schedule end',
          log: ctx.log,
          waitAfterMs: { ours: ctx.smoke ? 30_000 : 120_000, baselines: ctx.smoke ? 10_000 : 60_000 },
        }),
        runDelivery(servers, await phones(), {
          label: `short-lived #${k + 1}`,
          schedule: shortOf(k),
          lengths,
          measureFrom: 'last send',
          log: ctx.log,
          waitAfterMs: { ours: ctx.smoke ? 30_000 : 0, baselines: 0 },
        }),
      ]);
      v.push(vr);
      s.push(sr);
      await closePhones();
    }
    const mean = lengths.reduce((a, b) => a + b, 0) / lengths.length;
    const medianDelivered = (runs: RunResult[], name: SystemName) => spread(runs.map((r) => r.outcomes[name].delivered)).median;
    return {
      id: 'delivery',
      title: `3. Delivery of ${lengths.length} notes of ${Math.min(...lengths)}-${Math.max(...lengths)} s through links that drop, ${seeds.length} seeded run(s) per schedule`,
      baseline:
        "the same recorder on a server with resuming turned off (RESUMABLE_UPLOADS=off: whole-note retries); and the bytes ours recorded, sent the moment ours sends each note, (a) by one plain fetch PUT, (b) through Workbox 7.4's stock BackgroundSyncPlugin in a service worker scoped to /bench/. Each system behind its own proxy with the same schedule and seed.",
      rows: [...rowsFor(v, 'venue'), ...rowsFor(s, 'short-lived')],
      chart: {
        kind: 'bars',
        title: `Notes delivered (of ${lengths.length}), median of ${seeds.length} run(s)`,
        unit: 'notes',
        series: [...SYSTEMS],
        groups: [
          { label: 'venue', values: SYSTEMS.map((n) => medianDelivered(v, n)) },
          { label: 'short-lived link', values: SYSTEMS.map((n) => medianDelivered(s, n)) },
        ],
      },
      notes: [
        `Notes recorded through the fake microphone (espeak-ng speech), lengths ${lengths.join(', ')} s (mean ${mean.toFixed(0)} s; drawn from a triangular distribution on 10-60 s with mean 30 s); ${v[0]!.audioBytes} audio bytes per system on the first venue run, ${s[0]!.audioBytes} on the first short-lived run.`,
        `${seeds.length} seeded run(s) per schedule (venue seeds ${seeds.map((k) => venueOf(k).seed).join(', ')}; short-lived ${seeds.map((k) => shortOf(k).seed).join(', ')}); the rows give the median (or the worst where it says so); min / median / max of every figure follow.`,
        `Venue schedule: ${venue.durationMs / 1000} s of bad network, then a good link. Offline windows at ${venue.offline.map((x) => `${x.fromMs / 1000}-${x.toMs / 1000} s`).join(', ')}; outside them ${venue.failureShare * 100} % of requests fail (a third each: 502 after the body, cut mid-request, cut before the answer after the server stored it); one ${venue.bitsPerSecond / 1000} kbit/s link each way with ${venue.latencyMs} ms added round trip.`,
        `Short-lived schedule: ${short.durationMs / 1000} s in which every connection is cut a random 3-10 s after it opens, ${short.bitsPerSecond / 1000} kbit/s each way, ${short.latencyMs} ms added round trip; measured at its end, with no good link.`,
        "Delivered = stored on the server under the note's id (read from its database). Wire bytes count request bodies pushed through the proxy, whole or cut. Duplicates = the same audio stored under two ids plus repeated 201s for one id that reached the phone.",
        "Bytes beyond the audio, by cause: resent held = bytes of a body the server already held when the request arrived (the proxy asks the server, beside the schedule: the note stored, or its upload's offset), the uploader's doing and avoidable; lost to 502 = the rest of a body a gateway took and answered 502 for; in flight at a cut = what remains (bytes of cut requests the server did not keep). Longest silence = the longest gap between body bytes the proxy passed on to the server inside a request the server answered.",
        ...spreadTable(v, 'venue'),
        ...spreadTable(s, 'short-lived'),
        ...v.flatMap((r, i) => tableOf(r, venueOf(seeds[i]!).seed)),
        ...s.flatMap((r, i) => tableOf(r, shortOf(seeds[i]!).seed)),
      ],
    };
  } finally {
    await closePhones();
    await whole.stop();
  }
}
