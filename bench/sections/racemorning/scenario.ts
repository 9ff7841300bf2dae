/**
 * Race morning's scenario on one server process: its sizes, the server and the fake Apple it runs
 * against, the probe (a runner's app holding its sync request, a friend sending it a note, a new
 * runner signing in), and the phases in order: the probes alone, the crowd signing in, the window at
 * race morning's real rates, and the wait for the window's notes to come back converted.
 */
import { addLiveRace } from '../../load/race.js';
import { CrowdApp, Deliveries, heldInFlight, Tally } from '../../load/crowd.js';
import { friendNote, type FriendNote } from '../../../stand-ins/friend.js';
import { FriendsThread } from '../../load/friends.js';
import { watchLoop } from '../../load/loopDelay.js';
import { paced } from '../../load/paced.js';
import { runnerOnCourse } from '../../../stand-ins/runner.js';
import { type FakeApple, startFakeApple } from '../../../stand-ins/fakeApple.js';
import { type RunningServer, startServer } from '../../../kit/server.js';
import { noteLengths } from '../../../stand-ins/venueSchedules.js';
import type { BenchContext } from '../context.js';
import { MemorySampler, metricsOf } from './measurement.js';

export const ENTRANTS_PER_SECOND = 2000 / 600;
export const FRIEND_NOTES_PER_SECOND = 5;
const POSITIONS_EVERY_MS = 30_000;
export const HOLD_SECONDS = 25;
// Chicago's course is marked in miles: a km marker is refused (unknown_marker).
const MARKERS = ['mi-3', 'mi-5', 'mi-6', 'mi-8', 'mi-10', 'mi-12', 'mi-13', 'mi-16', 'mi-18', 'mi-20', 'mi-24', 'finish'];

// All the load comes from 127.0.0.1 here; in the field it comes from thousands of addresses
// (carrier NATs share some). The limits per address would measure themselves, so they are raised;
// the ones that protect the server as a whole (SYNC_MAX_HELD 5,000 per process, 4 held per
// account, the link's quota, the body limits) are left as they ship.
export const RAISED = {
  SIGN_IN_RATE_LIMIT_PER_MINUTE: '1000000',
  UPLOADS_PER_ADDRESS: '1000000',
  OPEN_UPLOADS_PER_ADDRESS: '1000',
};

/** The sizes of the scenario: the window is shorter than a morning (120 s; 4 s and 50 apps in the smoke run), the rates are not. */
export function racemorningPlan(smoke: boolean) {
  const APPS = smoke ? 50 : 1000;
  // The smoke run only proves the steps work: each friend note sent is a conversion on its 2 cores.
  const WINDOW_MS = smoke ? 4_000 : 120_000;
  /** Probes spread over the loaded window. */
  const PROBES = smoke ? 3 : 20;
  /**
   * Probes with no load, one after another: the baseline every ratio divides by, so three times
   * as many (a p95 of 20 is their 19th, one slow start; it read 9-44 ms for the upload across runs
   * while the loaded figure held at 35-47 ms).
   */
  const QUIET_PROBES = smoke ? 2 : 60;
  /**
   * Probes before those, not counted: the first conversion starts ffmpeg cold. None in the smoke
   * run, where each is one more conversion to wait for beside every other section (13 s each in one run).
   */
  const WARM_UPS = smoke ? 0 : 2;
  /**
   * How long a probe, and the window's notes, may take to come back converted. The converter runs
   * at niceness 10, and the smoke run's sections run side by side: with 8 s, one CI run had not one
   * conversion wake a held answer inside either phase (no figure); here beside one busy core 19 of
   * the window's 20 notes were still waiting after 8 s, and none after 30 s.
   */
  const DRAIN_MS = smoke ? 30_000 : 120_000;
  return { APPS, WINDOW_MS, PROBES, QUIET_PROBES, WARM_UPS, DRAIN_MS };
}
export type RaceMorningPlan = ReturnType<typeof racemorningPlan>;

/** Runs `task` at most `limit` at a time over `items`. */
async function inBatches<T>(items: T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
}

type Timed = 'unloaded' | 'loaded';
const after = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The probes alone: the server's figures before and after them, the bench's event loop meanwhile. */
export type QuietPhase = Awaited<ReturnType<RaceMorning['quietPhase']>>;
/** The window: the server's figures at its edges, what the timed clients sent, how long it ran. */
export type WindowPhase = Awaited<ReturnType<RaceMorning['window']>>;
/** The wait after the window: what was still not converted, and when it ended. */
export type DrainPhase = Awaited<ReturnType<RaceMorning['drain']>>;

/** One race morning: `start`, then the phases in order, then `stop` (always). */
export class RaceMorning {
  readonly errors = new Tally();
  readonly deliveries = new Deliveries();
  readonly apps: CrowdApp[] = [];
  /** The apps that signed in and entered, holding their sync requests. */
  ready: CrowdApp[] = [];
  readonly samples = { unloaded: { signIn: [] as number[], upload: [] as number[] }, loaded: { signIn: [] as number[], upload: [] as number[] } };
  readonly memory: MemorySampler;
  readonly metrics: ReturnType<typeof metricsOf>;
  /** Sync requests held open at once, peak, from the window's start to the end of the wait after it. */
  heldPeak = 0;
  private heldSampler: NodeJS.Timeout | undefined;
  private friends: FriendsThread | undefined;
  private probeApp: CrowdApp | undefined;
  private subs = 0;
  private readonly raceId = `racemorning-${Date.now().toString(36)}`;
  private race!: { startsAt: number; track: Array<[number, number]> };
  private probeLengths: number[] = [];
  private crowdLengths: number[] = [];

  private constructor(
    private readonly ctx: BenchContext,
    readonly plan: RaceMorningPlan,
    private readonly apple: FakeApple,
    private readonly server: RunningServer,
  ) {
    this.memory = new MemorySampler(() => server.pid());
    this.metrics = metricsOf(server.url);
  }

  static async start(ctx: BenchContext, plan: RaceMorningPlan): Promise<RaceMorning> {
    const apple = await startFakeApple();
    const server = await startServer({
      APPLE_JWKS_URL: apple.jwksUrl,
      APPLE_AUDIENCE: apple.audience,
      SESSION_SECRET: 'bench-racemorning-secret-that-is-long-enough-01',
      CONVERT_WORKER: 'on',
      METRICS: 'on',
      ...RAISED,
    });
    return new RaceMorning(ctx, plan, apple, server);
  }

  private newSub = () => `racemorning-${this.raceId}-${this.subs++}`;
  private runnerFor = (i: number) => runnerOnCourse(this.race.track, 300 + (i % 120), { seed: i + 1 });
  private crowdApp = (name: string, i: number) =>
    new CrowdApp(this.server.url, {
      raceId: this.raceId,
      sub: this.newSub(),
      name,
      runner: this.runnerFor(i),
      startsAt: this.race.startsAt,
      waitSeconds: HOLD_SECONDS,
      errors: this.errors,
      deliveries: this.deliveries,
    });

  /** The live race, the notes every client sends, the timed clients' thread and the probe's app, holding. */
  async setup(): Promise<void> {
    // Started an hour ago: live, so positions are taken; runners 8-12 km in.
    this.race = await addLiveRace(this.server, this.raceId, 1);
    this.probeLengths = noteLengths(this.plan.QUIET_PROBES, 19);
    this.crowdLengths = noteLengths(24, 20261124);
    const made = new Map<number, FriendNote>();
    for (const s of new Set([...this.probeLengths, ...this.crowdLengths])) made.set(s, await friendNote(s));
    // The timed clients (friends, entrants, probes) in a thread of their own: see bench/load/friends.ts.
    this.friends = new FriendsThread(
      { base: this.server.url, notes: [...made.values()].map((n) => ({ seconds: n.seconds, contentType: n.contentType, audio: n.audio })) },
      {
        errors: this.errors,
        signIn: (ms) => this.samples.loaded.signIn.push(ms),
        upload: ({ id, ms, okAt }) => {
          this.samples.loaded.upload.push(ms);
          this.deliveries.uploaded(id, 'loaded', okAt);
        },
      },
    );
    const probeApp = this.crowdApp('Probe', 0);
    this.probeApp = probeApp;
    if (!(await probeApp.setup(this.apple))) throw new Error(`racemorning: the probe app could not sign in and enter: ${this.errors.samples.join('; ')}`);
    probeApp.startHolding();
  }

  /** One probe: a new runner's sign-in and a friend's note to the probe app, waited for until a held answer carries it converted. */
  private async probe(i: number, into: Timed | undefined): Promise<void> {
    // The identity token is the phone's (Apple's) work, made here where the fake Apple's key is.
    const identityToken = await this.apple.token({ sub: this.newSub() });
    const { signInMs, upload } = await this.friends!.probe({
      identityToken,
      link: this.probeApp!.token,
      seconds: this.probeLengths[i % this.probeLengths.length]!,
      marker: MARKERS[i % MARKERS.length]!,
      from: `Probe friend ${i + 1}`,
    });
    if (signInMs !== undefined && into) this.samples[into].signIn.push(signInMs);
    if (!upload) return;
    if (into) this.samples[into].upload.push(upload.ms);
    this.deliveries.uploaded(upload.id, into ?? 'warm-up', upload.okAt);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.deliveries.whenSeen(upload.id), new Promise((r) => (timer = setTimeout(r, this.plan.DRAIN_MS)))]);
    clearTimeout(timer);
  }

  /** Phase 1: the probes alone, after the warm-ups. */
  async quietPhase() {
    const { QUIET_PROBES, WARM_UPS } = this.plan;
    this.ctx.log(`racemorning: ${QUIET_PROBES} probes with no load`);
    this.errors.phase = 'unloaded';
    for (let i = 0; i < WARM_UPS; i++) await this.probe(i, undefined);
    await this.memory.idle();
    const before = await this.metrics.read();
    const probesLoop = watchLoop();
    for (let i = 0; i < QUIET_PROBES; i++) await this.probe(i, 'unloaded');
    const benchLoop = probesLoop.stop();
    const after = await this.metrics.read();
    return { before, after, benchLoop };
  }

  /** The crowd signs in and enters before the window (a thousand accounts take a while), then holds. */
  async crowdSetup(): Promise<void> {
    this.memory.phase = 'setup';
    this.errors.phase = 'setup';
    const setupStarted = Date.now();
    for (let i = 0; i < this.plan.APPS; i++) this.apps.push(this.crowdApp(`Runner ${i + 1}`, i + 1));
    await inBatches(this.apps, 16, async (app) => {
      if (await app.setup(this.apple)) this.ready.push(app);
    });
    for (const app of this.ready) app.startHolding();
    this.ctx.log(
      `racemorning: ${this.ready.length} of ${this.plan.APPS} apps signed in and entered in ${((Date.now() - setupStarted) / 1000).toFixed(0)} s, holding`,
    );
  }

  /** Phase 2: the window, at the real rates. Each entrant's identity token is made now (valid 10 min). */
  async window() {
    const { WINDOW_MS, PROBES } = this.plan;
    const ready = this.ready;
    const identityTokens: string[] = [];
    for (let i = 0; i < Math.ceil((WINDOW_MS / 1000) * ENTRANTS_PER_SECOND) + 10; i++) identityTokens.push(await this.apple.token({ sub: this.newSub() }));
    this.memory.phase = 'loaded';
    this.errors.phase = 'loaded';
    this.heldSampler = setInterval(() => (this.heldPeak = Math.max(this.heldPeak, heldInFlight())), 100);
    const atStart = await this.metrics.read();
    const windowLoop = watchLoop();
    const started = Date.now();
    // Positions: every app every 30 s, the apps spread evenly over the 30 s.
    const positionTimers: Array<{ stop(): Promise<void> }> = [];
    const firstPosts = ready.map((app, i) =>
      setTimeout(() => positionTimers.push(paced(POSITIONS_EVERY_MS, () => app.postPositions())), (i * POSITIONS_EVERY_MS) / ready.length),
    );
    const positionStarters = ready.map((app, i) => setTimeout(() => void app.postPositions(), (i * POSITIONS_EVERY_MS) / ready.length));
    this.friends!.startLoad({
      raceId: this.raceId,
      links: ready.map((app) => app.token),
      identityTokens,
      seed: 20261124,
      lengths: this.crowdLengths,
      markers: MARKERS,
      notesPerSecond: FRIEND_NOTES_PER_SECOND,
      entrantsPerSecond: ENTRANTS_PER_SECOND,
    });
    const probes: Promise<void>[] = [];
    const probeTimers = Array.from({ length: PROBES }, (_, i) => setTimeout(() => probes.push(this.probe(i, 'loaded')), ((i + 0.5) * WINDOW_MS) / PROBES));
    await after(WINDOW_MS);
    const benchLoop = windowLoop.stop();
    const atEnd = await this.metrics.read();
    for (const t of [...firstPosts, ...positionStarters, ...probeTimers]) clearTimeout(t);
    const [{ entrants, friendNotes, loop: friendsLoop }] = await Promise.all([this.friends!.stop(), ...positionTimers.map((t) => t.stop())]);
    const seconds = (Date.now() - started) / 1000;
    return { atStart, atEnd, benchLoop, friendsLoop, entrants, friendNotes, started, seconds, probes };
  }

  /** What was sent in the window is still converting: wait for the held answers that carry it. */
  async drain(window: WindowPhase) {
    const drainUntil = Date.now() + this.plan.DRAIN_MS;
    while (this.deliveries.missing('loaded') > 0 && Date.now() < drainUntil) await after(250);
    await Promise.all(window.probes);
    clearInterval(this.heldSampler);
    const seconds = (Date.now() - window.started) / 1000 - window.seconds;
    const undelivered = { unloaded: this.deliveries.missing('unloaded'), loaded: this.deliveries.missing('loaded') };
    const drainedAt = Date.now();
    const atEnd = await this.metrics.read();
    const convertedPerSecond = this.deliveries.delivered('loaded') / ((drainedAt - window.started) / 1000);
    this.memory.phase = 'done';
    await Promise.all([this.probeApp?.stop(), ...this.apps.map((a) => a.stop())]);
    return { seconds, undelivered, drainedAt, atEnd, convertedPerSecond };
  }

  async stop(): Promise<void> {
    this.memory.stop();
    clearInterval(this.heldSampler);
    await Promise.all(this.apps.map((a) => a.stop()));
    await this.friends?.close();
    await this.server.stop();
    await this.apple.close();
  }
}
