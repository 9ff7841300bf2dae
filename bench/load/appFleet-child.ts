/**
 * A process of runners' apps for the API-server bench (started by ./appFleet.ts): it signs its
 * share of the apps in, runs them as the parent says (holding, posting positions, refreshing) and
 * hands over what it timed when asked. A process of its own, so the load's CPU is never the
 * server's, and is measured beside it.
 */
import { ApiApp, type Activity, type AppPlan, type AppSink, type AppWorld } from './apiApp.js';
import { watchLoop } from './loopDelay.js';
import { emptyFleetStats, type FromFleet, type ToFleet } from './appFleet.js';

const SETUP_CONCURRENCY = 16;

let world: AppWorld | undefined;
const apps: ApiApp[] = [];
let activity: Activity = { holds: false, positions: false, refresh: false };

let stats = emptyFleetStats();
let loop = watchLoop();

const sink: AppSink = {
  sync(ms, told) {
    stats.syncAnswers++;
    if (told) stats.told.push(ms);
    else {
      stats.longestHoldMs = Math.max(stats.longestHoldMs, ms);
      // A hold ends by the time asked for (less its spread) unless the server ran late.
      if (ms > (world!.holdSeconds + 1) * 1000) stats.lateHolds++;
    }
  },
  positions: (ms) => stats.positions.push(ms),
  audio: (ms) => stats.audio.push(ms),
  played: (ms) => stats.played.push(ms),
  refresh: (ms) => stats.refresh.push(ms),
  seen: (id, at) => stats.seen.push([id, at]),
  error(what, detail) {
    stats.errors[what] = (stats.errors[what] ?? 0) + 1;
    if (stats.errorSamples.length < 8) stats.errorSamples.push(`${what}: ${detail}`);
  },
};

const send = (m: FromFleet) => process.send!(m);

async function setup(plans: AppPlan[]): Promise<void> {
  const made = plans.map((plan) => new ApiApp(world!, plan, sink));
  const ready: ApiApp[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: SETUP_CONCURRENCY }, async () => {
      while (next < made.length) {
        const app = made[next++]!;
        if (await app.setup()) ready.push(app);
      }
    }),
  );
  for (const app of ready) await app.setActivity(activity);
  apps.push(...ready);
  send({ kind: 'ready', links: ready.map((a) => a.link), failed: made.length - ready.length });
}

process.on('message', (m: ToFleet) => {
  if (m.kind === 'world') world = m.world;
  else if (m.kind === 'setup') void setup(m.plans);
  else if (m.kind === 'activity') {
    activity = m.activity;
    void Promise.all(apps.map((a) => a.setActivity(m.activity))).then(() => send({ kind: 'activity-set' }));
  } else if (m.kind === 'collect') {
    send({ kind: 'collected', stats: { ...stats, loop: loop.stop() } });
    stats = emptyFleetStats();
    loop = watchLoop();
  } else if (m.kind === 'stop') {
    const off = { holds: false, positions: false, refresh: false };
    void Promise.all(apps.map((a) => a.setActivity(off))).then(() => process.exit(0));
  }
});
send({ kind: 'started' });
