/**
 * Overload, side by side: two servers, one converting by deadline (CONVERT_ORDER=deadline,
 * as shipped) and one first come first served (arrival), each with its own fresh data, get the same
 * notes at the same moments at about twice what they convert, while runners are on the course. What
 * is measured: of the notes sent at least 5 race minutes ahead of their marker, the share playable
 * (a held sync with until=playable lists it converted) before the runner reaches the marker, and the
 * queue (depth, live/later, the oldest due note's age) sampled from /metrics.
 *
 * The server's clock cannot be compressed (its estimates and deadlines are made against its own
 * clock), so the runners run in real time and a lead of 5 minutes is 5 minutes of wall time. With
 * notes sent at 2x capacity, first come only fails once the backlog is longer than the lead: the
 * queue starts as race morning's does, holding PRELOAD seconds of conversion work of notes for a race
 * still to come, and the window adds a minute of backlog a minute. Both servers run at the same time
 * (CONVERT_CONCURRENCY=1 each, a core each on this 2-core machine), so both see the same load on it.
 */
import { markersFor } from '../../contract/markers.js';
import { seededRandom } from '../../stand-ins/seededRandom.js';
import { friendNote, type FriendNote } from '../../stand-ins/friend.js';
import { OverloadArm, passageAt, type DepthSample, type LiveRunner } from '../load/overloadArm.js';
import type { Section } from '../report.js';
import { startFakeApple } from '../../stand-ins/fakeApple.js';
import { noteLengths } from '../../stand-ins/venueSchedules.js';
import type { BenchContext } from './context.js';

const MILES = markersFor(['mi']);
const RACE_HOURS_AGO = 1.25;
type Kind = 'ahead' | 'near' | 'passed' | 'later';
/** The mix of notes sent in the window (shares): ahead ≥ 5 race minutes (the measured set), 1-5 min ahead, markers passed, a race to come. */
const MIX: Array<[Kind, number]> = [
  ['ahead', 0.55],
  ['near', 0.1],
  ['passed', 0.05],
  ['later', 0.3],
];

interface Sent {
  kind: Kind;
  /** The note's id on each server. */
  ids: Record<'deadline' | 'arrival', string>;
  sentAt: number;
  /** When the runner reaches the marker (epoch ms), for notes of live runners. */
  passage?: number;
}

/** The sizes of the scenario: the smoke run's are tiny. */
function overloadPlan(s: boolean) {
  const RUNNERS = s ? 6 : 36;
  const LATER = s ? 2 : 6;
  const CALIBRATION = s ? 2 : 24;
  /** Conversion work waiting when the window opens, in seconds at the measured rate. */
  const PRELOAD_S = s ? 4 : 360;
  const WINDOW_MS = s ? 10_000 : 180_000;
  /** How long after the window the bench waits for every measured note to be decided (playable, or its runner past the marker). */
  const SETTLE_MS = s ? 45_000 : 480_000;
  /**
   * Leads of the measured set, race minutes. A first run with 5-15 and 240 s preloaded had first come
   * on time too: the machine converted faster in the window than while measuring the rate, and the
   * first-come wait peaked at about 4 min; leads near the 5 min edge and a longer queue make it tell.
   */
  const LEAD_MIN: [number, number] = [5, 9];

  return { RUNNERS, LATER, CALIBRATION, PRELOAD_S, WINDOW_MS, SETTLE_MS, LEAD_MIN };
}
type OverloadPlan = ReturnType<typeof overloadPlan>;

interface WindowScene {
  byDeadline: OverloadArm;
  byArrival: OverloadArm;
  runners: LiveRunner[];
  startsAt: number;
  random: () => number;
  nextNote: () => FriendNote;
  laterLink: (arm: OverloadArm) => string;
  sendEveryMs: number;
  plan: OverloadPlan;
}

/** The window: the same note at the same moment to both servers, every `sendEveryMs`, in the mix. */
async function sendWindow({ byDeadline, byArrival, runners, startsAt, random, nextNote, laterLink, sendEveryMs, plan }: WindowScene) {
  const { RUNNERS, WINDOW_MS, LEAD_MIN } = plan;
  const sent: Sent[] = [];
  const windowStarted = Date.now();
  const pick = (): Kind => {
    let u = random();
    for (const [kind, share] of MIX) if ((u -= share) < 0) return kind;
    return 'later';
  };
  for (let i = 0; Date.now() - windowStarted < WINDOW_MS; i++) {
    const due = windowStarted + i * sendEveryMs;
    if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
    const now = Date.now();
    const kind = pick();
    const note = nextNote();
    const who = Math.floor(random() * RUNNERS);
    const r = runners[who]!;
    const here = (now - startsAt - r.waveMs) / r.pace;
    let marker = 'mi-13';
    if (kind === 'later') {
      const ids = {
        deadline: byDeadline.send(laterLink(byDeadline), note, marker, `Friend ${i}`),
        arrival: byArrival.send(laterLink(byArrival), note, marker, `Friend ${i}`),
      };
      sent.push({ kind, ids, sentAt: now });
      continue;
    }
    if (kind === 'passed') {
      const behind = MILES.filter((m) => m.distanceMeters < here - 200).at(-1);
      if (!behind) continue;
      marker = behind.id;
    } else {
      const [lo, hi] = kind === 'ahead' ? LEAD_MIN : [1, 5];
      const lead = (lo + random() * (hi - lo)) * 60_000;
      const ahead = MILES.find((m) => passageAt(startsAt, r, m.distanceMeters) >= now + lead);
      if (!ahead) continue;
      marker = ahead.id;
    }
    const passage = passageAt(startsAt, r, MILES.find((m) => m.id === marker)!.distanceMeters);
    const ids = {
      deadline: byDeadline.send(byDeadline.liveApps[who]!.token, note, marker, `Friend ${i}`),
      arrival: byArrival.send(byArrival.liveApps[who]!.token, note, marker, `Friend ${i}`),
    };
    sent.push({ kind: passage - now >= 5 * 60_000 ? 'ahead' : kind, ids, sentAt: now, passage });
  }
  return { sent, windowStarted };
}

/** The measurement: each server's on-time share and queue peaks, and the queue over the window for the chart. */
function measureOverload(byDeadline: OverloadArm, byArrival: OverloadArm, measured: Sent[], windowStarted: number) {
  const seenAt = (arm: OverloadArm, n: Sent) => arm.deliveries.seenAt(n.ids[arm.order]);
  const fate = (arm: OverloadArm) => {
    const onTime = measured.filter((n) => (seenAt(arm, n) ?? Infinity) <= n.passage!).length;
    const late = measured.filter((n) => (seenAt(arm, n) ?? Infinity) > n.passage! && Date.now() >= n.passage!).length;
    const samples = arm.samples;
    const peak = (f: (x: DepthSample) => number) => Math.max(0, ...samples.map(f).filter(Number.isFinite));
    return {
      onTime,
      late,
      share: (100 * onTime) / Math.max(1, onTime + late),
      peakDepth: peak((x) => x.depth),
      peakLive: peak((x) => x.live),
      peakOverdue: peak((x) => x.overdue),
    };
  };
  const d = fate(byDeadline);
  const a = fate(byArrival);
  const errors = byDeadline.errors.total() + byArrival.errors.total();

  // The queue over time, one point a sample, by minute of the window.
  const every = Math.max(1, Math.ceil(Math.min(byDeadline.samples.length, byArrival.samples.length) / 40));
  const series = (arm: OverloadArm, f: (x: DepthSample) => number) => arm.samples.filter((_, i) => i % every === 0).map(f);
  const xs = byDeadline.samples.filter((_, i) => i % every === 0).map((x) => `${((x.at - windowStarted) / 60_000).toFixed(1)}`);
  const n = Math.min(xs.length, series(byArrival, (x) => x.depth).length);
  const over = (arm: OverloadArm) => arm.samples.filter((_, i) => i % every === 0).slice(0, n);
  const timeline = (arm: OverloadArm) =>
    over(arm)
      .map((x) => `${((x.at - windowStarted) / 60_000).toFixed(1)}m ${x.depth}(${x.live}/${x.later}) ${x.overdue.toFixed(0)}s`)
      .join(', ');

  return { d, a, errors, every, series, xs, n, timeline };
}

interface OverloadRun {
  byDeadline: OverloadArm;
  byArrival: OverloadArm;
  sent: Sent[];
  windowSeconds: number;
  settleSeconds: number;
  /** Measured notes still undecided when the bench stopped waiting. */
  open: number;
  rate: number;
  rates: number[];
  sendEveryMs: number;
}

/** The report: rows, chart and notes of the overload section. */
function overloadReport(plan: OverloadPlan, m: ReturnType<typeof measureOverload>, run: OverloadRun): Section {
  const { RUNNERS, LATER, CALIBRATION, PRELOAD_S, WINDOW_MS, SETTLE_MS, LEAD_MIN } = plan;
  const { d, a, errors, every, series, xs, n, timeline } = m;
  const { byDeadline, byArrival, sent, windowSeconds, settleSeconds, open, rate, rates, sendEveryMs } = run;
  const counts = Object.fromEntries(MIX.map(([k]) => [k, sent.filter((x) => x.kind === k).length]));
  return {
    id: 'overload',
    title: `Overload, side by side: ${sent.length} notes in ${windowSeconds.toFixed(0)} s at 2x the measured ${rate.toFixed(2)} notes/s, onto ${Math.round(rate * PRELOAD_S)} waiting; deadline order against first come`,
    baseline: 'the same notes at the same moments to a second server converting first come, first served (CONVERT_ORDER=arrival)',
    rows: [
      {
        metric: `notes sent ≥ 5 race min ahead playable before the runner reaches the marker (${d.onTime + d.late} / ${a.onTime + a.late} decided)`,
        ours: d.share,
        baseline: a.share,
        unit: '%',
        digits: 1,
        aim: { text: '≥ 99 % by deadline', met: d.share >= 99 && d.onTime + d.late > 0 },
      },
      {
        metric: 'oldest due note of a live race, past its deadline (overdue gauge), peak',
        ours: d.peakOverdue,
        baseline: a.peakOverdue,
        unit: 's',
        digits: 0,
      },
      { metric: 'conversion queue depth (milenotes_conversion_queue_depth), peak', ours: d.peakDepth, baseline: a.peakDepth, unit: '', digits: 0 },
      { metric: 'of which notes of the live race, peak', ours: d.peakLive, baseline: a.peakLive, unit: '', digits: 0 },
      { metric: 'notes converted a second, measured before the window (CONVERT_CONCURRENCY=1)', ours: rates[0]!, baseline: rates[1]!, unit: '/s', digits: 2 },
      {
        metric: 'errors (failed or refused requests)',
        ours: byDeadline.errors.total(),
        baseline: byArrival.errors.total(),
        unit: '',
        digits: 0,
        aim: { text: 'no error', met: errors === 0 },
      },
    ],
    chart: {
      kind: 'lines',
      title: 'Conversion queue depth over the window (minutes)',
      unit: 'notes',
      xLabels: xs.slice(0, n),
      series: [
        { label: 'deadline: depth', values: series(byDeadline, (x) => x.depth).slice(0, n) },
        { label: 'arrival: depth', values: series(byArrival, (x) => x.depth).slice(0, n) },
        { label: 'deadline: live', values: series(byDeadline, (x) => x.live).slice(0, n) },
        { label: 'arrival: live', values: series(byArrival, (x) => x.live).slice(0, n) },
      ],
    },
    notes: [
      `Runners: ${RUNNERS} in a live race started ${RACE_HOURS_AGO * 60} min before, paces 3:00-10:00 min/km spread evenly, three waves 10 min apart, each app holding its sync (until=playable) and posting 6 positions every 30 s; ${LATER} entries in a race 20 h away. ` +
        `Real time: the server's estimates and deadlines run on its own clock, which the bench cannot compress.`,
      `Rate: ${CALIBRATION} notes (10-60 s speech) to each server at once before the window, converted at ${rates[0]!.toFixed(2)}/s by deadline and ${rates[1]!.toFixed(2)}/s by arrival (both sharing the machine's 2 cores with each other and other work); notes then sent every ${sendEveryMs.toFixed(0)} ms (2x the mean).`,
      `Queue at the window's start: ${Math.round(rate * PRELOAD_S)} notes for the race to come (${PRELOAD_S} s of conversion work), as race morning's queue holds notes recorded days ahead. ` +
        `Why: at 2x capacity the backlog grows by a minute of waiting a minute, so over a ${WINDOW_MS / 60_000} min window alone first come would wait at most ${WINDOW_MS / 60_000} min, less than the 5 min lead of the measured set, and would be on time by luck of a short window. ` +
        `Leads ${LEAD_MIN[0]}-${LEAD_MIN[1]} race minutes for the measured set; with the preload the first-come wait reaches about ${((PRELOAD_S + WINDOW_MS / 1000) / 60).toFixed(0)} min by the window's end.`,
      `Mix sent (same on both): ${counts.ahead} ≥ 5 min ahead (measured), ${counts.near} 1-5 min ahead, ${counts.passed} for a marker passed, ${counts.later} for the race to come. A note is on time when a held sync listed it converted before the runner's true passage at its marker (even pace from the wave's start). ` +
        `After the window the bench waited ${settleSeconds.toFixed(0)} s (at most ${SETTLE_MS / 1000}) for every measured note to be decided; ${open} were not (counted in neither share).`,
      `In the window each server got ${(sent.length / windowSeconds).toFixed(2)} notes/s, ${(sent.length / windowSeconds / rate).toFixed(1)}x the rate measured before it; the queue's growth says what it converted meanwhile ` +
        `(the machine's other work varies: in one run it converted about 1.4x faster in the window than while the rate was measured, so first come's wait stayed under the leads).`,
      `Queue over time, every ${every > 1 ? `${every}th ` : ''}sample (minutes from the window's start: depth (live/later) overdue): deadline ${timeline(byDeadline)}.`,
      `Arrival: ${timeline(byArrival)}.`,
      `Errors: ${errors === 0 ? 'none' : [...byDeadline.errors.samples, ...byArrival.errors.samples].slice(0, 4).join(' | ')}.`,
    ],
  };
}

export async function overloadSection(ctx: BenchContext): Promise<Section> {
  const s = ctx.smoke;
  const plan = overloadPlan(s);
  const { RUNNERS, LATER, CALIBRATION, PRELOAD_S, SETTLE_MS } = plan;

  const apple = await startFakeApple();
  const raised = {
    SIGN_IN_RATE_LIMIT_PER_MINUTE: '1000000',
    UPLOADS_PER_ADDRESS: '1000000',
    OPEN_UPLOADS_PER_ADDRESS: '1000',
    RATE_LIMIT_PER_MINUTE: '1000000',
    CONVERT_CONCURRENCY: '1',
  };
  const arms: OverloadArm[] = [];
  try {
    arms.push(...(await Promise.all((['deadline', 'arrival'] as const).map((o) => OverloadArm.start(o, apple, raised)))));
    const [byDeadline, byArrival] = arms as [OverloadArm, OverloadArm];
    const tag = Date.now().toString(36);
    // The same race start on both (whole minutes): add again if a minute turned between them.
    let ids = { live: `overload-${tag}`, later: `overload-later-${tag}` };
    let races = await Promise.all(arms.map((a) => a.addRaces(ids.live, ids.later, RACE_HOURS_AGO)));
    if (races[0]!.startsAt !== races[1]!.startsAt) {
      ids = { live: `${ids.live}-b`, later: `${ids.later}-b` };
      races = await Promise.all(arms.map((a) => a.addRaces(ids.live, ids.later, RACE_HOURS_AGO)));
    }
    const { startsAt, track } = races[0]!;
    const random = seededRandom(31);
    // Paces 3:00-10:00 min/km, spread evenly; three waves 10 minutes apart.
    const runners: LiveRunner[] = Array.from({ length: RUNNERS }, (_, i) => ({
      pace: 180 + Math.round((420 * ((i * 7) % RUNNERS)) / Math.max(1, RUNNERS - 1)),
      waveMs: (i % 3) * 600_000,
    }));
    ctx.log(`overload: ${RUNNERS} runners and ${LATER} of a later race entering on both servers`);
    await Promise.all(arms.map((a) => a.enter(apple, { raceId: ids.live, startsAt, track, runners }, { raceId: ids.later, count: LATER })));

    // The smoke run: two short lengths (each length is made once with espeak and ffmpeg).
    const lengths = s ? [10, 12] : noteLengths(64, 3131);
    const made = new Map<number, FriendNote>();
    for (const len of new Set(lengths)) made.set(len, await friendNote(len));
    let nth = 0;
    const nextNote = () => made.get(lengths[nth++ % lengths.length]!)!;
    const laterLink = (arm: OverloadArm) => arm.laterApps[Math.floor(random() * arm.laterApps.length)]!.token;

    // The rate, measured in this run: both servers convert the same notes at once, as in the window.
    const calibrationStarted = Date.now();
    for (let i = 0; i < CALIBRATION; i++) {
      const note = nextNote();
      for (const arm of arms) arm.send(laterLink(arm), note, 'mi-20', `Calibration ${i + 1}`);
    }
    await Promise.all(arms.map((a) => a.drainUploads()));
    const drainedAt = await Promise.all(arms.map((a) => a.drained(s ? 60_000 : 300_000)));
    const rates = drainedAt.map((at) => CALIBRATION / ((at - calibrationStarted) / 1000));
    const rate = (rates[0]! + rates[1]!) / 2;
    const sendEveryMs = 1000 / (2 * rate);
    ctx.log(
      `overload: converting ${rates.map((r) => r.toFixed(2)).join(' and ')} notes/s; preloading ${Math.round(rate * PRELOAD_S)} notes of the later race, then sending every ${sendEveryMs.toFixed(0)} ms`,
    );

    // Race morning's queue: notes recorded for the race to come, already waiting.
    for (let i = 0; i < Math.round(rate * PRELOAD_S); i++) {
      const note = nextNote();
      for (const arm of arms) arm.send(laterLink(arm), note, 'mi-13', `Early friend ${i + 1}`);
    }
    await Promise.all(arms.map((a) => a.drainUploads()));
    for (const arm of arms) arm.startSampling(s ? 1_000 : 5_000);

    const { sent, windowStarted } = await sendWindow({ byDeadline, byArrival, runners, startsAt, random, nextNote, laterLink, sendEveryMs, plan });
    const windowSeconds = (Date.now() - windowStarted) / 1000;
    await Promise.all(arms.map((a) => a.drainUploads()));

    // Every measured note decided on both: playable, or its runner past the marker.
    const measured = sent.filter((n) => n.kind === 'ahead');
    const seenAt = (arm: OverloadArm, n: Sent) => arm.deliveries.seenAt(n.ids[arm.order]);
    const undecided = () => measured.filter((n) => arms.some((a) => seenAt(a, n) === undefined && Date.now() < n.passage!)).length;
    const settleUntil = Date.now() + SETTLE_MS;
    while (undecided() > 0 && Date.now() < settleUntil) await new Promise((r) => setTimeout(r, 1_000));
    const settleSeconds = (Date.now() - windowStarted) / 1000 - windowSeconds;
    const open = undecided();

    const m = measureOverload(byDeadline, byArrival, measured, windowStarted);
    ctx.log(`overload: on time by deadline ${m.d.onTime}/${m.d.onTime + m.d.late}, by arrival ${m.a.onTime}/${m.a.onTime + m.a.late}; ${open} undecided`);
    return overloadReport(plan, m, { byDeadline, byArrival, sent, windowSeconds, settleSeconds, open, rate, rates, sendEveryMs });
  } finally {
    await Promise.all(arms.map((a) => a.stop()));
    await apple.close();
  }
}
