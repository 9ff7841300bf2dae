/**
 * The demo's race on the runner's phone: the reference app (reference-app/) signs in, enters the race
 * with progress sharing on, takes the race pack, and runs the whole course at a 4-hour marathon's
 * pace on the demo's clock: a compressed clock (server/clock.ts) that reads the real time when the
 * demo starts and runs `rate` times as fast. The server runs on the same clock (./serve.ts), so the
 * race starts at the next whole minute on it, every fix the phone stamps is a real fix of a race in
 * progress at a runner's speed, the server's own checks (speed, time, live hours) pass unchanged,
 * and every time the recorder shows is one the phone then keeps to.
 */
import type { Position } from 'geojson';
import { ReferenceApp } from '../reference-app/app.js';
import type { Clock } from '../server/clock.js';
import { friendNote, sendNote } from '../stand-ins/friend.js';
import { runnerOnCourse, type RunnerOnCourse } from '../stand-ins/runner.js';
import type { FencedMarker } from '../reference-app/fences.js';
import type { DistanceUnit } from '../contract/races.js';
import { seededRandom } from '../stand-ins/seededRandom.js';
import { noteLengths } from '../stand-ins/venueSchedules.js';
import { FAKE_APPLE_NONCE, type FakeApple } from '../stand-ins/fakeApple.js';
import { addDemoRace, type AdminCli } from './course.js';

/** A 4:05 marathon, a common finishing time. */
export const SECONDS_PER_KM = 348;

/** The runner of the demo on its course (the same one every time). */
export const demoRunner = (course: Position[]): RunnerOnCourse => runnerOnCourse(course, SECONDS_PER_KM, { seed: 3 });

/** How many times as fast as the real clock the demo's runs, for the run to take `minutes` (never slower than real). */
export const demoRate = (finishMs: number, minutes: number): number => Math.max(1, finishMs / (minutes * 60_000));

export interface DemoRace {
  app: ReferenceApp;
  raceId: string;
  entryId: string;
  token: string;
  markers: FencedMarker[];
  /** The units the race's course is marked in, as the catalogue says them. */
  units: readonly DistanceUnit[];
  runner: RunnerOnCourse;
  /** The demo's clock, which the server runs on too. */
  clock: Clock;
  /** The gun, on the demo's clock: a whole minute, as a race's start is said. */
  startsAt: number;
  /** Real milliseconds the run takes from the start line to the finish. */
  realMs: number;
}

/** Race milliseconds since the gun, from 0 (before it) to the finish. */
export const raceElapsed = (race: DemoRace): number => Math.min(Math.max(0, race.clock.now() - race.startsAt), race.runner.finishMs);

/** Adds the race, starting at the next whole minute on the demo's clock, and gets the runner's phone ready at the start line. */
export async function setUpRace(
  server: AdminCli & { url: string },
  apple: FakeApple,
  course: Position[],
  runner: RunnerOnCourse,
  clock: Clock,
  sub: string,
): Promise<DemoRace> {
  const startsAt = Math.ceil(clock.now() / 60_000) * 60_000;
  const raceId = await addDemoRace(server, course, startsAt);
  const app = new ReferenceApp({
    baseUrl: server.url,
    identityToken: await apple.token({ sub }),
    nonce: FAKE_APPLE_NONCE,
    waitSeconds: Math.max(1, Math.round(25 / Math.max(1, clock.rate / 4))),
    now: clock.now,
  });
  await app.signIn();
  const { entryId, token } = await app.enter(raceId, 'Alex');
  const { markers, units } = await app.takeRacePack(raceId);
  return { app, raceId, entryId, token, markers, units, runner, clock, startsAt, realMs: runner.finishMs / clock.rate };
}

/**
 * Waits for the gun (at most a minute on the demo's clock: a few real seconds at the usual rates),
 * so the recorder link is never opened on a race still to come. Resolves early when `stopped()` says so.
 */
export async function untilTheGun(race: DemoRace, stopped: () => boolean): Promise<void> {
  for (let ahead = race.startsAt - race.clock.now(); ahead > 0 && !stopped(); ahead = race.startsAt - race.clock.now()) {
    await new Promise((r) => setTimeout(r, Math.min(250, ahead / race.clock.rate + 1)));
  }
}

export interface FriendPlan {
  atMeters: number;
  marker: string;
  from: string;
  seconds: number;
}

/** Simulated friends: each sends when the runner reaches a point of the course, for a marker 3-15 race minutes ahead. */
export function planFriends(count: number, markers: readonly FencedMarker[], lengthMeters: number): FriendPlan[] {
  const random = seededRandom(2026);
  const lengths = noteLengths(Math.max(1, count), 20251012);
  const metersPerMinute = 60_000 / SECONDS_PER_KM;
  return Array.from({ length: count }, (_, i) => {
    const atMeters = (lengthMeters * (i + 0.5)) / (count + 1);
    const lead = 3 + random() * 12;
    const marker = markers.find((m) => m.distanceMeters >= atMeters + lead * metersPerMinute);
    return marker && { atMeters, marker: marker.id, from: `Friend ${i + 1}`, seconds: lengths[i % lengths.length]! };
  }).filter((p) => p !== undefined);
}

/** Sends one simulated friend's note (a real spoken recording of its length); `sent` is told its id first. */
export async function sendFriendNote(url: string, token: string, plan: FriendPlan, sent: (id: string) => void): Promise<void> {
  const note = await friendNote(plan.seconds);
  sent(note.id);
  await sendNote(url, token, note, { marker: plan.marker, from: plan.from, deadlineMs: 10 * 60_000 });
}

/**
 * Runs the course from the gun: a fix every 5 race seconds (never more than 25 a real second),
 * positions posted every 30 race seconds, friends sending as the runner reaches their points.
 * Resolves at the finish line, or when `stopped()` says so.
 */
export async function runCourse(race: DemoRace, plans: readonly FriendPlan[], send: (plan: FriendPlan) => void, stopped: () => boolean): Promise<void> {
  const { app, runner, clock } = race;
  const fixEveryMs = Math.max(40, 5_000 / clock.rate);
  const postEveryMs = Math.max(250, 30_000 / clock.rate);
  await untilTheGun(race, stopped);
  let lastPost = Date.now();
  let next = 0;
  app.startSync();
  for (;;) {
    const at = raceElapsed(race);
    app.fix(runner.fixAt(at));
    while (next < plans.length && plans[next]!.atMeters <= runner.distanceAt(at)) send(plans[next++]!);
    if (Date.now() - lastPost >= postEveryMs || at >= runner.finishMs) {
      lastPost = Date.now();
      if (at >= runner.finishMs) await app.postPositions();
      else void app.postPositions();
    }
    if (at >= runner.finishMs || stopped()) return;
    await new Promise((r) => setTimeout(r, fixEveryMs));
  }
}
