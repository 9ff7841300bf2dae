/**
 * The API-server bench's machinery, started and stopped as one: a throwaway PostgreSQL (with
 * pg_stat_statements), ONE server process in the API role (CONVERT_WORKER=off, as
 * milenotes-api@.service runs it), the stand-in converting server (./convertingServer.ts), the
 * runners' apps in child processes (./appFleet.ts), the friends and entrants in a thread of the
 * bench process (./friends.ts) and the fake Apple. Each process connects to PostgreSQL under a
 * name of its own, so the connections can be counted by whose they are.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { copyFile, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { startOwnPostgres, type OwnPostgres } from '../../kit/postgres.js';
import { freePort } from '../../kit/freePort.js';
import { startServer, type RunningServer } from '../../kit/server.js';
import { root, runAdmin } from '../../kit/serverProcess.js';
import { startFakeApple, type FakeApple } from '../../stand-ins/fakeApple.js';
import { friendNote } from '../../stand-ins/friend.js';
import { noteLengths } from '../../stand-ins/venueSchedules.js';
import type { AppWorld } from './apiApp.js';
import type { Measured } from './apiMeasure.js';
import { AppFleet } from './appFleet.js';
import type { FromConverting } from './convertingServer.js';
import { Tally } from './crowd.js';
import { FriendsThread } from './friends.js';
import { PgStats } from './pgStats.js';
import { addLiveRace } from './race.js';
import { profilerNodeOptions, startWindowProfiler, type ProfilerKind, type WindowProfiler } from './windowProfiler.js';

export interface RigOptions {
  smoke: boolean;
  log(message: string): void;
  fleetProcesses: number;
  /** SYNC_MAX_HELD for the server: as shipped (5,000) unless a step holds more. */
  syncMaxHeld: number;
  holdSeconds: number;
  positionsEveryMs: number;
  /** More options for the server's Node (a heap setting to try, say), in NODE_OPTIONS. */
  serverNodeOptions?: string;
  /** Starts the server with the rig's settings: this checkout's (kit/server.ts) unless another side's is given. */
  launchServer?: (env: NodeJS.ProcessEnv) => Promise<RunningServer>;
  /** Profile the server in each window with this sampler, keeping the profiles in `dir` (./windowProfiler.ts). */
  profile?: { kind: ProfilerKind; dir: string };
}

export interface ApiRig {
  server: RunningServer;
  apple: FakeApple;
  fleet: AppFleet;
  friends: FriendsThread;
  profiler: WindowProfiler | undefined;
  measured: Measured;
  world: AppWorld;
  /** The friends' notes' lengths in seconds (10-60 s of speech), sent in turn. */
  lengths: number[];
  /** When the converting server's commit of each note returned (epoch ms), by note id. */
  converted: Map<string, number>;
  /** The friends' uploads answered 201: note id, the PUT's time (ms), when (epoch ms). */
  uploads: Array<{ id: string; ms: number; okAt: number }>;
  signIns: number[];
  errors: Tally;
  /** The settings raised from what ships, with their values, for the report. */
  raised: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * What --perf-basic-prof leaves behind once the server has stopped: the map perf reads JavaScript
 * names from (/tmp/perf-<pid>.map), moved beside the profiles (`perf report` wants it back in /tmp),
 * and V8's log in the folder the server ran in, removed.
 */
function perfLeftovers(pid: number | undefined, dir: string): () => Promise<void> {
  return async () => {
    if (pid === undefined) return;
    await copyFile(`/tmp/perf-${pid}.map`, path.join(dir, `perf-${pid}.map`)).catch(() => undefined);
    await rm(`/tmp/perf-${pid}.map`, { force: true });
    for (const f of await readdir(root)) if (f.startsWith('isolate-') && f.endsWith(`-${pid}-v8.log`)) await rm(path.join(root, f), { force: true });
  };
}

/** A database URL naming its client in pg_stat_activity. */
const named = (url: string, name: string) => `${url}?application_name=${name}`;

async function startConverting(env: NodeJS.ProcessEnv, converted: Map<string, number>): Promise<ChildProcess> {
  const child = fork(new URL('./convertingServer.ts', import.meta.url), [], { execArgv: ['--import', 'tsx'], env, stdio: 'inherit' });
  await new Promise<void>((resolve, reject) => {
    child.on('message', (m: FromConverting) => {
      if (m.kind === 'started') resolve();
      else converted.set(m.id, m.at);
    });
    child.once('exit', (code) => reject(new Error(`the converting stand-in exited (${code}) before it started`)));
  });
  return child;
}

async function startApiServer(pg: OwnPostgres, apple: FakeApple, opts: RigOptions, inspectPort: number) {
  // All the load comes from 127.0.0.1: limits per address are raised (in the field the phones come
  // from thousands of addresses); what protects the server as a whole stays as shipped.
  const raised: Record<string, string> = {
    SIGN_IN_RATE_LIMIT_PER_MINUTE: '1000000',
    UPLOADS_PER_ADDRESS: '1000000',
    OPEN_UPLOADS_PER_ADDRESS: '1000',
    ...(opts.syncMaxHeld !== 5_000 && { SYNC_MAX_HELD: String(opts.syncMaxHeld) }),
  };
  const server = await (opts.launchServer ?? startServer)({
    DATABASE_URL: named(pg.url, 'api-server'),
    CONVERT_WORKER: 'off',
    METRICS: 'on',
    APPLE_JWKS_URL: apple.jwksUrl,
    APPLE_AUDIENCE: apple.audience,
    SESSION_SECRET: 'bench-apiserver-secret-that-is-long-enough-0001',
    ...raised,
    NODE_OPTIONS: [process.env.NODE_OPTIONS, opts.serverNodeOptions, opts.profile && profilerNodeOptions(opts.profile.kind, inspectPort)]
      .filter(Boolean)
      .join(' '),
  });
  return { server, raised };
}

export async function startApiRig(opts: RigOptions): Promise<ApiRig> {
  const stops: Array<() => Promise<unknown> | unknown> = [];
  const stop = async () => {
    for (const s of stops.reverse()) await Promise.resolve(s()).catch(() => undefined);
  };
  try {
    opts.log('apiserver: starting PostgreSQL, the API server, the converting stand-in and the apps');
    const pg = await startOwnPostgres({ settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' } });
    stops.push(() => pg.remove());
    const pgStats = await PgStats.open(named(pg.url, 'bench-readings'));
    stops.push(() => pgStats.close());
    const apple = await startFakeApple();
    stops.push(() => apple.close());
    const inspectPort = await freePort();
    const { server, raised } = await startApiServer(pg, apple, opts, inspectPort);
    if (opts.profile && opts.profile.kind !== 'v8') stops.push(perfLeftovers(server.pid(), opts.profile.dir));
    stops.push(() => server.stop());
    const profiler = opts.profile && (await startWindowProfiler(opts.profile.kind, opts.profile.dir, { inspectPort, pid: () => server.pid() }));
    if (profiler) stops.push(() => profiler.close());

    const converted = new Map<string, number>();
    // The server's own process alone is profiled or tuned: its helpers start without its Node options.
    const { NODE_OPTIONS: _serverOnly, ...serverEnv } = server.env;
    if (process.env.NODE_OPTIONS) serverEnv.NODE_OPTIONS = process.env.NODE_OPTIONS;
    const converting = await startConverting({ ...serverEnv, DATABASE_URL: named(pg.url, 'converting-server'), CONVERT_WORKER: 'on' }, converted);
    stops.push(
      () =>
        new Promise((resolve) => {
          converting.once('exit', resolve);
          converting.send({ kind: 'stop' });
        }),
    );

    const raceId = `apiserver-${Date.now().toString(36)}`;
    // Started an hour ago: live, so positions are taken; the runners 8-12 km in.
    const { startsAt, track } = await addLiveRace({ url: server.url, admin: (...args) => runAdmin(serverEnv, args) }, raceId, 1);
    const world: AppWorld = {
      base: server.url,
      raceId,
      startsAt,
      track,
      holdSeconds: opts.holdSeconds,
      positionsEveryMs: opts.positionsEveryMs,
      refreshEveryMs: 14 * 60_000,
    };
    const fleet = await AppFleet.start(opts.fleetProcesses, world);
    stops.push(() => fleet.stop());

    const errors = new Tally();
    const uploads: ApiRig['uploads'] = [];
    const signIns: number[] = [];
    const lengths = noteLengths(opts.smoke ? 4 : 24, 20261124);
    const notes = await Promise.all([...new Set(lengths)].map((s) => friendNote(s)));
    const friends = new FriendsThread(
      { base: server.url, notes: notes.map((n) => ({ seconds: n.seconds, contentType: n.contentType, audio: n.audio })) },
      { errors, signIn: (ms) => signIns.push(ms), upload: (u) => uploads.push(u) },
    );
    stops.push(() => friends.close());

    const measured: Measured = {
      serverUrl: server.url,
      server: () => server.pid(),
      postmaster: () => pg.pid(),
      fleet: () => fleet.pids(),
      converting: () => converting.pid,
      pg: pgStats,
    };
    return { server, apple, fleet, friends, profiler, measured, world, lengths, converted, uploads, signIns, errors, raised, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
