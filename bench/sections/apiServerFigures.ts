/**
 * The API-server bench's figures, worked out from what its scenario measured
 * (bench/load/apiScenario.ts): the cost of one positions batch and of one held sync answer over
 * the idle server, CPU per app-minute at each step and its slope over the steps, where the
 * latency limits are crossed, apps per core, and memory per held app.
 */
import type { ComponentResult, ScenarioResult, StepResult } from '../load/apiScenario.js';
import { percentile } from './context.js';

/** The limits an API server must keep at its load: its event loop and its held answers. */
export const LOOP_P99_LIMIT_MS = 50;
export const SYNC_P95_LIMIT_MS = 1000;

/** Least-squares line y = a + b·x (NaN for fewer than two distinct x). */
export function fitLine(points: Array<[number, number]>): { intercept: number; slope: number } {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  const slope = sxx > 0 ? points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0) / sxx : NaN;
  return { slope, intercept: my - slope * mx };
}

/** What one unit of a kind of work costs over the idle server, from its window alone. */
export interface UnitCost {
  units: number;
  cpuMs: number;
  /** PostgreSQL's processes' CPU: parsing, planning and running the unit's statements. */
  pgCpuMs: number;
  /** Statements PostgreSQL ran for one unit, BEGIN and COMMIT included. */
  statementCalls: number;
  commits: number;
  walBytes: number;
  /** Statements per unit, most time first: [calls per unit, ms per unit, query]. */
  statements: Array<[number, number, string]>;
}

const callsIn = (pg: ComponentResult['window']['pg']) => pg.statements.reduce((n, s) => n + s.calls, 0);

function unitCost(work: ComponentResult, idle: ComponentResult, units: number): UnitCost {
  const w = work.window;
  const i = idle.window;
  const overIdle = (total: number, idleTotal: number) => (total - (idleTotal / i.seconds) * w.seconds) / units;
  return {
    units,
    cpuMs: overIdle(w.serverCpuSeconds, i.serverCpuSeconds) * 1000,
    pgCpuMs: overIdle(w.cores.postgres * w.seconds, i.cores.postgres * i.seconds) * 1000,
    statementCalls: overIdle(callsIn(w.pg), callsIn(i.pg)),
    commits: overIdle(w.pg.commits, i.pg.commits),
    walBytes: overIdle(w.pg.walBytes, i.pg.walBytes),
    statements: w.pg.statements.slice(0, 12).map((s) => [s.calls / units, s.ms / units, s.query.slice(0, 140)]),
  };
}

/** How many answers (200) the server sent on a route in the window, by its own count. */
const answered = (m: ComponentResult, method: string, route: string) => m.window.route(method, route, '200').count;

export interface StepFigures {
  apps: number;
  serverCores: number;
  cpuMsPerAppMinute: number;
  loopP99: number;
  syncP95: number;
  positionsP95: number;
  uploadP95: number;
  signInP95: number;
  commitsPerSecond: number;
  walBytesPerSecond: number;
  /** Position batches and sync answers an app-minute the apps got answered: a starved server answers fewer. */
  batchesPerAppMinute: number;
  answersPerAppMinute: number;
  /** The apps' batches were answered at (nearly) their rate, and no request failed. */
  reachedRates: boolean;
  withinLimits: boolean;
  result: StepResult;
}

/** A step whose apps got fewer batches answered than this share of their rhythm did not carry its load. */
const RATE_SHARE = 0.95;

function stepFigures(s: StepResult, positionsEveryMs: number): StepFigures {
  const w = s.window;
  const syncP95 = percentile(s.wakes, 95);
  const loopP99 = w.loop.p99;
  const appMinutes = s.apps * (w.seconds / 60);
  const batchesPerAppMinute = s.fleet.positions.length / appMinutes;
  const reachedRates = batchesPerAppMinute >= (RATE_SHARE * 60_000) / positionsEveryMs && Object.keys(s.fleet.errors).length === 0;
  return {
    apps: s.apps,
    serverCores: w.cores.server,
    cpuMsPerAppMinute: (w.serverCpuSeconds * 1000) / (s.apps * (w.seconds / 60)),
    loopP99,
    syncP95,
    positionsP95: percentile(s.fleet.positions, 95),
    uploadP95: percentile(s.uploads, 95),
    signInP95: percentile(s.signIns, 95),
    commitsPerSecond: w.pg.commits / w.seconds,
    walBytesPerSecond: w.pg.walBytes / w.seconds,
    batchesPerAppMinute,
    answersPerAppMinute: s.fleet.syncAnswers / appMinutes,
    reachedRates,
    // A step with no note delivered has no sync figure: it cannot be said to be within the limit.
    withinLimits: reachedRates && loopP99 < LOOP_P99_LIMIT_MS && syncP95 < SYNC_P95_LIMIT_MS && s.undelivered === 0,
    result: s,
  };
}

export interface ApiServerFigures {
  batch: UnitCost;
  answer: UnitCost;
  idleCores: number;
  steps: StepFigures[];
  first: StepFigures;
  last: StepFigures;
  /** Server cores against apps over the steps: the fixed part and each app's. */
  fit: { intercept: number; slope: number };
  marginalMsPerAppMinute: number;
  /** The largest step within both limits, and the first past one (undefined: none). */
  passing: StepFigures | undefined;
  crossed: StepFigures | undefined;
  /**
   * Apps one core holds: the apps of the largest step within the limits over the cores its server
   * used (of the smallest step when none was within them, which `passing` then says).
   */
  appsPerCore: number;
  /** Apps per core from the fit: what a core holds beyond the fixed work, each app at the marginal cost. */
  appsPerCoreMarginal: number;
  /** Resident memory and V8 heap against apps held over the steps, KB an app. */
  rssKBPerApp: number;
  heapKBPerApp: number;
  errors: number;
  lateHolds: number;
  undelivered: number;
}

/** `positionsEveryMs`: the apps' rhythm, against which each step's answered batches are judged. */
export function apiServerFigures(r: ScenarioResult, positionsEveryMs: number): ApiServerFigures {
  const of = (kind: ComponentResult['kind']) => r.components.find((c) => c.kind === kind)!;
  const idle = of('idle');
  const steps = r.steps.map((s) => stepFigures(s, positionsEveryMs));
  const fit = fitLine(steps.map((s) => [s.apps, s.serverCores]));
  const passing = steps.filter((s) => s.withinLimits).at(-1);
  const rss = fitLine(steps.map((s) => [s.apps, s.result.window.rssMB]));
  const heap = fitLine(steps.map((s) => [s.apps, s.result.window.heapMB]));
  const errorCount = (e: Record<string, number>) => Object.values(e).reduce((a, b) => a + b, 0);
  return {
    // Counted by the server (its answers in the window), not by the apps: a request the server
    // worked on after its app gave up cost as much, and the apps would not count it.
    batch: unitCost(of('positions'), idle, answered(of('positions'), 'POST', '/api/entries/:id/positions')),
    answer: unitCost(of('holds'), idle, answered(of('holds'), 'GET', '/api/entries/:id/notes')),
    idleCores: idle.window.cores.server,
    steps,
    first: steps[0]!,
    last: steps.at(-1)!,
    fit,
    marginalMsPerAppMinute: fit.slope * 60 * 1000,
    passing,
    crossed: steps.find((s) => !s.withinLimits),
    appsPerCore: (passing ?? steps[0]!).apps / (passing ?? steps[0]!).serverCores,
    appsPerCoreMarginal: (1 - fit.intercept) / fit.slope,
    rssKBPerApp: rss.slope * 1024,
    heapKBPerApp: heap.slope * 1024,
    errors: r.setupFailed + [...r.components, ...r.steps].reduce((n, m) => n + errorCount(m.fleet.errors), 0),
    lateHolds: [...r.components, ...r.steps].reduce((n, m) => n + m.fleet.lateHolds, 0),
    undelivered: r.steps.reduce((n, s) => n + s.undelivered, 0),
  };
}
