/**
 * The API-server bench's scenario: what load runs when. First the apps of the smallest step alone
 * in three windows that price one kind of work each (nothing, positions only, held syncs only);
 * then race morning in steps of apps held at once, each with every rhythm on (syncs held, position
 * batches, sessions refreshed, friends' notes to the apps' links at the race's rate a runner,
 * runners signing in and entering), settled, then measured over a window. Measuring is
 * ./apiMeasure.ts; what the figures mean is bench/sections/apiServer.ts.
 */
import type { Activity, AppPlan } from './apiApp.js';
import { between, takeReading, type WindowFigures } from './apiMeasure.js';
import type { ApiRig } from './apiRig.js';
import type { FleetStats } from './appFleet.js';
import type { LoopDelay } from './loopDelay.js';
import type { WindowProfile } from './windowProfiler.js';

export interface ScenarioPlan {
  steps: number[];
  /** The idle window, and each pricing window of one kind of work (positions alone, holds alone). */
  idleMs: number;
  componentMs: number;
  /** Before the holds-alone window: the first held requests, all asked at once, end first. */
  holdSettleMs: number;
  /** Before each step's window: the new apps signed in, their rhythms spread. */
  settleMs: number;
  windowMs: number;
  /** After a window, how long its notes may take to reach the apps' held answers. */
  drainMs: number;
  notesPerSecond(apps: number): number;
  entrantsPerSecond: number;
  markers: string[];
}

export interface Measurement {
  window: WindowFigures;
  fleet: FleetStats;
  /** The server's profiles of the window, when asked for (one a sampler). */
  profiles?: WindowProfile[];
}

export interface ComponentResult extends Measurement {
  kind: 'idle' | 'positions' | 'holds';
  apps: number;
}

export interface StepResult extends Measurement {
  apps: number;
  notesPerSecond: number;
  /** The friends' uploads answered in the window (ms), the entrants' sign-ins (ms). */
  uploads: number[];
  signIns: number[];
  /** Of the window's notes: from the converting server's commit to the app's held answer (ms). */
  wakes: number[];
  /** Of the window's notes: none of the app's answers carried it by the end of the drain. */
  undelivered: number;
  entrants: number;
  friendsLoop: LoopDelay;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const OFF: Activity = { holds: false, positions: false, refresh: false };
const FULL: Activity = { holds: true, positions: true, refresh: true };

/** Times one window: readings at its edges, the fleet's timings of it, and (when asked) a profile of the server in it. */
async function measure(rig: ApiRig, ms: number, label: string): Promise<Measurement> {
  await rig.fleet.collect();
  const a = await takeReading(rig.measured);
  await rig.profiler?.start(label);
  await sleep(ms);
  const profiles = await rig.profiler?.stop();
  const b = await takeReading(rig.measured);
  const fleet = await rig.fleet.collect();
  return { window: between(a, b), fleet, ...(profiles && { profiles }) };
}

/** Apps `from` to `to` (exclusive): each its own Apple account, a pace of 5:00-7:00 a km. */
async function plansFor(rig: ApiRig, from: number, to: number): Promise<AppPlan[]> {
  const plans: AppPlan[] = [];
  for (let i = from; i < to; i++) {
    const identityToken = await rig.apple.token({ sub: `${rig.world.raceId}-app-${i}` });
    plans.push({ identityToken, name: `Runner ${i + 1}`, seed: i + 1, secondsPerKm: 300 + (i % 120) });
  }
  return plans;
}

/** The windows that price one kind of work, with the first step's apps. */
async function components(rig: ApiRig, plan: ScenarioPlan, apps: number, log: (m: string) => void): Promise<ComponentResult[]> {
  const results: ComponentResult[] = [];
  const run = async (kind: ComponentResult['kind'], activity: Activity, settleMs: number) => {
    await rig.fleet.setActivity(activity);
    if (settleMs) await sleep(settleMs);
    log(`apiserver: ${apps} apps, ${kind} alone`);
    results.push({ kind, apps, ...(await measure(rig, kind === 'idle' ? plan.idleMs : plan.componentMs, `${kind}-${apps}`)) });
  };
  await run('idle', OFF, 0);
  await run('positions', { ...OFF, positions: true }, 0);
  await run('holds', { ...OFF, holds: true }, plan.holdSettleMs);
  return results;
}

/** Waits for the window's notes to reach their apps' held answers (or the drain's end), gathering when each did. */
async function drained(rig: ApiRig, ids: string[], seen: Map<string, number>, drainMs: number): Promise<void> {
  const until = Date.now() + drainMs;
  while (ids.some((id) => !seen.has(id)) && Date.now() < until) {
    await sleep(250);
    for (const [id, at] of (await rig.fleet.collect()).seen) if (!seen.has(id)) seen.set(id, at);
  }
}

async function step(rig: ApiRig, plan: ScenarioPlan, apps: number, links: string[], log: (m: string) => void): Promise<StepResult> {
  const notesPerSecond = plan.notesPerSecond(apps);
  const loadSeconds = (plan.settleMs + plan.windowMs + plan.drainMs) / 1000;
  const identityTokens: string[] = [];
  for (let i = 0; i < Math.ceil(loadSeconds * plan.entrantsPerSecond) + 10; i++)
    identityTokens.push(await rig.apple.token({ sub: `${rig.world.raceId}-entrant-${apps}-${i}` }));
  rig.friends.startLoad({
    raceId: rig.world.raceId,
    links,
    identityTokens,
    seed: apps,
    lengths: rig.lengths,
    markers: plan.markers,
    notesPerSecond,
    entrantsPerSecond: plan.entrantsPerSecond,
  });
  await sleep(plan.settleMs);
  const [uploadsFrom, signInsFrom] = [rig.uploads.length, rig.signIns.length];
  log(`apiserver: ${apps} apps, race morning for ${plan.windowMs / 1000} s (notes ${notesPerSecond.toFixed(2)}/s)`);
  const m = await measure(rig, plan.windowMs, `step-${apps}`);
  const windowUploads = rig.uploads.slice(uploadsFrom);
  const signIns = rig.signIns.slice(signInsFrom);
  const seen = new Map(m.fleet.seen);
  await drained(
    rig,
    windowUploads.map((u) => u.id),
    seen,
    plan.drainMs,
  );
  const counts = await rig.friends.stop();
  const wakes = windowUploads.flatMap((u) => {
    const [at, converted] = [seen.get(u.id), rig.converted.get(u.id)];
    return at === undefined || converted === undefined ? [] : [Math.max(0, at - converted)];
  });
  return {
    apps,
    notesPerSecond,
    ...m,
    uploads: windowUploads.map((u) => u.ms),
    signIns,
    wakes,
    undelivered: windowUploads.filter((u) => !seen.has(u.id)).length,
    entrants: counts.entrants,
    friendsLoop: counts.loop,
  };
}

export interface ScenarioResult {
  components: ComponentResult[];
  steps: StepResult[];
  /** Apps whose sign-in, entry or first list failed (they take no further part), and the first failures. */
  setupFailed: number;
  setupErrors: string[];
}

export async function runApiScenario(rig: ApiRig, plan: ScenarioPlan, log: (m: string) => void): Promise<ScenarioResult> {
  const links: string[] = [];
  let asked = 0;
  let setupFailed = 0;
  const setupErrors: string[] = [];
  const grow = async (to: number) => {
    const started = Date.now();
    const { links: added, failed } = await rig.fleet.add(await plansFor(rig, asked, to));
    asked = to;
    links.push(...added);
    setupFailed += failed;
    if (failed) setupErrors.push(...(await rig.fleet.collect()).errorSamples);
    log(`apiserver: ${links.length} apps signed in and entered (${failed} failed) in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  };
  await grow(plan.steps[0]!);
  const priced = await components(rig, plan, links.length, log);
  await rig.fleet.setActivity(FULL);
  const steps: StepResult[] = [];
  for (const apps of plan.steps) {
    if (apps > asked) await grow(apps);
    steps.push(await step(rig, plan, links.length, [...links], log));
  }
  await rig.fleet.setActivity(OFF);
  return { components: priced, steps, setupFailed, setupErrors: setupErrors.slice(0, 4) };
}
