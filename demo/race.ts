/**
 * The demo's race on the runner's phone: the reference app (reference-app/) signs in, enters the race
 * with progress sharing on, takes the race pack, and runs the whole course at a 4-hour marathon's
 * pace with time compressed, as bench/load/race.ts does for the bench: the race began in the past on
 * the server's clock, and the phone's clock runs `compression` times as fast from the start line,
 * catching up with the real clock at the finish. Every fix it stamps is then a real fix of a race
 * in progress at a runner's speed, so the server's own checks (speed, time, live hours) pass
 * unchanged and nothing in the product knows it is a demo.
 */
import type { Position } from 'geojson';
import { ReferenceApp } from '../reference-app/app.js';
import { friendNote, sendNote } from '../stand-ins/friend.js';
import { runnerOnCourse, type RunnerOnCourse } from '../stand-ins/runner.js';
import type { FencedMarker } from '../reference-app/fences.js';
import { seededRandom } from '../stand-ins/seededRandom.js';
import { noteLengths } from '../stand-ins/venueSchedules.js';
import { FAKE_APPLE_NONCE, type FakeApple } from '../stand-ins/fakeApple.js';
import { addDemoRace, type AdminCli } from './course.js';

/** A 4:05 marathon, a common finishing time. */
export const SECONDS_PER_KM = 348;

export interface DemoClock {
  /** Race time on the phone (epoch ms): compressed, never ahead of the real clock. */
  simNow(): number;
  /** Race milliseconds since the start. */
  simElapsed(): number;
  compression: number;
  startsAt: number;
  /** Real milliseconds the run takes from the start line to the finish. */
  realMs: number;
}

/** The race's clock: it began `(1 - 1/compression)` of the race's length ago, so the phone's compressed clock meets the real one at the finish. */
export function demoClock(finishMs: number, minutes: number): DemoClock & { begin(): void } {
  const realMs = minutes * 60_000;
  const compression = Math.max(1, finishMs / realMs);
  // A minute's slack, in whole minutes as a race's start is said.
  const startsAt = Math.floor((Date.now() - finishMs + finishMs / compression - 60_000) / 60_000) * 60_000;
  let realZero = Date.now();
  const simElapsed = () => (Date.now() - realZero) * compression;
  return {
    compression, startsAt, realMs: finishMs / compression, simElapsed,
    simNow: () => Math.min(Date.now(), startsAt + simElapsed()),
    begin: () => void (realZero = Date.now()),
  };
}

export interface DemoRace {
  app: ReferenceApp;
  raceId: string;
  entryId: string;
  token: string;
  markers: FencedMarker[];
  runner: RunnerOnCourse;
  clock: DemoClock & { begin(): void };
}

/** Adds the race and gets the runner's phone ready at the start line. */
export async function setUpRace(server: AdminCli & { url: string }, apple: FakeApple, course: Position[], minutes: number, sub: string): Promise<DemoRace> {
  const runner = runnerOnCourse(course, SECONDS_PER_KM, { seed: 3 });
  const clock = demoClock(runner.finishMs, minutes);
  const raceId = await addDemoRace(server, course, clock.startsAt);
  const app = new ReferenceApp({
    baseUrl: server.url, identityToken: await apple.token({ sub }), nonce: FAKE_APPLE_NONCE,
    waitSeconds: Math.max(1, Math.round(25 / Math.max(1, clock.compression / 4))), now: clock.simNow,
  });
  await app.signIn();
  const { entryId, token } = await app.enter(raceId, 'Alex');
  const { markers } = await app.takeRacePack(raceId);
  return { app, raceId, entryId, token, markers, runner, clock };
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
 * Runs the course: a fix every 5 race seconds (never more than 25 a real second), positions
 * posted every 30 race seconds, friends sending as the runner reaches their points. Resolves at
 * the finish line, or when `stopped()` says so.
 */
export async function runCourse(race: DemoRace, plans: readonly FriendPlan[], send: (plan: FriendPlan) => void, stopped: () => boolean): Promise<void> {
  const { app, runner, clock } = race;
  const fixEveryMs = Math.max(40, 5_000 / clock.compression);
  const postEveryMs = Math.max(250, 30_000 / clock.compression);
  let lastPost = Date.now();
  let next = 0;
  clock.begin();
  app.startSync();
  for (;;) {
    const at = Math.min(clock.simElapsed(), runner.finishMs);
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
