/**
 * npm run bench:alerts: what one accepted position batch costs the marker alerts (server/push/alerts.ts)
 * when one link holds the most phones it may (PUSH_MAX_PER_LINK, 500) and each phone asked for an
 * alert on every marker ahead of the runner in a mile-and-kilometre race (34). Run on SQLite (a temp DATA_DIR) and on a
 * throwaway PostgreSQL cluster (initdb, fsync off); prints each pass's time and the store calls it made,
 * then what the push worker's poll costs to fire every phone's alert on the marker the runner nears.
 *   ALERTS_PHONES=n     phones on the link (default 500)
 *   ALERTS_PASSES=n     passes measured per database (default 5; each after a new position batch)
 *   ALERTS_BACKENDS=a,b sqlite, postgres (default both)
 * Rows go in through the stores, as the routes put them; nothing here writes SQL.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../server/config/index.js';
import { openRepository } from '../server/db/index.js';
import type { Repository } from '../server/db/repository.js';
import { createMarkerAlerts } from '../server/push/alerts.js';
import { storedCourse } from '../server/races/stored-course.js';
import { deadlinesFollowRunner } from '../server/races/note-deadlines.js';
import { createRunnerMoved, type RunnerMovedEvent } from '../server/races/runner-moved.js';
import { recordPositions } from '../server/races/tracking.js';
import { markersFor } from '../contract/markers.js';
import { localSchedule } from '../contract/raceClock.js';
import { gpxText } from '../stand-ins/courses.js';
import { positionAt, STRAIGHT } from '../stand-ins/straightCourse.js';
import { startOwnPostgres } from '../kit/postgres.js';

const PHONES = Number(process.env.ALERTS_PHONES ?? 500);
const PASSES = Number(process.env.ALERTS_PASSES ?? 5);
const BACKENDS = (process.env.ALERTS_BACKENDS ?? 'sqlite,postgres')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const MILE = 1609.344;
const MINUTE = 60_000;
const RACE = 'bench-alerts-2099';

/** The repository with every store method call counted (the figure the issue gave: 11,722 for 300 x 20). */
function counted(repo: Repository): { repo: Repository; calls: () => number } {
  let calls = 0;
  const wrapped = Object.fromEntries(
    Object.entries(repo).map(([name, store]) => {
      if (typeof store !== 'object' || store === null) return [name, store];
      const methods = Object.fromEntries(
        Object.entries(store as Record<string, unknown>).map(([m, f]) => [
          m,
          typeof f === 'function' ? (...args: unknown[]) => (calls++, (f as (...a: unknown[]) => unknown).apply(store, args)) : f,
        ]),
      );
      return [name, methods];
    }),
  ) as unknown as Repository;
  return { repo: wrapped, calls: () => calls };
}

/** The runner moved, with the notes' deadlines listening: the alerts' pass is the one measured, called on its own. */
function notesFollow(repo: Repository): RunnerMovedEvent {
  const moved = createRunnerMoved();
  moved.listen(deadlinesFollowRunner(repo));
  return moved;
}

/** A live race that started 20 minutes ago on the straight course, a runner sharing progress, and the link's phones with their alerts. */
async function prepare(repo: Repository): Promise<{ entryId: string; start: number; alerts: number }> {
  const start = Math.floor((Date.now() - 20 * MINUTE) / MINUTE) * MINUTE;
  await repo.races.add({ id: RACE, name: 'Bench Marathon', units: ['mi', 'km'], ...localSchedule(start, 'Europe/Berlin'), timezone: 'Europe/Berlin' });
  await repo.races.setCourse(RACE, storedCourse(gpxText({ tracks: [[STRAIGHT.track]] }), ['mi', 'km']));
  const race = (await repo.races.get(RACE))!;
  const account = await repo.accounts.forAppleSub('bench-alerts', new Date().toISOString());
  const entry = await repo.entries.create({
    id: 'bench-entry',
    accountId: account.id,
    raceId: RACE,
    displayName: 'Alex',
    linkId: 'bench-link',
    createdAt: new Date().toISOString(),
  });
  await repo.progress.setSharing(entry.id, true);
  const course = (await repo.races.course(RACE))!;
  // The first ten minutes at 8 minutes a mile: Mile 1 is passed, every other marker is ahead with an estimate.
  const fixes = Array.from({ length: 10 }, (_, i) => positionAt((i / 8) * MILE, start + i * MINUTE));
  await recordPositions(repo, notesFollow(repo), entry.id, race, course, { positions: fixes }, Date.now());
  const markers = markersFor(['mi', 'km'])
    .filter((m) => m.distanceMeters > (9 / 8) * MILE)
    .map((m) => m.id);
  const limits = { perLink: PHONES, perPhone: 20 };
  for (let phone = 0; phone < PHONES; phone++) {
    const deviceId = `bench-phone-${phone}`;
    const saved = await repo.push.subscribe(
      {
        deviceId,
        linkId: 'bench-link',
        endpoint: `https://push.example/${phone}`,
        p256dh: 'p256dh',
        auth: 'auth',
        lang: 'en',
        heard: true,
        sealedToken: 'sealed',
        at: Date.now(),
      },
      limits,
    );
    if (saved !== 'saved') throw new Error(`phone ${phone} was not subscribed: ${saved}`);
    const sub = (await repo.push.subscription(deviceId, 'bench-link'))!;
    for (const marker of markers) await repo.push.setAlert(sub.id, marker, Date.now() + 3600_000, Date.now());
  }
  const last = (await repo.push.subscription(`bench-phone-${PHONES - 1}`, 'bench-link'))!;
  if (last.alerts.length !== markers.length) throw new Error(`expected ${markers.length} alerts a phone, found ${last.alerts.length}`);
  return { entryId: entry.id, start, alerts: PHONES * markers.length };
}

async function measure(kind: string, env: NodeJS.ProcessEnv): Promise<void> {
  const base = await openRepository(loadConfig({ LOG_LEVEL: 'error', ...env }));
  try {
    const prepStarted = performance.now();
    const { entryId, start, alerts } = await prepare(base);
    console.log(`${kind}: ${PHONES} phones, ${alerts} alerts on one link (prepared in ${((performance.now() - prepStarted) / 1000).toFixed(1)} s)`);
    const { repo, calls } = counted(base);
    const marker = createMarkerAlerts(repo);
    const race = (await base.races.get(RACE))!;
    const course = (await base.races.course(RACE))!;
    const times: number[] = [];
    for (let pass = 0; pass < PASSES; pass++) {
      // One more minute of running, as the phone sends it: the estimate moves, every alert's due time with it.
      const minute = 10 + pass;
      await recordPositions(
        base,
        notesFollow(base),
        entryId,
        race,
        course,
        { positions: [positionAt((minute / 8) * MILE, start + minute * MINUTE)] },
        Date.now(),
      );
      const before = calls();
      const t0 = performance.now();
      await marker.positionsMoved(entryId, Date.now());
      const ms = performance.now() - t0;
      times.push(ms);
      console.log(`${kind}: pass ${pass + 1}: ${ms.toFixed(1)} ms, ${calls() - before} store calls`);
    }
    const sorted = [...times].sort((a, b) => a - b);
    console.log(`${kind}: median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} ms over ${PASSES} passes (best ${sorted[0]!.toFixed(1)} ms)`);
    // The runner is now within ten minutes of Mile 2: the poll fires every phone's alert on it.
    const before = calls();
    const t0 = performance.now();
    const fired = await marker.fireDue(Date.now());
    console.log(`${kind}: the poll fired ${fired} alerts in ${(performance.now() - t0).toFixed(1)} ms, ${calls() - before} store calls`);
  } finally {
    await base.close();
  }
}

async function main(): Promise<void> {
  for (const kind of BACKENDS) {
    if (kind === 'sqlite') {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-bench-alerts-'));
      try {
        await measure('sqlite', { DATA_DIR: dir });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    } else if (kind === 'postgres') {
      const pg = await startOwnPostgres();
      const dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-bench-alerts-'));
      try {
        await measure('postgres', { DATA_DIR: dir, DATABASE_URL: pg.url });
      } finally {
        pg.remove();
        await rm(dir, { recursive: true, force: true });
      }
    } else {
      throw new Error(`unknown backend ${kind}; choose sqlite, postgres`);
    }
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
