/**
 * Race morning under load, on one server process: the figures a runner and a friend
 * feel (a note upload, the held answer that brings the note converted, a sign-in) and the server's
 * memory, first with nothing else going on, then while a crowd runs at race morning's real rates:
 * apps each holding a sync request and posting a batch of positions every 30 s, runners signing in
 * and entering at 2,000 in 10 minutes, and friends uploading notes at 5 a second to those apps'
 * links, so held requests wake and convert. The window is shorter than a morning (120 s; 10 s and
 * 50 apps in the smoke run), the rates are not.
 */
import { addLiveRace } from '../load/race.js';
import { CrowdApp, Deliveries, heldInFlight, Tally } from '../load/crowd.js';
import { friendNote, type FriendNote } from '../../stand-ins/friend.js';
import { FriendsThread } from '../load/friends.js';
import { quantileBetween } from '../load/histogram.js';
import { watchLoop, type LoopDelay } from '../load/loopDelay.js';
import { bucketsIn, readMetrics, serverLoopLag } from '../load/serverMetrics.js';
import { paced } from '../load/paced.js';
import { childRunning, rssMB } from '../load/procStat.js';
import { runnerOnCourse } from '../../stand-ins/runner.js';
import type { Section } from '../report.js';
import { startFakeApple } from '../../stand-ins/fakeApple.js';
import { startServer } from '../../kit/server.js';
import { noteLengths } from '../../stand-ins/venueSchedules.js';
import { percentile, type BenchContext } from './context.js';

const ENTRANTS_PER_SECOND = 2000 / 600;
const FRIEND_NOTES_PER_SECOND = 5;
const POSITIONS_EVERY_MS = 30_000;
const HOLD_SECONDS = 25;
// Chicago's course is marked in miles: a km marker is refused (unknown_marker).
const MARKERS = ['mi-3', 'mi-5', 'mi-6', 'mi-8', 'mi-10', 'mi-12', 'mi-13', 'mi-16', 'mi-18', 'mi-20', 'mi-24', 'finish'];

/** A process's resident memory (VmRSS), in MB; 0 for none or one gone. */
async function rssOrZero(pid: number | undefined): Promise<number> {
  const mb = await rssMB(pid);
  return Number.isNaN(mb) ? 0 : mb;
}

/** The server's memory and its converter's, in MB (the converter looked for again once it is gone). */
function memoryOf(server: () => number | undefined) {
  let converter: number | undefined;
  return async () => {
    const pid = server();
    if (pid === undefined) return { server: NaN, converter: NaN };
    let converterMB = await rssOrZero(converter);
    if (converterMB === 0) {
      converter = await childRunning(pid, 'converter-process');
      converterMB = await rssOrZero(converter);
    }
    return { server: await rssOrZero(pid), converter: converterMB };
  };
}

const ms0 = (n: number) => n.toFixed(0);
const loopText = (l: LoopDelay) => `${ms0(l.p50)}/${ms0(l.p99)}/${ms0(l.max)} ms`;

/** Runs `task` at most `limit` at a time over `items`. */
async function inBatches<T>(items: T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
}

export async function racemorningSection(ctx: BenchContext): Promise<Section> {
  const APPS = ctx.smoke ? 50 : 1000;
  // The smoke run only proves the steps work: each friend note sent is a conversion on its 2 cores.
  const WINDOW_MS = ctx.smoke ? 4_000 : 120_000;
  /** Probes spread over the loaded window. */
  const PROBES = ctx.smoke ? 3 : 20;
  /**
   * Probes with no load, one after another: the baseline every ratio divides by, so three times
   * as many (a p95 of 20 is their 19th, one slow start; it read 9-44 ms for the upload across runs
   * while the loaded figure held at 35-47 ms).
   */
  const QUIET_PROBES = ctx.smoke ? 2 : 60;
  /**
   * Probes before those, not counted: the first conversion starts ffmpeg cold. None in the smoke
   * run, where each is one more conversion to wait for beside every other section (13 s each in one run).
   */
  const WARM_UPS = ctx.smoke ? 0 : 2;
  /**
   * How long a probe, and the window's notes, may take to come back converted. The converter runs
   * at niceness 10, and the smoke run's sections run side by side: with 8 s, one CI run had not one
   * conversion wake a held answer inside either phase (no figure); here beside one busy core 19 of
   * the window's 20 notes were still waiting after 8 s, and none after 30 s.
   */
  const DRAIN_MS = ctx.smoke ? 30_000 : 120_000;

  const apple = await startFakeApple();
  // All the load comes from 127.0.0.1 here; in the field it comes from thousands of addresses
  // (carrier NATs share some). The limits per address would measure themselves, so they are raised;
  // the ones that protect the server as a whole (SYNC_MAX_HELD 5,000 per process, 4 held per
  // account, the link's quota, the body limits) are left as they ship.
  const raised = {
    SIGN_IN_RATE_LIMIT_PER_MINUTE: '1000000',
    UPLOADS_PER_ADDRESS: '1000000',
    OPEN_UPLOADS_PER_ADDRESS: '1000',
  };
  const server = await startServer({
    APPLE_JWKS_URL: apple.jwksUrl,
    APPLE_AUDIENCE: apple.audience,
    SESSION_SECRET: 'bench-racemorning-secret-that-is-long-enough-01',
    CONVERT_WORKER: 'on',
    METRICS: 'on',
    ...raised,
  });
  // The server's own figures, read at each phase's edges: its timing of a held answer from the
  // change that woke it (server/sync/woken-mark.ts), of each route, and its event-loop lag.
  const reading = () => readMetrics(server.url);
  const wakesIn = (text: string) => bucketsIn(text, 'milenotes_sync_wake_seconds');
  const routeIn = (text: string, method: string, route: string, status: string) =>
    bucketsIn(text, 'milenotes_http_request_duration_seconds', (l) => l.method === method && l.route === route && l.status_code === status);
  const uploadsIn = (text: string) => routeIn(text, 'PUT', '/api/r/:token/notes/:noteId', '201');
  const signInsIn = (text: string) => routeIn(text, 'POST', '/api/auth/apple', '200');
  const errors = new Tally();
  const deliveries = new Deliveries();
  const apps: CrowdApp[] = [];
  let friends: FriendsThread | undefined;
  /** Peaks of the server's memory with its converter's (and of the converter's alone), per phase. */
  const rss = { idle: { total: NaN, converter: NaN }, unloaded: { total: 0, converter: 0 }, loaded: { total: 0, converter: 0 } };
  const memory = memoryOf(() => server.pid());
  let phase: 'unloaded' | 'setup' | 'loaded' | 'done' = 'unloaded';
  const sampler = setInterval(
    () =>
      void memory().then((mb) => {
        if (phase === 'done') return;
        const peak = rss[phase === 'unloaded' ? 'unloaded' : 'loaded'];
        peak.total = Math.max(peak.total, mb.server + mb.converter);
        peak.converter = Math.max(peak.converter, mb.converter);
      }),
    250,
  );
  try {
    const raceId = `racemorning-${Date.now().toString(36)}`;
    // Started an hour ago: live, so positions are taken; runners 8-12 km in.
    const { startsAt, track } = await addLiveRace(server, raceId, 1);
    const runnerFor = (i: number) => runnerOnCourse(track, 300 + (i % 120), { seed: i + 1 });
    const probeLengths = noteLengths(QUIET_PROBES, 19);
    const crowdLengths = noteLengths(24, 20261124);
    const made = new Map<number, FriendNote>();
    for (const s of new Set([...probeLengths, ...crowdLengths])) made.set(s, await friendNote(s));

    const samples = { unloaded: { signIn: [] as number[], upload: [] as number[] }, loaded: { signIn: [] as number[], upload: [] as number[] } };
    // The timed clients (friends, entrants, probes) in a thread of their own: see bench/load/friends.ts.
    const clients = new FriendsThread(
      { base: server.url, notes: [...made.values()].map((n) => ({ seconds: n.seconds, contentType: n.contentType, audio: n.audio })) },
      {
        errors,
        signIn: (ms) => samples.loaded.signIn.push(ms),
        upload: ({ id, ms, okAt }) => {
          samples.loaded.upload.push(ms);
          deliveries.uploaded(id, 'loaded', okAt);
        },
      },
    );
    friends = clients;
    let subs = 0;
    const newSub = () => `racemorning-${raceId}-${subs++}`;

    // The probe: a runner's app holding its sync request, a friend sending it a note, a new runner signing in.
    const probeApp = new CrowdApp(server.url, {
      raceId,
      sub: newSub(),
      name: 'Probe',
      runner: runnerFor(0),
      startsAt,
      waitSeconds: HOLD_SECONDS,
      errors,
      deliveries,
    });
    if (!(await probeApp.setup(apple))) throw new Error(`racemorning: the probe app could not sign in and enter: ${errors.samples.join('; ')}`);
    probeApp.startHolding();
    const probe = async (i: number, into: 'unloaded' | 'loaded' | undefined) => {
      // The identity token is the phone's (Apple's) work, made here where the fake Apple's key is.
      const identityToken = await apple.token({ sub: newSub() });
      const { signInMs, upload } = await clients.probe({
        identityToken,
        link: probeApp.token,
        seconds: probeLengths[i % probeLengths.length]!,
        marker: MARKERS[i % MARKERS.length]!,
        from: `Probe friend ${i + 1}`,
      });
      if (signInMs !== undefined && into) samples[into].signIn.push(signInMs);
      if (!upload) return;
      if (into) samples[into].upload.push(upload.ms);
      deliveries.uploaded(upload.id, into ?? 'warm-up', upload.okAt);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([deliveries.whenSeen(upload.id), new Promise((r) => (timer = setTimeout(r, DRAIN_MS)))]);
      clearTimeout(timer);
    };

    // Phase 1: the probes alone, after the warm-ups.
    ctx.log(`racemorning: ${QUIET_PROBES} probes with no load`);
    errors.phase = 'unloaded';
    for (let i = 0; i < WARM_UPS; i++) await probe(i, undefined);
    const idle = await memory();
    rss.idle = { total: idle.server + idle.converter, converter: idle.converter };
    const beforeProbes = await reading();
    const probesLoop = watchLoop();
    for (let i = 0; i < QUIET_PROBES; i++) await probe(i, 'unloaded');
    const benchLoop = { unloaded: probesLoop.stop(), loaded: { p50: NaN, p99: NaN, max: NaN } };
    const afterProbes = await reading();

    // The crowd signs in and enters before the window (a thousand accounts take a while), then holds.
    phase = 'setup';
    errors.phase = 'setup';
    const setupStarted = Date.now();
    for (let i = 0; i < APPS; i++) {
      apps.push(
        new CrowdApp(server.url, {
          raceId,
          sub: newSub(),
          name: `Runner ${i + 1}`,
          runner: runnerFor(i + 1),
          startsAt,
          waitSeconds: HOLD_SECONDS,
          errors,
          deliveries,
        }),
      );
    }
    const ready: CrowdApp[] = [];
    await inBatches(apps, 16, async (app) => {
      if (await app.setup(apple)) ready.push(app);
    });
    for (const app of ready) app.startHolding();
    ctx.log(`racemorning: ${ready.length} of ${APPS} apps signed in and entered in ${((Date.now() - setupStarted) / 1000).toFixed(0)} s, holding`);

    // Phase 2: the window, at the real rates. Each entrant's identity token is made now (valid 10 min).
    const identityTokens: string[] = [];
    for (let i = 0; i < Math.ceil((WINDOW_MS / 1000) * ENTRANTS_PER_SECOND) + 10; i++) identityTokens.push(await apple.token({ sub: newSub() }));
    phase = 'loaded';
    errors.phase = 'loaded';
    let heldPeak = 0;
    const heldSampler = setInterval(() => (heldPeak = Math.max(heldPeak, heldInFlight())), 100);
    const atWindow = await reading();
    const windowLoop = watchLoop();
    const windowStarted = Date.now();
    // Positions: every app every 30 s, the apps spread evenly over the 30 s.
    const positionTimers: Array<{ stop(): Promise<void> }> = [];
    const firstPosts = ready.map((app, i) =>
      setTimeout(() => positionTimers.push(paced(POSITIONS_EVERY_MS, () => app.postPositions())), (i * POSITIONS_EVERY_MS) / ready.length),
    );
    const positionStarters = ready.map((app, i) => setTimeout(() => void app.postPositions(), (i * POSITIONS_EVERY_MS) / ready.length));
    clients.startLoad({
      raceId,
      links: ready.map((app) => app.token),
      identityTokens,
      seed: 20261124,
      lengths: crowdLengths,
      markers: MARKERS,
      notesPerSecond: FRIEND_NOTES_PER_SECOND,
      entrantsPerSecond: ENTRANTS_PER_SECOND,
    });
    const probes: Promise<void>[] = [];
    const probeTimers = Array.from({ length: PROBES }, (_, i) => setTimeout(() => probes.push(probe(i, 'loaded')), ((i + 0.5) * WINDOW_MS) / PROBES));
    await new Promise((r) => setTimeout(r, WINDOW_MS));
    benchLoop.loaded = windowLoop.stop();
    const windowEnd = await reading();
    for (const t of [...firstPosts, ...positionStarters, ...probeTimers]) clearTimeout(t);
    const [{ entrants, friendNotes, loop: friendsLoop }] = await Promise.all([clients.stop(), ...positionTimers.map((t) => t.stop())]);
    const windowSeconds = (Date.now() - windowStarted) / 1000;
    // What was sent in the window is still converting: wait for the held answers that carry it.
    const drainUntil = Date.now() + DRAIN_MS;
    while (deliveries.missing('loaded') > 0 && Date.now() < drainUntil) await new Promise((r) => setTimeout(r, 250));
    await Promise.all(probes);
    clearInterval(heldSampler);
    const drainSeconds = (Date.now() - windowStarted) / 1000 - windowSeconds;
    const undelivered = { unloaded: deliveries.missing('unloaded'), loaded: deliveries.missing('loaded') };
    const drainedAt = Date.now();
    const atEnd = await reading();
    const convertedPerSecond = deliveries.delivered('loaded') / ((drainedAt - windowStarted) / 1000);
    phase = 'done';
    await Promise.all([probeApp.stop(), ...apps.map((a) => a.stop())]);

    // Rows: under load against no load, in this run.
    const p95 = (values: number[]) => percentile(values, 95);
    const held = { unloaded: deliveries.samples('unloaded', drainedAt), loaded: deliveries.samples('loaded', drainedAt) };
    const between = (from: string, to: string, of: (text: string) => ReturnType<typeof wakesIn>) => quantileBetween(of(from), of(to), 0.95);
    const wake = { unloaded: between(beforeProbes, afterProbes, wakesIn), loaded: between(atWindow, atEnd, wakesIn) };
    // The server's own p95 (from its buckets): what the bench's figures are beside what it spent in the bench's process.
    const serverTimed = {
      upload: { unloaded: between(beforeProbes, afterProbes, uploadsIn), loaded: between(atWindow, atEnd, uploadsIn) },
      signIn: { unloaded: between(beforeProbes, afterProbes, signInsIn), loaded: between(atWindow, atEnd, signInsIn) },
    };
    const serverLoop = { unloaded: serverLoopLag(afterProbes), loaded: serverLoopLag(windowEnd) };
    const figures = [
      { metric: 'note upload (PUT → 201), p95', ours: p95(samples.loaded.upload), baseline: p95(samples.unloaded.upload) },
      { metric: 'held answer after a conversion woke it, p95', ours: wake.loaded.value * 1000, baseline: wake.unloaded.value * 1000 },
      { metric: 'sign-in (POST /api/auth/apple), p95', ours: p95(samples.loaded.signIn), baseline: p95(samples.unloaded.signIn) },
    ];
    const loadedErrors = errors.total('loaded') + errors.total('setup');
    const unloadedErrors = errors.total('unloaded');
    const rows: Section['rows'] = [
      ...figures.map((f) => ({
        ...f,
        unit: 'ms',
        digits: 0,
        aim: { text: '≤ 3x no load', met: Number.isFinite(f.ours) && Number.isFinite(f.baseline) && f.ours <= 3 * f.baseline },
      })),
      {
        metric: "held answer carrying the note converted, from the upload's 201 (conversion queue included), p95",
        ours: p95(held.loaded),
        baseline: p95(held.unloaded),
        unit: 'ms',
        digits: 0,
      },
      { metric: 'server memory (RSS, with its converter process), peak', ours: rss.loaded.total, baseline: rss.unloaded.total, unit: 'MB', digits: 0 },
      {
        metric: 'errors (failed or refused requests)',
        ours: loadedErrors,
        baseline: unloadedErrors,
        unit: '',
        digits: 0,
        aim: { text: 'no error', met: loadedErrors === 0 && unloadedErrors === 0 },
      },
      {
        metric: `notes not yet converted ${DRAIN_MS / 1000} s after the window`,
        ours: undelivered.loaded,
        baseline: undelivered.unloaded,
        unit: '',
        digits: 0,
        aim: { text: 'none', met: undelivered.loaded === 0 && undelivered.unloaded === 0 },
      },
      {
        metric: `notes converted a second under load (friends send ${FRIEND_NOTES_PER_SECOND}/s)`,
        ours: convertedPerSecond,
        baseline: null,
        unit: '/s',
        digits: 1,
      },
      { metric: 'sync requests held open at once, peak', ours: heldPeak, baseline: null, unit: '', digits: 0 },
    ];
    return {
      id: 'racemorning',
      title: `Race morning under load: ${ready.length} apps holding sync, ${entrants} sign-ins, ${friendNotes} friends' notes in ${windowSeconds.toFixed(0)} s, one server`,
      baseline: 'the same probes on the same server with nothing else going on, earlier in the same run',
      rows,
      chart: {
        kind: 'bars',
        title: 'Race morning: p95 with no load and under load',
        unit: 'ms',
        series: ['no load', 'under load'],
        groups: figures.map((f) => ({ label: f.metric.replace(/, p95$/, '').replace(/ \(.*\)/, ''), values: [f.baseline, f.ours] })),
      },
      notes: [
        `Load: ${ready.length} apps (one account and entry each) holding GET /api/entries/:id/notes?after=…&wait=${HOLD_SECONDS}&until=playable and posting 6 positions every 30 s (spread over the 30 s); ` +
          `runners signing in and entering at ${ENTRANTS_PER_SECOND.toFixed(1)}/s (2,000 in 10 min; ${entrants} here); friends' notes (10-60 s of speech, Opus 24 kbit/s) at ${FRIEND_NOTES_PER_SECOND}/s to the apps' links (${friendNotes} here), each app downloading its notes' audio. ` +
          `The window ran ${windowSeconds.toFixed(0)} s, then ${drainSeconds.toFixed(0)} s waiting for held answers to carry the window's notes converted (at most ${DRAIN_MS / 1000} s).`,
        `Samples: no load ${QUIET_PROBES} probes one after another (sign-in, note upload, held answer; 10-60 s notes as the friends send), after ${WARM_UPS} warm-up probes; under load ${PROBES} of the same probes spread over the window plus every entrant's sign-in (${samples.loaded.signIn.length}) and every friend's upload (${samples.loaded.upload.length}) and held answer (${held.loaded.length}).`,
        `Held answer after a conversion: timed by the server, from the conversion waking a held request to its answer sent (the apps ask with until=playable, as docs/app-contract.md says, so a note only received does not end their hold) (milenotes_sync_wake_seconds, p95 read from its buckets as Prometheus does; ${wake.unloaded.count} wakes with no load, ${wake.loaded.count} under load). ` +
          `From the upload's 201: to the held sync answer whose note is converted (the conversion, ffmpeg with CONVERT_CONCURRENCY as shipped, and its queue are inside it). ` +
          `A note no answer carried by the end counts as the time it had waited then (a lower bound)${undelivered.loaded ? `: ${undelivered.loaded} of ${held.loaded.length} under load, so that p95 is at least the figure shown` : ''}. ` +
          `Conversions under load: ${convertedPerSecond.toFixed(1)} a second from the window's start to its end plus the wait after, against ${FRIEND_NOTES_PER_SECOND} a second sent.`,
        `Memory: VmRSS of the server process and its converter process (server/audio/converter.ts; not their ffmpeg runs), sampled every 250 ms: ${rss.idle.total.toFixed(0)} MB idle after the warm-up, ` +
          `peak ${rss.unloaded.total.toFixed(0)} MB with the probes alone, ${rss.loaded.total.toFixed(0)} MB from the crowd's sign-in to the end of the window; of which the converter ${rss.idle.converter.toFixed(0)}, ${rss.unloaded.converter.toFixed(0)} and ${rss.loaded.converter.toFixed(0)} MB.`,
        `Limits raised for the bench (${Object.entries(raised)
          .map(([k, v]) => `${k}=${v}`)
          .join(
            ', ',
          )}): all the load comes from 127.0.0.1 here, in the field from thousands of addresses. Left as shipped: SYNC_MAX_HELD (5,000 a process), 4 held per account, each link's quota, RATE_LIMIT_PER_MINUTE (per address and link).`,
        `The apps run in the bench process's main thread; the clients timed here (friends' uploads, entrants' sign-ins and entries, the probes) in a thread of their own with its own event loop, ` +
          `as a friend's phone is not also busy running a thousand runners' apps (in one thread their answers waited behind the apps' JavaScript). All share the machine's 2 cores with the server and its ffmpeg conversions.`,
        `Event loops, delay p50/p99/max: the bench's main thread (the apps; monitorEventLoopDelay) ${loopText(benchLoop.unloaded)} during the probes with no load, ${loopText(benchLoop.loaded)} in the window; the timed clients' thread ${loopText(friendsLoop)} in the window; ` +
          `the server's (prom-client's nodejs_eventloop_lag_*) ${loopText(serverLoop.unloaded)} and ${loopText(serverLoop.loaded)} (each figure includes the sampling interval, 5 ms in the bench, 10 ms in prom-client). ` +
          `The server's own timing, p95 from its buckets (milenotes_http_request_duration_seconds, request to answer sent): note upload ${ms0(serverTimed.upload.unloaded.value * 1000)} ms with no load (${serverTimed.upload.unloaded.count}), ` +
          `${ms0(serverTimed.upload.loaded.value * 1000)} ms under load (${serverTimed.upload.loaded.count}); sign-in ${ms0(serverTimed.signIn.unloaded.value * 1000)} ms (${serverTimed.signIn.unloaded.count}) and ${ms0(serverTimed.signIn.loaded.value * 1000)} ms (${serverTimed.signIn.loaded.count}).`,
        `Errors: ${errors.total() === 0 ? 'none' : [...errors.counts].map(([k, v]) => `${k} ×${v}`).join(', ')}${errors.samples.length ? `; first: ${errors.samples.slice(0, 4).join(' | ')}` : ''}.`,
      ],
    };
  } finally {
    clearInterval(sampler);
    await Promise.all(apps.map((a) => a.stop()));
    await friends?.close();
    await server.stop();
    await apple.close();
  }
}
