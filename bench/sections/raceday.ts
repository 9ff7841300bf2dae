/**
 * Race day: the reference app (reference-app/) on the runner's phone behind the venue's cell link, with
 * friends sending realistic notes (10-60 s) pinned to markers 3-15 race minutes ahead of the runner,
 * and the baseline app, which asks for the whole notes list every 60 s of race time, beside it on
 * the same entry and the same link. Time is compressed (the race runs several times as fast),
 * so a stretch of the course fits in minutes (4x; 40x in the smoke run); network figures are in real seconds.
 */
import { type ChaosProxy, startBadNetwork } from '../../stand-ins/badNetwork/index.js';
import { runRaceDay } from '../load/race.js';
import type { Section } from '../report.js';
import { startFakeApple } from '../../stand-ins/fakeApple.js';
import { startServer } from '../../kit/server.js';
import type { BenchContext } from './context.js';
import { noteLengths, venueSchedule } from '../../stand-ins/venueSchedules.js';
import { median, percentile } from './context.js';

const med95 = (values: number[]) => `${median(values).toFixed(1)} / ${percentile(values, 95).toFixed(1)}`;

/** Race time runs this many times as fast as real time (the smoke run only proves every step works). */
const compressionFor = (smoke: boolean) => (smoke ? 40 : 4);

type RaceDayResult = Awaited<ReturnType<typeof runRaceDay>>;

/** The measurement: what the run's notes, the phone's syncs and the link's log say, offline windows taken out where the aim says so. */
function measureRaceDay(result: RaceDayResult, proxy: ChaosProxy) {
  const ahead = result.notes.filter((n) => n.leadMinutes >= 3);
  const atMarker = ahead.filter((n) => n.play?.atItsMarker).length;
  const sendToPhone = result.notes.filter((n) => n.onPhoneAt).map((n) => (n.onPhoneAt! - n.sentAt) / 1000);
  const arrived = result.notes.filter((n) => n.onPhoneAt && n.storedAt && n.listedAt);
  const storedToPhone = arrived.map((n) => (n.onPhoneAt! - n.storedAt!) / 1000);
  // The aim holds "while the phone has a link": the schedule's offline windows inside each note's wait are taken out.
  const proxyOffset = Date.now() - proxy.now();
  const offlineMs = (from: number, to: number) =>
    proxy.schedule.offline.reduce((sum, w) => sum + Math.max(0, Math.min(to - proxyOffset, w.toMs) - Math.max(from - proxyOffset, w.fromMs)), 0);
  // A wait in seconds with the offline windows inside it taken out (the aim's reading).
  const linked = (from: number, to: number) => (to - from - offlineMs(from, to)) / 1000;
  const storedToPhoneLinked = arrived.map((n) => linked(n.storedAt!, n.onPhoneAt!));
  // Where each note's wait goes, each part linked.
  const timed = arrived.filter((n) => n.announcedAt && n.downloadStartedAt);
  const splits = {
    announced: timed.map((n) => (n.announcedAt! - n.storedAt!) / 1000),
    listed: timed.map((n) => linked(n.announcedAt!, Math.max(n.announcedAt!, n.listedAt!))),
    queued: timed.map((n) => linked(n.listedAt!, n.downloadStartedAt!)),
    downloaded: timed.map((n) => linked(n.downloadStartedAt!, n.onPhoneAt!)),
  };
  const storedToListed = arrived.map((n) => (n.listedAt! - n.storedAt!) / 1000);
  const listedToPhone = arrived.map((n) => (n.onPhoneAt! - n.listedAt!) / 1000);
  const linkedAt = (t: number) => offlineMs(t, t + 1) === 0;
  // Was a sync request open on the phone when the server had the note to tell? If not, the app learns of it only when it asks again.
  const openAt = (t: number) => result.syncTries.some((s) => s.openedAt <= t && t <= s.endedAt);
  const announcedLinked = timed.filter((n) => linkedAt(n.announcedAt!));
  const unheld = announcedLinked.filter((n) => !openAt(n.announcedAt!)).length;
  const syncFailures = result.syncTries.filter((s) => !/^[23]\d\d$/.test(s.outcome) && linkedAt(s.openedAt)).length;
  // How soon after each offline window the phone was back on the link (its sync retries through every window): what the retry rule costs.
  const backAfter = proxy.schedule.offline
    .map((w) => proxy.log.find((e) => e.atMs >= w.toMs)?.atMs)
    .flatMap((at, i) => (at === undefined ? [] : [(at - proxy.schedule.offline[i]!.toMs) / 1000]));
  // What became of each note's audio requests on the link (the proxy's own log).
  const fatesOf = (id: string) => {
    const counts = new Map<string, number>();
    for (const e of proxy.log) if (e.path.startsWith(`/api/notes/${id}/audio`)) counts.set(e.fate, (counts.get(e.fate) ?? 0) + 1);
    return [...counts].map(([fate, n]) => `${fate} ${n}`).join(' ');
  };
  const share = ahead.length ? (100 * atMarker) / ahead.length : NaN;
  const p95Stored = percentile(storedToPhoneLinked, 95);
  const appKB = result.appBytes / 1024;
  const baseKB = (result.baselineBytes ?? NaN) / 1024;
  // What keeping up with the notes list costs: both apps take the same race pack and each note's audio once.
  const appSyncKB = result.appListBytes / 1024;
  const baseSyncKB = (result.baselineListBytes ?? NaN) / 1024;
  return {
    ahead,
    share,
    sendToPhone,
    storedToPhone,
    p95Stored,
    splits,
    storedToListed,
    listedToPhone,
    timed,
    offlineMs,
    fatesOf,
    syncFailures,
    announcedLinked,
    unheld,
    backAfter,
    appKB,
    baseKB,
    appSyncKB,
    baseSyncKB,
  };
}

/** The report: the rows, the chart and the notes of the race day section. */
function racedayReport(figures: ReturnType<typeof measureRaceDay>, result: RaceDayResult, friends: number, compression: number): Section {
  const {
    ahead,
    share,
    sendToPhone,
    storedToPhone,
    p95Stored,
    splits,
    storedToListed,
    listedToPhone,
    timed,
    offlineMs,
    fatesOf,
    syncFailures,
    announcedLinked,
    unheld,
    backAfter,
    appKB,
    baseKB,
    appSyncKB,
    baseSyncKB,
  } = figures;
  return {
    id: 'raceday',
    title: `Race day: ${friends} friends' notes to a runner's phone on the venue link (${compression}x compressed)`,
    baseline: 'an app that asks for the whole notes list every 60 s of race time, on the same entry, behind a link of its own with the same schedule',
    rows: [
      {
        metric: 'notes sent ≥ 3 race min ahead played at their marker',
        ours: share,
        baseline: null,
        unit: '%',
        digits: 0,
        aim: { text: '100 %', met: share === 100 },
      },
      { metric: 'Send → on the phone, p50', ours: percentile(sendToPhone, 50), baseline: null, unit: 's', digits: 1 },
      { metric: 'Send → on the phone, p95', ours: percentile(sendToPhone, 95), baseline: null, unit: 's', digits: 1 },
      {
        metric: 'stored → on the phone, p95, while the phone has a link',
        ours: p95Stored,
        baseline: null,
        unit: 's',
        digits: 1,
        aim: { text: '≤ 10 s', met: p95Stored <= 10 },
      },
      { metric: 'stored → on the phone, p95, offline windows included', ours: percentile(storedToPhone, 95), baseline: null, unit: 's', digits: 1 },
      {
        metric: 'split: stored → listed by a sync held on the server itself (conversion, wake), p95',
        ours: percentile(splits.announced, 95),
        baseline: null,
        unit: 's',
        digits: 1,
      },
      {
        metric: 'split: → listed on the phone (its held sync through the link), p95, linked',
        ours: percentile(splits.listed, 95),
        baseline: null,
        unit: 's',
        digits: 1,
      },
      {
        metric: 'split: → its download begins (queued behind other notes), p95, linked',
        ours: percentile(splits.queued, 95),
        baseline: null,
        unit: 's',
        digits: 1,
      },
      {
        metric: 'split: → its audio on the phone (download, resumed across cuts), p95, linked',
        ours: percentile(splits.downloaded, 95),
        baseline: null,
        unit: 's',
        digits: 1,
      },
      {
        metric: 'bytes of the notes list and its sync answers',
        ours: appSyncKB,
        baseline: baseSyncKB,
        unit: 'KB',
        digits: 1,
        aim: { text: '≤ 0.2x the baseline', met: appSyncKB <= 0.2 * baseSyncKB },
      },
      { metric: 'bytes the app took off the network, audio included', ours: appKB, baseline: baseKB, unit: 'KB', digits: 0 },
    ],
    chart: {
      kind: 'bars',
      title: "Race day: what the runner's app downloads",
      unit: 'KB',
      series: ['ours (held sync, cursor)', 'whole list every 60 s'],
      groups: [
        { label: 'KB of the notes list and sync', values: [appSyncKB, baseSyncKB] },
        { label: 'KB in all', values: [appKB, baseKB] },
      ],
    },
    notes: [
      `Where a note's wait goes (median / p95, real s, offline windows taken out but for the first): stored → listed by a sync held on the server itself ${med95(splits.announced)}; → listed on the phone ${med95(splits.listed)}; → download begins ${med95(splits.queued)}; → audio on the phone ${med95(splits.downloaded)}. Wall clock: stored → listed on the phone ${med95(storedToListed)}, listed → on the phone ${med95(listedToPhone)}.`,
      `Per note (server + listed + queued + download, offline s inside, audio requests): ${timed.map((n, i) => `${splits.announced[i]!.toFixed(1)}+${splits.listed[i]!.toFixed(1)}+${splits.queued[i]!.toFixed(1)}+${splits.downloaded[i]!.toFixed(1)} (${(offlineMs(n.storedAt!, n.onPhoneAt!) / 1000).toFixed(0)}, ${n.tries})`).join(', ')}.`,
      `Each note's audio requests through the link, by fate (offline: refused in a window, cut: the proxy's failing requests): ${timed.map((n) => fatesOf(n.id)).join('; ')}.`,
      `The phone's sync: ${result.syncTries.length} requests, ${syncFailures} of those sent while the link was up with no answer or a 5xx; of the ${announcedLinked.length} notes the server had to tell while the link was up, ${unheld} found the phone with no sync request open; after an offline window its first request reached the link (median / p95 / max) ${med95(backAfter)} / ${Math.max(...backAfter).toFixed(1)} s later (the retry rule's cost).`,
      `${result.notes.length} notes sent; ${ahead.length} at least 3 race minutes ahead; ${result.errors.length} app errors${result.errors.length ? `: ${result.errors.slice(0, 3).join('; ')}` : ''}.`,
      `Seconds are real seconds on this machine; race minutes are compressed ${compression}x, so a note sent 3 race minutes ahead had ${180 / compression} real seconds to arrive.`,
      `Both apps take the same race pack (races, course, the list so far) and download each note's audio once (${Math.round(result.appAudioBytes / 1024)} KB for ours): the first bytes row is what keeping up with the notes list cost each, the second everything, positions' receipts (ours only) included.`,
    ],
  };
}

export async function racedaySection(ctx: BenchContext): Promise<Section> {
  const COMPRESSION = compressionFor(ctx.smoke);
  const apple = await startFakeApple();
  const server = await startServer({
    APPLE_JWKS_URL: apple.jwksUrl,
    APPLE_AUDIENCE: apple.audience,
    SESSION_SECRET: 'bench-raceday-secret-that-is-long-enough-0123',
    CONVERT_WORKER: 'on',
    UPLOADS_PER_ADDRESS: '1000000',
    OPEN_UPLOADS_PER_ADDRESS: '1000',
  });
  // The runner's phone is on the venue's cell: offline windows, failing requests, a slow shared link.
  // The smoke run's stretch holds two mile markers, so each of its two friends has one ahead to pin to.
  const stretchMeters = ctx.smoke ? 4_000 : 10_000;
  const friends = ctx.smoke ? 2 : 12;
  const realMs = ((stretchMeters / 1000) * 341 * 1000) / COMPRESSION;
  const schedule = { ...venueSchedule(ctx.smoke, realMs + 60_000), bitsPerSecond: 400_000 };
  const proxy = await startBadNetwork({ host: '127.0.0.1', port: server.port }, { kind: 'venue', schedule });
  // The baseline's phone: the same schedule and seed, a link of its own (the two apps must not share one link's bandwidth).
  const baselineProxy = await startBadNetwork({ host: '127.0.0.1', port: server.port }, { kind: 'venue', schedule });
  try {
    proxy.start();
    baselineProxy.start();
    ctx.log(`raceday: ${stretchMeters / 1000} km of the course at ${COMPRESSION}x, ${friends} friends, about ${Math.round(realMs / 1000)} s`);
    const result = await runRaceDay({
      server,
      apple,
      phoneUrl: proxy.url,
      friendsUrl: server.url,
      compression: COMPRESSION,
      fromMeters: 15_000,
      toMeters: 15_000 + stretchMeters,
      friends,
      leadMinutes: ctx.smoke ? [3, 8] : [3, 15],
      noteSeconds: noteLengths(friends, 20251012),
      baselineUrl: baselineProxy.url,
      seed: 11,
    });
    return racedayReport(measureRaceDay(result, proxy), result, friends, COMPRESSION);
  } finally {
    await proxy.close();
    await baselineProxy.close();
    await server.stop();
    await apple.close();
  }
}
