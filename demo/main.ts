/**
 * `npm run demo`: a whole race on this computer. The real server (a child process, as `npm start`
 * runs it, but on the demo's clock) in a data folder of its own, a demo race on a course made here,
 * the runner's phone (the reference app) running it, the recorder link for a friend, and a watch
 * page served by this process on its own port. One clock for all of them: a compressed one
 * (server/clock.ts) that reads the real time when the demo starts and runs the race in the minutes
 * asked for. Ends when the runner has finished and the last notes have played; Ctrl-C stops
 * everything it started.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { compressedClock } from '../server/clock.js';
import { startBadNetwork, type ChaosProxy } from '../stand-ins/badNetwork/index.js';
import { venueSchedule } from '../stand-ins/venueSchedules.js';
import { FAKE_APPLE_NONCE, startFakeApple, type FakeApple } from '../stand-ins/fakeApple.js';
import { demoCourse, localTimeZone } from './course.js';
import { courseUnit } from './distance.js';
import { parseOptions, USAGE, type DemoOptions } from './options.js';
import { demoRate, demoRunner, planFriends, runCourse, sendFriendNote, setUpRace, untilTheGun, type DemoRace } from './race.js';
import { clockOf, courseBody, demoState, type DemoState } from './status.js';
import { RaceReport } from './terminal.js';
import { NoteTracker } from './tracker.js';
import { startDemoServer, type DemoServer } from './server.js';
import { startWatchServer, type WatchServer } from './watch.js';

/** After the finish: notes on their way get this long to reach the phone. */
const AFTER_FINISH_MS = 60_000;

const portFreeOn = (port: number, host?: string) =>
  new Promise<boolean>((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
/** Free for the server (which binds 127.0.0.1) and for anything listening on every address. */
const portFree = async (port: number) => (await portFreeOn(port, '127.0.0.1')) && (await portFreeOn(port));

interface Started {
  apple?: FakeApple;
  server?: DemoServer;
  proxy?: ChaosProxy;
  watch?: WatchServer;
  race?: DemoRace;
  tracker?: NoteTracker;
}

/** Ctrl-C was pressed: its handler ends the process once everything has stopped. */
let interrupting = false;

/**
 * The venue's bad network in front of the demo's server: it begins with the first note sent through
 * it, so the page itself loads. Seed 15: the first note's first try is stored by the server but its
 * answer is cut, so a tester sees the recorder send it again and the server keep it once; a phone's
 * page loads at 400 kbit/s.
 */
async function startVenue(port: number, raceMs: number): Promise<ChaosProxy> {
  const schedule = venueSchedule(false, raceMs + AFTER_FINISH_MS);
  const proxy = await startBadNetwork(
    { host: '127.0.0.1', port },
    {
      kind: 'venue',
      schedule: { ...schedule, seed: 15, bitsPerSecond: 400_000 },
      hooks: {
        heldBefore: async () => {
          if (proxy.now() < 0) proxy.start();
          return undefined;
        },
      },
    },
  );
  return proxy;
}

interface Welcome {
  timeZone: string;
  minutes: number;
  rate: number;
  gun: string;
  recorderLink: string;
  watchUrl: string;
  proxy: ChaosProxy | undefined;
  opts: DemoOptions;
  dataDir: string;
}

/** What the demo says once the gun has gone: the links to open, and how to reach them from a phone. */
function printWelcome({ timeZone, minutes, rate, gun, recorderLink, watchUrl, proxy, opts, dataDir }: Welcome): void {
  console.log(
    [
      '',
      `MileNotes demo: Alex runs the Demo Marathon (${timeZone}) in ${minutes} minutes, ${rate.toFixed(1)}x as fast as a 4:05 marathon.`,
      `  The gun went at ${gun} on the demo's clock, which runs ${rate.toFixed(1)}x as fast as this computer's from when the demo started.`,
      "  The server, Alex's phone, the recorder and the watch page all read it: every time they show is on it.",
      '',
      `  Recorder link for a friend: ${recorderLink}`,
      `  Watch page (the runner's phone): ${watchUrl}`,
      '',
      '  Open the recorder link, record a note for a marker ahead of Alex, and watch it travel to the phone and play there.',
      `  On this computer the link works as it is. A phone's microphone needs a secure context: reach port ${proxy ? new URL(proxy.url).port : opts.port} over HTTPS,`,
      '  e.g. through an HTTPS tunnel of your own or `ssh -R` to a host with a certificate.',
      ...(proxy ? ["  --venue: the link goes through a venue's network (offline windows, cut connections, a gateway's 502s) from the first note sent."] : []),
      `  Data folder: ${dataDir}${opts.keep ? ' (kept at the end)' : ' (removed at the end; --keep keeps it)'}. Ctrl-C stops the demo.`,
      '',
    ].join('\n'),
  );
}

async function main(opts: DemoOptions): Promise<void> {
  if (!(await portFree(opts.port))) {
    throw new Error(`port ${opts.port} is busy (is \`npm start\` or another demo running?). Stop it, or run on another port: PORT=8090 npm run demo`);
  }
  if (opts.watchPort !== 0 && !(await portFree(opts.watchPort))) {
    throw new Error(`port ${opts.watchPort} for the watch page is busy: choose another with --watch-port N`);
  }
  const started: Started = {};
  let stopping = false;
  let done = false;
  const stop = async (keepData: boolean) => {
    if (stopping) return;
    stopping = true;
    await started.race?.app.stop().catch(() => undefined);
    await started.tracker?.stop();
    await started.watch?.close();
    await started.proxy?.close();
    await started.server?.stop(keepData);
    await started.apple?.close();
  };
  const interrupted = () => {
    interrupting = true;
    process.stdout.write('\nStopping the demo…\n');
    void stop(opts.keep).finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  try {
    started.apple = await startFakeApple();
    const apple = started.apple;
    const local = `http://localhost:${opts.port}`;
    const course = demoCourse();
    const runner = demoRunner(course);
    // The demo's clock, the server's too: it reads the real time now and runs the race in `minutes`.
    const clockArgs = { origin: Date.now(), rate: demoRate(runner.finishMs, opts.minutes) };
    const clock = compressedClock(clockArgs);
    started.server = await startDemoServer(opts.port, clockArgs, {
      PUBLIC_URL: local,
      APPLE_JWKS_URL: apple.jwksUrl,
      APPLE_AUDIENCE: apple.audience,
      SESSION_SECRET: randomBytes(32).toString('hex'),
      CONVERT_WORKER: 'on',
    });
    const server = started.server;
    const sub = `demo-runner-${randomUUID()}`;
    const race = (started.race = await setUpRace(server, apple, course, runner, clock, sub));
    if (opts.venue) started.proxy = await startVenue(opts.port, race.realMs);
    const proxy = started.proxy;
    const linkBase = proxy ? proxy.url.replace('127.0.0.1', 'localhost') : local;
    const tracker = (started.tracker = new NoteTracker({
      serverUrl: server.url,
      entryId: race.entryId,
      identityToken: () => apple.token({ sub }),
      nonce: FAKE_APPLE_NONCE,
      app: race.app,
      venue: proxy,
      now: clock.now,
    }));
    const body = courseBody(course, race.markers, runner.distanceAt(runner.finishMs), courseUnit(race.units));
    const venueNow = () =>
      proxy && { online: !proxy.schedule.offline.some((w) => proxy.now() >= w.fromMs && proxy.now() < w.toMs), requests: proxy.log.length };
    const timeZone = localTimeZone();
    const state = (): DemoState => demoState(race, course, tracker, venueNow() ?? null, done, timeZone);
    started.watch = await startWatchServer(opts.watchPort, {
      course: () => body,
      state,
      audioUrl: (id) => {
        const audio = tracker.audioPath(id);
        return audio && race.app.plays.some((p) => p.noteId === id) ? `${server.url}${audio}` : undefined;
      },
    });

    const minutes = Math.round(race.realMs / 6_000) / 10;
    const gun = clockOf(race.startsAt, timeZone);
    const wait = (race.startsAt - clock.now()) / clock.rate;
    if (wait > 2_000) console.log(`\nAlex is at the start line: the gun goes at ${gun} on the demo's clock, in ${Math.ceil(wait / 1000)} s.`);
    // The links once the race is on: a recorder opened before the gun would show a race still to come.
    await untilTheGun(race, () => stopping);
    if (stopping) return;
    printWelcome({
      timeZone,
      minutes,
      rate: clock.rate,
      gun,
      recorderLink: `${linkBase}/r/${race.token}`,
      watchUrl: started.watch.url,
      proxy,
      opts,
      dataDir: server.dataDir,
    });

    tracker.start();
    const report = new RaceReport({ tty: process.stdout.isTTY, columns: process.stdout.columns, write: (text) => process.stdout.write(text) });
    const status = setInterval(() => report.update(state()), 500);

    const plans = planFriends(opts.friends, race.markers, race.runner.distanceAt(race.runner.finishMs));
    const sends: Promise<void>[] = [];
    const friendsUrl = proxy?.url ?? server.url;
    await runCourse(
      race,
      plans,
      (plan) => {
        sends.push(sendFriendNote(friendsUrl, race.token, plan, (id) => tracker.sent(id, plan.marker, plan.from)).catch(() => undefined));
      },
      () => stopping,
    );
    // Ctrl-C: the handler stops everything and exits; nothing more to say.
    if (stopping) return;
    // The finish: notes already stored get a minute to reach the phone (and play at once there), then their sound its length.
    await Promise.race([Promise.all(sends), new Promise((r) => setTimeout(r, AFTER_FINISH_MS))]);
    const waiting = tracker
      .snapshot()
      .filter((n) => n.stored !== undefined && !n.played && !n.failed)
      .map((n) => n.id);
    await race.app.awaitNotes(waiting, AFTER_FINISH_MS);
    const notes = tracker.snapshot();
    // Played on the demo's clock; each sound lasts its real length.
    const untilEnds = Math.max(0, ...notes.filter((n) => n.played).map((n) => (n.played! - clock.now()) / clock.rate + (n.durationMs ?? 0)));
    await new Promise((r) => setTimeout(r, Math.min(AFTER_FINISH_MS, Math.max(2_000, untilEnds + 2_000))));
    done = true;
    clearInterval(status);
    report.end(state());
    // The watch page reads the last state once more before the demo's server goes.
    await new Promise((r) => setTimeout(r, 1_500));
  } finally {
    await stop(opts.keep);
  }
}

let options: DemoOptions;
try {
  options = parseOptions(process.argv.slice(2), process.env);
} catch (err) {
  console.error(`${(err as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
main(options).then(
  () => {
    if (!interrupting) process.exit(0);
  },
  (err: unknown) => {
    if (interrupting) return;
    console.error(`\nThe demo stopped: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
