/**
 * The measuring part of the API-server bench: a reading of everything at a window's edge (the
 * server's CPU, memory and sockets from /proc, its /metrics, PostgreSQL's counters and its
 * processes' CPU, the load's processes' CPU, the whole machine's busy time) and what two readings
 * say about the window between them. Nothing here drives load: ./apiScenario.ts does.
 */
import { quantileBetween } from './histogram.js';
import { pgBetween, type PgDelta, type PgReading, type PgStats } from './pgStats.js';
import { cpuSeconds, cpuSplit, loadNow, runQueueWait, machineCpu, rssMB, socketsOf, treeCpu, treeCpuBetween } from './procStat.js';
import { bucketsIn, gaugeIn, readMetrics, serverLoopLag } from './serverMetrics.js';

/** The processes a reading looks at. */
export interface Measured {
  serverUrl: string;
  server(): number | undefined;
  postmaster(): number | undefined;
  fleet(): number[];
  converting(): number | undefined;
  pg: PgStats;
}

export interface Reading {
  at: number;
  serverCpu: number;
  serverSplit: { user: number; system: number };
  serverWait: number;
  serverRssMB: number;
  serverSockets: number;
  metrics: string;
  pg: PgReading;
  pgCpu: Map<number, number>;
  fleetCpu: number;
  convertingCpu: number;
  benchCpu: number;
  machine: { busy: number; total: number };
  load1: number;
}

/** Seconds the server's garbage collector has paused it so far, every kind summed (prom-client's nodejs_gc_duration_seconds). */
const gcSecondsIn = (metrics: string) =>
  [...metrics.matchAll(/^nodejs_gc_duration_seconds_sum(?:\{[^}]*\})? (\S+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);

export async function takeReading(m: Measured): Promise<Reading> {
  // /metrics first: reading it resets prom-client's event-loop lag, so a window's lag is its own.
  const metrics = await readMetrics(m.serverUrl);
  const [serverCpu, serverSplit, serverWait, serverRssMB, serverSockets, pg, pgCpu, fleet, convertingCpu, benchCpu, machine] = await Promise.all([
    cpuSeconds(m.server()),
    cpuSplit(m.server()),
    runQueueWait(m.server()),
    rssMB(m.server()),
    socketsOf(m.server()),
    m.pg.read(),
    treeCpu(m.postmaster()),
    Promise.all(m.fleet().map(cpuSeconds)),
    cpuSeconds(m.converting()),
    cpuSeconds(process.pid),
    machineCpu(),
  ]);
  return {
    at: Date.now(),
    serverCpu,
    serverSplit,
    serverWait,
    serverRssMB,
    serverSockets,
    metrics,
    pg,
    pgCpu,
    fleetCpu: fleet.reduce((a, b) => a + b, 0),
    convertingCpu,
    benchCpu,
    machine,
    load1: loadNow().load1,
  };
}

/** CPU of each party over a window, in cores (CPU seconds a second). */
export interface Cores {
  server: number;
  postgres: number;
  fleet: number;
  converting: number;
  /** The bench process: its readings, the friends' and entrants' thread, the fake Apple. */
  bench: number;
  machine: number;
  /** The machine's busy time less all of the above: other people's work on the shared machine. */
  others: number;
}

export interface WindowFigures {
  seconds: number;
  serverCpuSeconds: number;
  /** Of the server's CPU, the share the kernel spent for it (stime). */
  serverSystemShare: number;
  /** Seconds a second the server's event-loop thread was ready but waited for a core. */
  serverWaitShare: number;
  cores: Cores;
  pg: PgDelta;
  /** The server's event-loop delay over the window (prom-client, 10 ms resolution), ms. */
  loop: { p50: number; p99: number; max: number };
  /** The server's own p95 of a route's answers (milenotes_http_request_duration_seconds), ms, and how many. */
  route(method: string, route: string, status: string): { value: number; count: number };
  /** The server's p95 from a held request woken to its answer sent (milenotes_sync_wake_seconds), ms. */
  wake: { value: number; count: number };
  rssMB: number;
  heapMB: number;
  /** Of the server's CPU, the share its garbage collector's pauses took. */
  gcShare: number;
  sockets: number;
  held: number;
  pgConnections: Record<string, number>;
  load1: number;
}

export function between(a: Reading, b: Reading): WindowFigures {
  const seconds = (b.at - a.at) / 1000;
  const rate = (x: number) => x / seconds;
  const server = rate(b.serverCpu - a.serverCpu);
  const postgres = rate(treeCpuBetween(a.pgCpu, b.pgCpu));
  const fleet = rate(b.fleetCpu - a.fleetCpu);
  const converting = rate(b.convertingCpu - a.convertingCpu);
  const bench = rate(b.benchCpu - a.benchCpu);
  const machine = (b.machine.busy - a.machine.busy) / ((b.machine.total - a.machine.total) / loadNow().cores) || 0;
  const quantile = (name: string, keep?: Parameters<typeof bucketsIn>[2]) => {
    const q = quantileBetween(bucketsIn(a.metrics, name, keep), bucketsIn(b.metrics, name, keep), 0.95);
    return { value: q.value * 1000, count: q.count };
  };
  return {
    seconds,
    serverCpuSeconds: b.serverCpu - a.serverCpu,
    serverSystemShare: (b.serverSplit.system - a.serverSplit.system) / Math.max(1e-9, b.serverCpu - a.serverCpu),
    serverWaitShare: rate(b.serverWait - a.serverWait),
    cores: { server, postgres, fleet, converting, bench, machine, others: Math.max(0, machine - server - postgres - fleet - converting - bench) },
    pg: pgBetween(a.pg, b.pg),
    loop: serverLoopLag(b.metrics),
    route: (method, route, status) =>
      quantile('milenotes_http_request_duration_seconds', (l) => l.method === method && l.route === route && l.status_code === status),
    wake: quantile('milenotes_sync_wake_seconds'),
    rssMB: b.serverRssMB,
    heapMB: gaugeIn(b.metrics, 'nodejs_heap_size_used_bytes') / 1024 / 1024,
    gcShare: (gcSecondsIn(b.metrics) - gcSecondsIn(a.metrics)) / Math.max(1e-9, b.serverCpu - a.serverCpu),
    sockets: b.serverSockets,
    held: gaugeIn(b.metrics, 'milenotes_sync_held_requests'),
    pgConnections: b.pg.connections,
    load1: b.load1,
  };
}
