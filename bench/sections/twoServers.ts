/**
 * Two servers on one PostgreSQL sharing the conversion queue: does adding a converting
 * server add its share of the rate? N real notes (10-60 s of speech) are queued on one server
 * process and it drains them (notes/s); then a second process starts on the same database and
 * audio folder (one disk shared, as a volume would be) and N more notes drain with both. The
 * second's added rate is reported as a ratio of the first's. CONVERT_CONCURRENCY=1 each, so on this
 * 2-core machine each gets a core; CPU seconds of the processes (and their ffmpeg runs) beside.
 */
import { addLiveRace } from '../load/race.js';
import { again, Tally, uploadNote } from '../load/crowd.js';
import { friendNote, type FriendNote } from '../../stand-ins/friend.js';
import { childrenOf, cpuSeconds, cpuSecondsWithReaped } from '../load/procStat.js';
import { gaugeIn, readMetrics } from '../load/serverMetrics.js';
import type { Section } from '../report.js';
import { startOwnPostgres } from '../../kit/postgres.js';
import { startServer, type RunningServer } from '../../kit/server.js';
import { noteLengths } from '../../stand-ins/venueSchedules.js';
import type { BenchContext } from './context.js';

/** CPU seconds of a server process and of its converter process with the ffmpeg runs it waited for. */
async function serverCpu(server: RunningServer): Promise<number> {
  const pid = server.pid();
  if (pid === undefined) return 0;
  let total = await cpuSeconds(pid);
  for (const child of await childrenOf(pid)) total += await cpuSecondsWithReaped(child);
  return total;
}

const depthOf = async (server: RunningServer) => gaugeIn(await readMetrics(server.url), 'milenotes_conversion_queue_depth');
/** Conversions this process has done (its own histogram's count). */
const convertedBy = async (server: RunningServer) => gaugeIn(await readMetrics(server.url), 'milenotes_conversion_duration_seconds_count');

export async function twoServersSection(ctx: BenchContext): Promise<Section> {
  const N = ctx.smoke ? 3 : 40;
  const pg = await startOwnPostgres();
  const servers: RunningServer[] = [];
  try {
    const env = {
      DATABASE_URL: pg.url,
      CONVERT_WORKER: 'on',
      CONVERT_CONCURRENCY: '1',
      METRICS: 'on',
      UPLOADS_PER_ADDRESS: '1000000',
      OPEN_UPLOADS_PER_ADDRESS: '1000',
      RATE_LIMIT_PER_MINUTE: '1000000',
    };
    const first = await startServer(env);
    servers.push(first);
    await addLiveRace(first, 'two-servers', 1);
    const links = await Promise.all(Array.from({ length: 4 }, (_, i) => first.createLink(`Runner ${i + 1}`, 'two-servers')));
    const lengths = ctx.smoke ? [10, 12] : noteLengths(N, 3232);
    const made = new Map<number, FriendNote>();
    for (const s of new Set(lengths)) made.set(s, await friendNote(s));
    const errors = new Tally();

    /** Queues N notes on `server`, then answers notes/s from the moment all are stored until the queue is empty, and the CPU spent. */
    const drain = async (phase: string, via: RunningServer, running: RunningServer[]) => {
      errors.phase = phase;
      const cpuBefore = await Promise.all(running.map(serverCpu));
      const countBefore = await Promise.all(running.map(convertedBy));
      const started = Date.now();
      await Promise.all(
        Array.from({ length: N }, (_, i) =>
          uploadNote(via.url, links[i % links.length]!, again(made.get(lengths[i % lengths.length]!)!), 'mi-20', `Friend ${i + 1}`, errors),
        ),
      );
      const stored = Date.now();
      const queued = await depthOf(via);
      while ((await depthOf(via)) > 0) {
        if (Date.now() - started > (ctx.smoke ? 120_000 : 600_000)) throw new Error(`two servers (${phase}): the queue did not drain`);
        await new Promise((r) => setTimeout(r, 200));
      }
      const seconds = (Date.now() - stored) / 1000;
      const cpuEach = (await Promise.all(running.map(serverCpu))).map((c, i) => c - cpuBefore[i]!);
      const countEach = (await Promise.all(running.map(convertedBy))).map((c, i) => c - countBefore[i]!);
      const cpu = cpuEach.reduce((a, b) => a + b, 0);
      // From the moment all were stored: what was converted while the uploads went on is left out.
      return { rate: queued / seconds, queued, seconds, cpu, cpuEach, countEach, uploadSeconds: (stored - started) / 1000 };
    };
    // A warm-up note: the converter process's start is paid once a server, not per note.
    const warm = async (server: RunningServer) => {
      await uploadNote(server.url, links[0]!, again(made.get(lengths[0]!)!), 'mi-20', 'Warm-up', errors);
      while ((await depthOf(server)) > 0) await new Promise((r) => setTimeout(r, 200));
    };
    await warm(first);
    ctx.log(`two servers: ${N} notes on one server`);
    const one = await drain('one server', first, [first]);
    const second = await startServer({ ...env, DATA_DIR: first.dataDir });
    servers.push(second);
    await warm(second);
    ctx.log(`two servers: ${N} notes on two servers`);
    const two = await drain('two servers', first, [first, second]);
    const added = (two.rate - one.rate) / one.rate;
    ctx.log(`two servers: ${one.rate.toFixed(2)} notes/s with one, ${two.rate.toFixed(2)} with two (the second adds ${added.toFixed(2)}x)`);
    const meanSeconds = lengths.slice(0, N).reduce((a, b) => a + b, 0) / Math.min(N, lengths.length);
    return {
      id: 'twoservers',
      title: `Two servers on one PostgreSQL sharing the conversion queue: ${N} notes of 10-60 s speech drained by one, then ${N} by two (CONVERT_CONCURRENCY=1 each)`,
      baseline: 'one server process alone on the same database, earlier in the same run',
      rows: [
        { metric: `notes converted a second (mean ${meanSeconds.toFixed(0)} s of speech)`, ours: two.rate, baseline: one.rate, unit: '/s', digits: 2 },
        {
          metric: "rate the second server adds, as a share of the first's",
          ours: added,
          baseline: null,
          unit: 'x',
          digits: 2,
          aim: { text: '≥ 0.8x', met: added >= 0.8 },
        },
        { metric: 'CPU seconds per note (servers, converters, ffmpeg)', ours: two.cpu / two.queued, baseline: one.cpu / one.queued, unit: 's', digits: 2 },
        {
          metric: 'cores the conversions got (CPU seconds over wall seconds)',
          ours: two.cpu / two.seconds,
          baseline: one.cpu / one.seconds,
          unit: '',
          digits: 2,
        },
        {
          metric: 'errors (failed or refused requests)',
          ours: errors.total('two servers'),
          baseline: errors.total('one server'),
          unit: '',
          digits: 0,
          aim: { text: 'no error', met: errors.total() === 0 },
        },
      ],
      chart: {
        kind: 'bars',
        title: 'Notes converted a second, one server and two on one PostgreSQL',
        unit: '/s',
        series: ['one server', 'two servers'],
        groups: [{ label: 'notes / s', values: [one.rate, two.rate] }],
      },
      notes: [
        `Each phase: ${N} notes uploaded (${one.uploadSeconds.toFixed(1)} s and ${two.uploadSeconds.toFixed(1)} s), then timed from the last stored to an empty queue (milenotes_conversion_queue_depth, read from the database): ` +
          `${one.queued} waiting drained in ${one.seconds.toFixed(1)} s by one, ${two.queued} in ${two.seconds.toFixed(1)} s by two. A warm-up note on each server first (its converter process's start).`,
        `Split with two: the first converted ${two.countEach[0]} and the second ${two.countEach[1]} of them (each process's milenotes_conversion_duration_seconds_count), CPU ${two.cpuEach.map((c) => c.toFixed(0)).join(' s and ')} s. ` +
          `CPU: ${one.cpu.toFixed(0)} s with one server, ${two.cpu.toFixed(0)} s with two (utime+stime of the server processes and of their converter processes with the ffmpeg runs they waited for). ` +
          'The machine has 2 cores shared with other work running at the same time (other benchmarks and tests), so the wall-clock rates, and the ratio, are lower bounds of what two free cores give; CPU per note says whether the second server costs more per note.',
        'Both servers on one throwaway PostgreSQL cluster (initdb, fsync off) and one audio folder (a disk both see, as a shared volume would be); leases as shipped.',
      ],
    };
  } finally {
    for (const s of servers.reverse()) await s.stop();
    pg.remove();
  }
}
