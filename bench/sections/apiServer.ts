/**
 * One API server alone at race morning's rates (`apiserver`): PostgreSQL, ONE server process with
 * CONVERT_WORKER=off, and thousands of runners' apps held on it in steps, the load made by other
 * processes (bench/load/apiScenario.ts runs it, bench/load/apiMeasure.ts measures it). Reported:
 * the server's own CPU per app-minute and apps per core within its limits (event-loop p99 under
 * 50 ms, sync answers p95 under 1 s), what a positions batch and a held answer cost, PostgreSQL's
 * transactions and WAL, connections, memory per held app, and the CPU of everything else on the
 * machine beside it.
 *   BENCH_APISERVER_STEPS=1000,2000,3000,5000   apps held at once, step by step
 *   BENCH_APISERVER_WINDOW_SECONDS=90           each step's measured window
 *   BENCH_APISERVER_PROFILE=<dir>                a CPU profile of the server per window, kept there (bench/profile.ts reads it)
 *   BENCH_APISERVER_PROFILER=v8|perf|both        its sampler: V8's through the inspector (which JavaScript, exactly; wall
 *                                                time on the thread), Linux perf (time on a core, the kernel's and the
 *                                                collector's included; JavaScript names approximate), or both (the
 *                                                default where perf is installed)
 *   BENCH_APISERVER_NODE_OPTIONS=…               Node options for the server alone (a setting to try: --max-semi-space-size=32)
 *   BENCH_BASE=<commit>                          first the same scenario on that commit's server (./apiServerBase.ts), then
 *                                                this checkout's: before/after rows head the table (none in the smoke run)
 *   BENCH_APISERVER_BASE_NODE_OPTIONS=…          the base side's Node options (default: the same; empty: none), so that
 *                                                BENCH_BASE=HEAD measures a Node setting against none in one run
 * A run that profiles is not the run to take the figures from: the sampling costs the server a few per cent.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { startApiRig } from '../load/apiRig.js';
import { runApiScenario, type ScenarioPlan, type ScenarioResult } from '../load/apiScenario.js';
import type { Tally } from '../load/crowd.js';
import { perfAvailable } from '../load/perfProfile.js';
import type { ProfilerKind } from '../load/windowProfiler.js';
import type { Section } from '../report.js';
import { abTable, apiServerAbRows } from './apiServerAB.js';
import { baseServer, type ServerLauncher } from './apiServerBase.js';
import { apiServerFigures, type ApiServerFigures } from './apiServerFigures.js';
import { apiServerChart, apiServerNotes, apiServerRows } from './apiServerReport.js';
import type { BenchContext } from './context.js';

/** The race's peak of notes sent (docs/capacity.md: 13 a second) over its 50,000 runners' apps. */
export const NOTES_PER_APP_SECOND = 13 / 50_000;
/** Runners signing in and entering on one server: 2,000 in 10 minutes, as the racemorning section. */
const ENTRANTS_PER_SECOND = 2000 / 600;
const HOLD_SECONDS = 25;
const POSITIONS_EVERY_MS = 30_000;
// Chicago's course is marked in miles.
const MARKERS = ['mi-3', 'mi-5', 'mi-6', 'mi-8', 'mi-10', 'mi-12', 'mi-13', 'mi-16', 'mi-18', 'mi-20', 'mi-24', 'finish'];

function stepsAsked(smoke: boolean): number[] {
  if (smoke) return [10, 20];
  const raw = process.env.BENCH_APISERVER_STEPS ?? '1000,2000,3000,5000';
  const steps = raw.split(',').map((s) => Number(s.trim()));
  if (steps.some((n) => !Number.isInteger(n) || n < 1) || steps.some((n, i) => i > 0 && n <= steps[i - 1]!)) {
    throw new Error(`BENCH_APISERVER_STEPS must be whole numbers going up, got '${raw}'`);
  }
  return steps;
}

/**
 * The smoke run only proves every step works: its rhythms are 12-15 times as fast (a hold of 2 s,
 * a batch every 2 s) so that its few seconds see each kind of request, and it sends a note a second.
 */
function planFor(smoke: boolean): ScenarioPlan & { holdSeconds: number; positionsEveryMs: number } {
  const windowSeconds = Number(process.env.BENCH_APISERVER_WINDOW_SECONDS ?? 90);
  return {
    steps: stepsAsked(smoke),
    holdSeconds: smoke ? 2 : HOLD_SECONDS,
    positionsEveryMs: smoke ? 2_000 : POSITIONS_EVERY_MS,
    idleMs: smoke ? 2_000 : 20_000,
    componentMs: smoke ? 4_000 : 60_000,
    holdSettleMs: smoke ? 3_000 : (HOLD_SECONDS + 5) * 1000,
    settleMs: smoke ? 1_000 : 30_000,
    windowMs: smoke ? 4_000 : windowSeconds * 1000,
    drainMs: smoke ? 20_000 : 30_000,
    notesPerSecond: (apps) => (smoke ? 1 : apps * NOTES_PER_APP_SECOND),
    entrantsPerSecond: smoke ? 1 : ENTRANTS_PER_SECOND,
    markers: MARKERS,
  };
}

type ProfileAsked = { kind: ProfilerKind; dir: string };

async function profileAsked(): Promise<ProfileAsked | undefined> {
  if (!process.env.BENCH_APISERVER_PROFILE) return undefined;
  const dir = path.resolve(process.env.BENCH_APISERVER_PROFILE);
  await mkdir(dir, { recursive: true });
  const kind = process.env.BENCH_APISERVER_PROFILER ?? (perfAvailable() ? 'both' : 'v8');
  if (kind !== 'perf' && kind !== 'v8' && kind !== 'both') throw new Error(`BENCH_APISERVER_PROFILER must be v8, perf or both, got '${kind}'`);
  return { kind, dir };
}

interface SideRun {
  figures: ApiServerFigures;
  result: ScenarioResult;
  raised: Record<string, string>;
  friendsErrors: Tally;
}

/** One side's whole run: its own PostgreSQL, server and load, taken down at the end. */
async function runSide(
  ctx: BenchContext,
  plan: ReturnType<typeof planFor>,
  side: { launch?: ServerLauncher; profile?: ProfileAsked; nodeOptions: string | undefined },
): Promise<SideRun> {
  const largest = plan.steps.at(-1)!;
  const rig = await startApiRig({
    smoke: ctx.smoke,
    log: ctx.log,
    fleetProcesses: ctx.smoke ? 1 : 2,
    // SYNC_MAX_HELD as shipped (5,000) unless a step holds more.
    syncMaxHeld: largest > 5_000 ? largest + 50 : 5_000,
    holdSeconds: plan.holdSeconds,
    positionsEveryMs: plan.positionsEveryMs,
    profile: side.profile,
    serverNodeOptions: side.nodeOptions,
    launchServer: side.launch,
  });
  try {
    const result = await runApiScenario(rig, plan, ctx.log);
    return { figures: apiServerFigures(result, plan.positionsEveryMs), result, raised: rig.raised, friendsErrors: rig.errors };
  } finally {
    await rig.stop();
  }
}

/** The base side's Node options: its own knob when given (empty for none), else the same as this checkout's. */
const baseNodeOptions = () => process.env.BENCH_APISERVER_BASE_NODE_OPTIONS ?? process.env.BENCH_APISERVER_NODE_OPTIONS;

/** The base side, run first (the smoke run has none): BENCH_BASE's server under the same load. */
async function runBase(ctx: BenchContext, plan: ReturnType<typeof planFor>, commit: string): Promise<SideRun> {
  const base = await baseServer(commit, ctx.log);
  try {
    ctx.log(`apiserver: ${commit}'s server first, steps of ${plan.steps.join(', ')} apps`);
    return await runSide(ctx, plan, { launch: base.launch, nodeOptions: baseNodeOptions() });
  } finally {
    await base.remove();
  }
}

export async function apiServerSection(ctx: BenchContext): Promise<Section> {
  const profile = await profileAsked();
  const plan = planFor(ctx.smoke);
  const commit = ctx.smoke ? undefined : process.env.BENCH_BASE;
  const base = commit ? await runBase(ctx, plan, commit) : undefined;
  ctx.log(`apiserver: steps of ${plan.steps.join(', ')} apps on one API server (CONVERT_WORKER=off) on PostgreSQL`);
  const ours = await runSide(ctx, plan, { profile, nodeOptions: process.env.BENCH_APISERVER_NODE_OPTIONS });
  const { figures } = ours;
  const notes = (run: SideRun) =>
    apiServerNotes(run.figures, run.result, {
      plan,
      holdSeconds: plan.holdSeconds,
      positionsEveryMs: plan.positionsEveryMs,
      raised: run.raised,
      nodeOptions: run === base ? baseNodeOptions() : process.env.BENCH_APISERVER_NODE_OPTIONS,
      friendsErrors: run.friendsErrors,
    });
  const ab = base && commit ? apiServerAbRows(figures, base.figures) : [];
  if (base && commit) ctx.log(`apiserver: ${commit} (before) against this checkout (after):\n${abTable(ab)}`);
  return {
    id: 'apiserver',
    title: `One API server (CONVERT_WORKER=off) on PostgreSQL at race morning's rates: ${plan.steps.join(', ')} apps holding syncs, the load from other processes${commit ? `, against ${commit}` : ''}`,
    baseline: commit
      ? `the first rows: the same figure from ${commit}'s server (BENCH_BASE), run first in the same run under the same load; the rest: the same figure at the smallest step (${plan.steps[0]} apps), earlier in the same run`
      : `the same figure at the smallest step (${plan.steps[0]} apps), earlier in the same run`,
    rows: [...ab, ...apiServerRows(figures, ours.friendsErrors.total())],
    chart: apiServerChart(figures),
    notes: [
      ...(base
        ? [
            `Before and after: ${commit}'s server (a git archive of it, serving this checkout's build; the load, the converting stand-in and the admin command this checkout's) ran the whole scenario first, then this checkout's, one after the other on the same machine, so a change of the machine's load between them moves the ratios: compare the "others" CPU of each side's steps.`,
          ]
        : []),
      ...notes(ours),
      ...(base ? notes(base).map((n) => `${commit}: ${n}`) : []),
    ],
  };
}
