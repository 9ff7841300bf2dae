import { describe, expect, it } from 'vitest';
import type { WindowFigures } from '../../../bench/load/apiMeasure.js';
import { emptyFleetStats, type FleetStats } from '../../../bench/load/appFleet.js';
import type { ComponentResult, ScenarioResult, StepResult } from '../../../bench/load/apiScenario.js';
import { apiServerFigures, fitLine } from '../../../bench/sections/apiServerFigures.js';

/** A window of `seconds` in which the server spent `cpu` CPU seconds and PostgreSQL committed `commits` and wrote `wal` bytes. */
function windowOf(seconds: number, cpu: number, commits: number, wal: number, more: Partial<WindowFigures> = {}): WindowFigures {
  return {
    seconds,
    serverCpuSeconds: cpu,
    serverSystemShare: 0,
    serverWaitShare: 0,
    cores: { server: cpu / seconds, postgres: 0, fleet: 0, converting: 0, bench: 0, machine: 0, others: 0 },
    pg: { seconds, commits, rollbacks: 0, walBytes: wal, walRecords: 0, walFpi: 0, statements: [] },
    loop: { p50: 10, p99: 20, max: 30 },
    route: () => ({ value: NaN, count: 0 }),
    wake: { value: NaN, count: 0 },
    rssMB: 100,
    heapMB: 50,
    gcShare: 0,
    sockets: 0,
    held: 0,
    pgConnections: {},
    load1: 0,
    ...more,
  };
}

const fleetOf = (more: Partial<FleetStats> = {}): FleetStats => ({ ...emptyFleetStats(), ...more });

/** A minute of `apps` each answered its 2 batches, in which the server spent `cpu` CPU seconds. */
function stepOf(apps: number, cpu: number, rssMB: number, wakes: number[]): StepResult {
  return {
    apps,
    notesPerSecond: 1,
    window: windowOf(60, cpu, 600, 6000, { rssMB }),
    fleet: fleetOf({ positions: Array(2 * apps).fill(5) }),
    uploads: [],
    signIns: [],
    wakes,
    undelivered: 0,
    entrants: 0,
    friendsLoop: { p50: 0, p99: 0, max: 0 },
  };
}

describe("the API-server bench's figures", () => {
  it('should fit a straight line through points on one', () => {
    expect(
      fitLine([
        [1000, 0.3],
        [2000, 0.5],
        [4000, 0.9],
      ]),
    ).toEqual({ intercept: expect.closeTo(0.1, 9), slope: expect.closeTo(0.0002, 9) });
  });

  it("should price a batch and an answer over the idle server's rate, and per app-minute at each step", () => {
    const idle: ComponentResult = { kind: 'idle', apps: 1000, window: windowOf(20, 1, 100, 2000), fleet: fleetOf() };
    // 60 s of positions: the idle rate would have spent 3 s and committed 300; 2,000 batches spent 11 s more.
    // The server answered 2,000 of each (its own count); the apps saw fewer, having given up on some.
    const answered = (method: string, path: string) => (m: string, r: string) => ({ value: 5, count: m === method && r.endsWith(path) ? 2000 : 0 });
    const positions: ComponentResult = {
      kind: 'positions',
      apps: 1000,
      window: windowOf(60, 3 + 8, 300 + 2000 * 15, 6000 + 2000 * 400, { route: answered('POST', '/positions') }),
      fleet: fleetOf({ positions: Array(1900).fill(5) }),
    };
    const holds: ComponentResult = {
      kind: 'holds',
      apps: 1000,
      window: windowOf(60, 3 + 4, 300 + 2000 * 3, 6000, { route: answered('GET', '/notes') }),
      fleet: fleetOf({ syncAnswers: 1900 }),
    };
    const result: ScenarioResult = {
      components: [idle, positions, holds],
      // 0.2 cores at 1,000 apps and 0.4 at 3,000: 0.1 cores fixed, 0.1 more each 1,000 apps; RSS 10 MB each 1,000 apps.
      steps: [stepOf(1000, 12, 200, [100, 200, 300]), stepOf(3000, 24, 220, [100, 5000])],
      setupFailed: 0,
      setupErrors: [],
    };
    const f = apiServerFigures(result, 30_000);
    expect(f.batch.cpuMs).toBeCloseTo(4, 6);
    expect(f.batch.commits).toBeCloseTo(15, 6);
    expect(f.batch.walBytes).toBeCloseTo(400, 6);
    expect(f.answer.cpuMs).toBeCloseTo(2, 6);
    expect(f.first.cpuMsPerAppMinute).toBeCloseTo(12, 6);
    expect(f.last.cpuMsPerAppMinute).toBeCloseTo(8, 6);
    expect(f.marginalMsPerAppMinute).toBeCloseTo(6, 6);
    expect(f.appsPerCoreMarginal).toBeCloseTo(9000, 3);
    expect(f.rssKBPerApp).toBeCloseTo(10.24, 6);
    // The second step's sync p95 is past 1 s: the first is the largest within the limits.
    expect(f.passing?.apps).toBe(1000);
    expect(f.crossed?.apps).toBe(3000);
    expect(f.appsPerCore).toBeCloseTo(5000, 6);
  });

  it("should price PostgreSQL's CPU and statements a batch over the idle rate", () => {
    const cores = (postgres: number, server: number) => ({ server, postgres, fleet: 0, converting: 0, bench: 0, machine: 0, others: 0 });
    const statements = (calls: number) => [{ query: 'SELECT 1', calls, ms: 0, walBytes: 0 }];
    const idleWindow = windowOf(20, 1, 100, 2000, { cores: cores(0.1, 0.05) });
    idleWindow.pg.statements = statements(20);
    const idle: ComponentResult = { kind: 'idle', apps: 10, window: idleWindow, fleet: fleetOf() };
    // 60 s: the idle rate would have had PostgreSQL spend 6 s and run 60 statements; 2,000 batches took 6 s and 16,000 more.
    const positionsWindow = windowOf(60, 3, 100, 2000, {
      cores: cores(0.2, 0.05),
      route: (m, r) => ({ value: 5, count: m === 'POST' && r.endsWith('/positions') ? 2000 : 0 }),
    });
    positionsWindow.pg.statements = statements(60 + 2000 * 8);
    const f = apiServerFigures(
      {
        components: [idle, { kind: 'positions', apps: 10, window: positionsWindow, fleet: fleetOf() }, { ...idle, kind: 'holds' }],
        steps: [stepOf(1000, 12, 200, [100])],
        setupFailed: 0,
        setupErrors: [],
      },
      30_000,
    );
    expect(f.batch.pgCpuMs).toBeCloseTo(3, 6);
    expect(f.batch.statementCalls).toBeCloseTo(8, 6);
  });

  it('should not count a step within the limits when its apps got fewer batches answered than their rhythm', () => {
    const idle: ComponentResult = { kind: 'idle', apps: 10, window: windowOf(20, 1, 100, 2000), fleet: fleetOf() };
    const starved = stepOf(1000, 12, 200, [100]);
    starved.fleet.positions = starved.fleet.positions.slice(0, 1500);
    const f = apiServerFigures(
      { components: [idle, { ...idle, kind: 'positions' }, { ...idle, kind: 'holds' }], steps: [starved], setupFailed: 0, setupErrors: [] },
      30_000,
    );
    expect(f.first.batchesPerAppMinute).toBeCloseTo(1.5, 6);
    expect(f.passing).toBeUndefined();
  });
});
