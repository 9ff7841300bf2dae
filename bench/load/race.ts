/**
 * A race day on this machine, compressed in time: a live race with a course, the runner's phone
 * (the reference app) running a stretch of it at a marathoner's pace behind a bad cell link,
 * friends at the venue sending real notes pinned to markers a few minutes ahead of the runner, and
 * optionally a baseline app that asks for the whole list every 60 s. What the test and the bench
 * `raceday` section measure: which notes played at their marker, how long from Send to the
 * runner's phone, and the bytes each app took off the network.
 *
 * Time: the race started 7 hours ago (it is live), and simulated time runs `compression` times as
 * fast as real time from the moment the runner reaches `fromMeters`, staying behind the server's
 * clock, so every position the phone stamps is a real, plausible fix of a race in progress.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { localSchedule } from '../../contract/raceClock.js';
import { ReferenceApp, type SyncTry } from '../../reference-app/app.js';
import { ListPoller, SyncObserver } from './listWatchers.js';
import { friendNote, sendNote } from '../../stand-ins/friend.js';
import { seededRandom } from '../../stand-ins/seededRandom.js';
import { runnerOnCourse } from '../../stand-ins/runner.js';
import type { Play } from '../../reference-app/player.js';
import type { FakeApple } from '../../stand-ins/fakeApple.js';
import { FAKE_APPLE_NONCE } from '../../stand-ins/fakeApple.js';
import { courseOf, gpxText, legFrom } from '../../stand-ins/courses.js';

export interface RaceDayServer {
  /** Where the server itself is (the admin CLI and the friends' recorders). */
  url: string;
  admin(...args: string[]): Promise<string>;
}

export interface RaceDayOptions {
  server: RaceDayServer;
  apple: FakeApple;
  /** Where the runner's phone reaches the API: a fault proxy on a bad schedule, or the server. */
  phoneUrl: string;
  /** Where the friends' phones reach it. */
  friendsUrl: string;
  /** Simulated seconds per real second. */
  compression: number;
  /** The stretch of the course the run covers, in metres. */
  fromMeters: number;
  toMeters: number;
  /** Pace in seconds per km (4:00 h marathon ≈ 341 s/km). */
  secondsPerKm?: number;
  friends: number;
  /** How far ahead of the runner (simulated minutes) friends pin their notes: [min, max]. */
  leadMinutes?: [number, number];
  /** Note lengths in seconds, one per friend (cycled). */
  noteSeconds: number[];
  /** Also run the baseline app (whole list every 60 s of race time) on the same entry, reaching the API here: a proxy of its own on the same schedule, so the two apps do not share one link's bandwidth. */
  baselineUrl?: string;
  seed?: number;
}

export interface NoteFate {
  id: string;
  marker: string;
  /** Simulated minutes between the Send and the runner passing the marker. */
  leadMinutes: number;
  sentAt: number;
  storedAt?: number;
  /** When a sync held straight on the server (no link between) first listed it playable: conversion and the wake, without the phone's link. */
  announcedAt?: number;
  /** When the app's sync first listed it playable, when the app began to take its audio, and when the audio was on the phone. */
  listedAt?: number;
  downloadStartedAt?: number;
  onPhoneAt?: number;
  /** Audio requests the download took. */
  tries?: number;
  play?: Play;
  /** The marker the server says the note was heard at, as the friend's recorder reads it. */
  heardAtMarker?: string | null;
}

export interface RaceDayResult {
  notes: NoteFate[];
  appBytes: number;
  baselineBytes?: number;
  /** Of those, notes' audio, and the notes list with its sync answers. */
  appAudioBytes: number;
  baselineAudioBytes?: number;
  appListBytes: number;
  baselineListBytes?: number;
  /** The app's sync requests, for the timeline: how many failed, how long each was held. */
  syncTries: SyncTry[];
  errors: string[];
}

const MARATHON = 42_195;

/**
 * Adds a race in Chicago on a straight course due north from Grant Park that started `hoursAgo`
 * (default 7: live for another hour), in whole minutes. The course's GPX is written where the CLI
 * can read it, and removed once the race has it. Answers its start (epoch ms) and the course's track.
 */
export async function addLiveRace(server: RaceDayServer, id: string, hoursAgo = 7): Promise<{ startsAt: number; track: Array<[number, number]> }> {
  const course = courseOf([legFrom([-87.6205, 41.8757], 0, MARATHON)], 100);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-raceday-'));
  try {
    const gpx = path.join(dir, 'course.gpx');
    await writeFile(gpx, gpxText({ tracks: [[course.track]] }));
    const startsAt = Math.floor((Date.now() - hoursAgo * 3600_000) / 60_000) * 60_000;
    const { date, start } = localSchedule(startsAt, 'America/Chicago');
    await server.admin(
      'add-race',
      '--id',
      id,
      '--name',
      'Race Day Marathon',
      '--date',
      date,
      '--timezone',
      'America/Chicago',
      '--start',
      start,
      '--course',
      gpx,
    );
    return { startsAt, track: course.track as Array<[number, number]> };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function runRaceDay(opts: RaceDayOptions): Promise<RaceDayResult> {
  const pace = opts.secondsPerKm ?? 341;
  const random = seededRandom(opts.seed ?? 7);
  const raceId = `raceday-${Date.now().toString(36)}`;
  const { startsAt, track } = await addLiveRace(opts.server, raceId);
  const runner = runnerOnCourse(track, pace, { seed: opts.seed ?? 7 });

  const fromSimMs = (opts.fromMeters / 1000) * pace * 1000;
  const toSimMs = (opts.toMeters / 1000) * pace * 1000;
  if (fromSimMs + (toSimMs - fromSimMs) * (1 - 1 / opts.compression) > 7 * 3600_000 - 60_000) {
    throw new Error('this stretch at this compression would run ahead of the real clock: shorten it or slow it down');
  }
  let realZero = 0;
  /** Milliseconds of race time since the start. */
  const simElapsed = () => fromSimMs + (Date.now() - realZero) * opts.compression;
  const simNow = () => startsAt + simElapsed();
  const realMs = (simMs: number) => simMs / opts.compression;

  const identityToken = await opts.apple.token({ sub: `runner-${raceId}` });
  // What the bench reads of the app: the bytes it took off the network and its sync requests.
  const seen = { bytes: 0, audio: 0, list: 0, syncs: [] as SyncTry[] };
  const app = new ReferenceApp({
    baseUrl: opts.phoneUrl,
    identityToken,
    nonce: FAKE_APPLE_NONCE,
    waitSeconds: Math.max(1, Math.round(25 / Math.max(1, opts.compression / 4))),
    now: simNow,
    watch: {
      bytes(kind, n) {
        seen.bytes += n;
        if (kind !== 'other') seen[kind] += n;
      },
      synced: (sync) => void seen.syncs.push(sync),
    },
  });
  await app.signIn();
  const { entryId, token } = await app.enter(raceId, 'Alex');
  const { markers } = await app.takeRacePack(raceId);
  const baseline = opts.baselineUrl
    ? new ListPoller({ baseUrl: opts.baselineUrl, identityToken, nonce: FAKE_APPLE_NONCE, entryId, raceId, everyMs: realMs(60_000) })
    : undefined;
  // The observer: the same sync held straight on the server, so a note's wait splits into the server's part and the link's.
  const observer = new SyncObserver({ baseUrl: opts.server.url, identityToken, nonce: FAKE_APPLE_NONCE, entryId, raceId, waitSeconds: 25 });
  await baseline?.prepare();
  await observer.prepare();

  // Friends: each sends when the runner reaches a point of the stretch, for a marker some minutes ahead.
  const [leadMin, leadMax] = opts.leadMinutes ?? [3, 15];
  const metersPerMinute = 60_000 / pace;
  const sendPoints = Array.from({ length: opts.friends }, (_, i) => opts.fromMeters + ((opts.toMeters - opts.fromMeters) * (i + 0.5)) / (opts.friends + 2));
  const plans = sendPoints
    .map((atMeters, i) => {
      const lead = leadMin + random() * (leadMax - leadMin);
      const marker = markers.find((m) => m.distanceMeters >= atMeters + lead * metersPerMinute && m.distanceMeters < opts.toMeters);
      return (
        marker && {
          atMeters,
          marker,
          seconds: opts.noteSeconds[i % opts.noteSeconds.length]!,
          leadMinutes: (marker.distanceMeters - atMeters) / metersPerMinute,
        }
      );
    })
    .filter((p) => p !== undefined);
  const notes = await Promise.all(plans.map((p) => friendNote(p.seconds)));

  const fates: NoteFate[] = [];
  const sends: Promise<void>[] = [];
  realZero = Date.now();
  app.startSync();
  baseline?.start();
  observer.start();
  const fixEveryMs = realMs(5_000);
  const postEveryMs = realMs(30_000);
  let lastPost = Date.now();
  let nextPlan = 0;
  while (simElapsed() < toSimMs) {
    const at = simElapsed();
    app.fix(runner.fixAt(at));
    const distance = runner.distanceAt(at);
    while (nextPlan < plans.length && plans[nextPlan]!.atMeters <= distance) {
      const plan = plans[nextPlan]!;
      const note = notes[nextPlan]!;
      const fate: NoteFate = { id: note.id, marker: plan.marker.id, leadMinutes: plan.leadMinutes, sentAt: Date.now() };
      fates.push(fate);
      sends.push(
        sendNote(opts.friendsUrl, token, note, { marker: plan.marker.id, from: `Friend ${nextPlan + 1}`, deadlineMs: 10 * 60_000 }).then(
          (storedAt) => void (fate.storedAt = storedAt),
        ),
      );
      nextPlan++;
    }
    if (Date.now() - lastPost >= postEveryMs) {
      lastPost = Date.now();
      void app.postPositions();
    }
    await new Promise((r) => setTimeout(r, fixEveryMs));
  }
  await Promise.all(sends);
  // The stretch is over, not the notes on their way: each stored note gets a minute more to reach the phone, so a slow one is measured, not left out.
  await app.awaitNotes(
    fates.filter((f) => f.storedAt !== undefined).map((f) => f.id),
    60_000,
  );
  await app.stop();
  await baseline?.stop();
  await observer.stop();
  for (const fate of fates) {
    const onPhone = app.notes.get(fate.id);
    fate.announcedAt = observer.listed.get(fate.id);
    fate.onPhoneAt = onPhone?.onPhoneAt;
    fate.listedAt = onPhone?.listedAt;
    fate.downloadStartedAt = onPhone?.downloadStartedAt;
    fate.tries = onPhone?.tries;
    fate.play = app.plays.find((p) => p.noteId === fate.id);
    const status = await fetch(`${opts.friendsUrl}/api/r/${token}/notes/${fate.id}/status`);
    if (status.ok) fate.heardAtMarker = ((await status.json()) as { heardAtMarker?: string | null }).heardAtMarker ?? null;
  }
  return {
    notes: fates,
    appBytes: seen.bytes,
    baselineBytes: baseline?.bytesDown,
    appAudioBytes: seen.audio,
    baselineAudioBytes: baseline?.audioBytes,
    appListBytes: seen.list,
    baselineListBytes: baseline?.listBytes,
    syncTries: seen.syncs,
    errors: [...app.errors, ...(baseline?.errors ?? []), ...observer.errors],
  };
}
