/**
 * One side of the overload bench: a server with one conversion order, its live race with
 * runners on the course (paces 3-10 min/km, wave starts 10 min apart, positions posted every 30 s as
 * the app does, so the server has estimates), a race still to come with a few entries, each app
 * holding its sync with until=playable (when a note became playable), and its /metrics sampled.
 * The runners' clock is the real one: the server's estimates are made against its own clock.
 */
import { addLiveRace } from './race.js';
import { again, CrowdApp, Deliveries, Tally, uploadNote } from './crowd.js';
import type { FriendNote } from '../../stand-ins/friend.js';
import { paced } from './paced.js';
import { runnerOnCourse, type RunnerOnCourse } from '../../stand-ins/runner.js';
import { gaugeIn, readMetrics } from './serverMetrics.js';
import type { FakeApple } from '../../stand-ins/fakeApple.js';
import { startServer, type RunningServer } from '../../kit/server.js';

export interface LiveRunner {
  /** Seconds a km, even. */
  pace: number;
  /** Ms after the gun this runner's wave started. */
  waveMs: number;
}

/** When (epoch ms) a runner of a race started at `startsAt` is `meters` along the course. */
export const passageAt = (startsAt: number, r: LiveRunner, meters: number) => startsAt + r.waveMs + meters * r.pace;

/** A runner at an even pace who crossed the start line `waveMs` after the gun. */
function waved(track: Array<[number, number]>, r: LiveRunner, seed: number): RunnerOnCourse {
  const inner = runnerOnCourse(track, r.pace, { seed });
  return { finishMs: inner.finishMs + r.waveMs, distanceAt: (e) => inner.distanceAt(e - r.waveMs), fixAt: (e) => inner.fixAt(e - r.waveMs) };
}

export interface DepthSample {
  at: number;
  depth: number;
  live: number;
  later: number;
  overdue: number;
}

export class OverloadArm {
  readonly errors = new Tally();
  readonly deliveries = new Deliveries();
  readonly samples: DepthSample[] = [];
  liveApps: CrowdApp[] = [];
  laterApps: CrowdApp[] = [];
  private readonly uploads = new Set<Promise<unknown>>();
  private timers: Array<{ stop(): Promise<void> }> = [];

  private constructor(
    readonly order: 'deadline' | 'arrival',
    readonly server: RunningServer,
  ) {}

  static async start(order: 'deadline' | 'arrival', apple: FakeApple, extraEnv: NodeJS.ProcessEnv): Promise<OverloadArm> {
    const server = await startServer({
      APPLE_JWKS_URL: apple.jwksUrl,
      APPLE_AUDIENCE: apple.audience,
      SESSION_SECRET: 'bench-overload-secret-that-is-long-enough-0001',
      CONVERT_WORKER: 'on',
      METRICS: 'on',
      CONVERT_ORDER: order,
      ...extraEnv,
    });
    return new OverloadArm(order, server);
  }

  /** Adds the live race (started `hoursAgo`) and the later one (in 20 h); answers the live race's start. */
  async addRaces(liveId: string, laterId: string, hoursAgo: number): Promise<{ startsAt: number; track: Array<[number, number]> }> {
    await addLiveRace(this.server, laterId, -20);
    return addLiveRace(this.server, liveId, hoursAgo);
  }

  /** Signs in and enters every runner, each holding its sync; the live ones post positions now and every 30 s. */
  async enter(
    apple: FakeApple,
    live: { raceId: string; startsAt: number; track: Array<[number, number]>; runners: LiveRunner[] },
    later: { raceId: string; count: number },
  ): Promise<void> {
    const sub = (what: string, i: number) => `overload-${this.order}-${what}-${i}-${live.raceId}`;
    const common = { waitSeconds: 25, errors: this.errors, deliveries: this.deliveries };
    this.liveApps = live.runners.map(
      (r, i) =>
        new CrowdApp(this.server.url, {
          ...common,
          raceId: live.raceId,
          sub: sub('live', i),
          name: `Runner ${i + 1}`,
          runner: waved(live.track, r, i + 1),
          startsAt: live.startsAt,
        }),
    );
    // Runners of the race to come: they post no positions (their race has not started).
    this.laterApps = Array.from(
      { length: later.count },
      (_, i) =>
        new CrowdApp(this.server.url, {
          ...common,
          raceId: later.raceId,
          sub: sub('later', i),
          name: `Later ${i + 1}`,
          runner: waved(live.track, { pace: 360, waveMs: 0 }, 1),
          startsAt: live.startsAt,
        }),
    );
    const ready = await Promise.all([...this.liveApps, ...this.laterApps].map((app) => app.setup(apple)));
    if (ready.includes(false)) throw new Error(`overload (${this.order}): an app could not sign in and enter: ${this.errors.samples.join('; ')}`);
    for (const app of this.liveApps) app.startHolding();
    await Promise.all(this.liveApps.map((a) => a.postPositions()));
    this.liveApps.forEach((app, i) => {
      const start = setTimeout(() => this.timers.push(paced(30_000, () => app.postPositions())), (i * 30_000) / this.liveApps.length);
      this.timers.push({ stop: async () => clearTimeout(start) });
    });
  }

  /** Sends a copy of `note` (a fresh id) to this link; answers the id. The upload is waited for by drainUploads(). */
  send(link: string, note: FriendNote, marker: string, from: string, onStored?: (ok: boolean) => void): string {
    const copy = again(note);
    const upload = uploadNote(this.server.url, link, copy, marker, from, this.errors).then((ms) => onStored?.(ms !== undefined));
    this.uploads.add(upload);
    void upload.finally(() => this.uploads.delete(upload));
    return copy.id;
  }

  async drainUploads(): Promise<void> {
    while (this.uploads.size) await Promise.all([...this.uploads]);
  }

  /** The queue as /metrics tells it (all notes waiting, of live races, of later ones, the overdue gauge). */
  async sample(): Promise<DepthSample> {
    const text = await readMetrics(this.server.url);
    const waiting = (race: string) => Number(new RegExp(`^milenotes_conversion_queue_waiting\\{race="${race}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
    return {
      at: Date.now(),
      depth: gaugeIn(text, 'milenotes_conversion_queue_depth'),
      live: waiting('live'),
      later: waiting('later'),
      overdue: gaugeIn(text, 'milenotes_conversion_overdue_seconds'),
    };
  }

  startSampling(everyMs: number): void {
    this.timers.push(paced(everyMs, async () => this.samples.push(await this.sample())));
  }

  /** Waits until the queue is empty; answers when (epoch ms). */
  async drained(timeoutMs: number): Promise<number> {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      if ((await this.sample()).depth === 0) return Date.now();
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`overload (${this.order}): the queue did not drain in ${timeoutMs / 1000} s`);
  }

  async stop(): Promise<void> {
    await Promise.all(this.timers.splice(0).map((t) => t.stop()));
    await this.drainUploads().catch(() => {});
    await Promise.all([...this.liveApps, ...this.laterApps].map((a) => a.stop()));
    await this.server.stop();
  }
}
