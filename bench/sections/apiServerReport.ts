/**
 * The API-server bench's report: its rows (figures at the largest step against the smallest, the
 * unit costs, per-step limits), its chart (CPU of each party on the machine, step by step) and its
 * notes (how each figure was taken, what the machine was doing meanwhile).
 */
import type { Chart } from '../svg.js';
import type { Row } from '../report.js';
import type { Tally } from '../load/crowd.js';
import type { ScenarioPlan, ScenarioResult, StepResult } from '../load/apiScenario.js';
import type { ProfileSummary } from '../load/profileSummary.js';
import type { WindowProfile } from '../load/windowProfiler.js';
import { LOOP_P99_LIMIT_MS, SYNC_P95_LIMIT_MS, type ApiServerFigures, type StepFigures } from './apiServerFigures.js';

/** The goal for one core of the API role. */
const APPS_PER_CORE_AIM = 5_000;

const n0 = (v: number) => (Number.isFinite(v) ? v.toFixed(0) : '—');
const n1 = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : '—');
const n2 = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : '—');

const loadCores = (s: StepResult) => s.window.cores.fleet + s.window.cores.converting + s.window.cores.bench;

function costRows(f: ApiServerFigures): Row[] {
  const row = (metric: string, ours: number, unit: string, digits: number): Row => ({ metric, ours, baseline: null, unit, digits });
  return [
    row('one positions batch (6 fixes): server CPU', f.batch.cpuMs, 'ms', 2),
    row('one positions batch: PostgreSQL transactions committed', f.batch.commits, '', 1),
    row('one positions batch: WAL written', f.batch.walBytes, 'B', 0),
    row('one held sync answer (ended by its wait) and the ask after it: server CPU', f.answer.cpuMs, 'ms', 2),
    row('one held sync answer: PostgreSQL transactions committed', f.answer.commits, '', 1),
  ];
}

function stepRows(f: ApiServerFigures): Row[] {
  const rows: Row[] = [];
  for (const s of f.steps.slice(1)) {
    rows.push(
      { metric: `${s.apps} apps: server CPU`, ours: s.serverCores, baseline: f.first.serverCores, unit: 'cores', digits: 2 },
      {
        metric: `${s.apps} apps: server event-loop p99`,
        ours: s.loopP99,
        baseline: f.first.loopP99,
        unit: 'ms',
        digits: 0,
        aim: { text: `< ${LOOP_P99_LIMIT_MS} ms`, met: s.loopP99 < LOOP_P99_LIMIT_MS },
      },
      {
        metric: `${s.apps} apps: sync answer p95, note converted → app told`,
        ours: s.syncP95,
        baseline: f.first.syncP95,
        unit: 'ms',
        digits: 0,
        aim: { text: `< ${SYNC_P95_LIMIT_MS / 1000} s`, met: s.syncP95 < SYNC_P95_LIMIT_MS },
      },
    );
  }
  return rows;
}

export function apiServerRows(f: ApiServerFigures, friendsErrors: number): Row[] {
  const { first, last } = f;
  const errors = f.errors + friendsErrors;
  const lastCores = last.result.window.cores;
  return [
    {
      metric: 'server CPU per app-minute, everything included, largest step',
      ours: last.cpuMsPerAppMinute,
      baseline: first.cpuMsPerAppMinute,
      unit: 'ms',
      digits: 2,
    },
    { metric: 'server CPU per app-minute, marginal (slope over the steps)', ours: f.marginalMsPerAppMinute, baseline: null, unit: 'ms', digits: 2 },
    {
      metric: "apps per core, by the server's own CPU at the largest step within both limits",
      ours: f.appsPerCore,
      baseline: null,
      unit: '',
      digits: 0,
      aim: { text: `≥ ${APPS_PER_CORE_AIM}, within the limits`, met: f.passing !== undefined && f.appsPerCore >= APPS_PER_CORE_AIM },
    },
    { metric: 'apps held within both limits (largest such step)', ours: f.passing?.apps ?? 0, baseline: null, unit: '', digits: 0 },
    {
      metric: 'server event-loop p99, largest step',
      ours: last.loopP99,
      baseline: first.loopP99,
      unit: 'ms',
      digits: 0,
      aim: { text: `< ${LOOP_P99_LIMIT_MS} ms`, met: last.loopP99 < LOOP_P99_LIMIT_MS },
    },
    {
      metric: 'sync answer p95, note converted → app told, largest step',
      ours: last.syncP95,
      baseline: first.syncP95,
      unit: 'ms',
      digits: 0,
      aim: { text: `< ${SYNC_P95_LIMIT_MS / 1000} s`, met: last.syncP95 < SYNC_P95_LIMIT_MS },
    },
    { metric: 'positions batch answered, p95, largest step', ours: last.positionsP95, baseline: first.positionsP95, unit: 'ms', digits: 0 },
    {
      metric: 'held answers later than their wait + 1 s',
      ours: f.lateHolds,
      baseline: null,
      unit: '',
      digits: 0,
      aim: { text: 'none', met: f.lateHolds === 0 },
    },
    {
      metric: "window's notes no held answer carried",
      ours: f.undelivered,
      baseline: null,
      unit: '',
      digits: 0,
      aim: { text: 'none', met: f.undelivered === 0 },
    },
    { metric: 'errors (failed or refused requests)', ours: errors, baseline: null, unit: '', digits: 0, aim: { text: 'none', met: errors === 0 } },
    ...costRows(f),
    {
      metric: 'PostgreSQL transactions committed a second, largest step',
      ours: last.commitsPerSecond,
      baseline: first.commitsPerSecond,
      unit: '/s',
      digits: 0,
    },
    { metric: 'WAL written a second, largest step', ours: last.walBytesPerSecond / 1024, baseline: first.walBytesPerSecond / 1024, unit: 'KB/s', digits: 0 },
    { metric: 'server memory per held app (RSS slope over the steps)', ours: f.rssKBPerApp, baseline: null, unit: 'KB', digits: 1 },
    { metric: 'server memory (RSS), largest step', ours: last.result.window.rssMB, baseline: first.result.window.rssMB, unit: 'MB', digits: 0 },
    { metric: 'server sockets open, largest step', ours: last.result.window.sockets, baseline: first.result.window.sockets, unit: '', digits: 0 },
    { metric: "PostgreSQL connections, the server's", ours: last.result.window.pgConnections['api-server'] ?? 0, baseline: null, unit: '', digits: 0 },
    {
      metric: 'CPU of the load (apps, friends, converting stand-in) against the server, largest step',
      ours: loadCores(last.result),
      baseline: lastCores.server,
      unit: 'cores',
      digits: 2,
    },
    { metric: 'CPU of PostgreSQL, largest step', ours: lastCores.postgres, baseline: first.result.window.cores.postgres, unit: 'cores', digits: 2 },
    {
      metric: "server's event loop ready but waiting for a core, largest step",
      ours: last.result.window.serverWaitShare * 1000,
      baseline: first.result.window.serverWaitShare * 1000,
      unit: 'ms/s',
      digits: 0,
    },
    {
      metric: "CPU of other people's work on the machine, largest step",
      ours: lastCores.others,
      baseline: first.result.window.cores.others,
      unit: 'cores',
      digits: 2,
    },
    ...stepRows(f),
  ];
}

export function apiServerChart(f: ApiServerFigures): Chart {
  const series = (label: string, of: (s: StepFigures) => number) => ({ label, values: f.steps.map(of) });
  return {
    kind: 'lines',
    title: 'CPU on the machine by party, against apps held on the API server',
    unit: 'cores',
    xLabels: f.steps.map((s) => `${s.apps} apps`),
    series: [
      series('API server', (s) => s.serverCores),
      series('PostgreSQL', (s) => s.result.window.cores.postgres),
      series('the load', (s) => loadCores(s.result)),
      series("others' work", (s) => s.result.window.cores.others),
    ],
    line: { value: 1, label: 'one core' },
  };
}

function profileNote(label: string, { by, summary: p }: WindowProfile, appMinutes: number): string {
  const rows = (list: ProfileSummary['byPlace']) =>
    list.slice(0, 10).map((r) => `${r.name} ${(r.share * 100).toFixed(1)} % (${(r.ms / appMinutes).toFixed(3)} ms/app-min)`);
  const sampler = by === 'v8' ? "V8's sampler (wall time on the thread)" : 'perf (time on a core)';
  return (
    `Profile of the server by ${sampler}, ${label} (${p.busyMs.toFixed(0)} ms sampled): self time by place: ${rows(p.byPlace).join('; ')}. ` +
    `${p.inclusiveTitle}: ${rows(p.byInclusive).join('; ')}.`
  );
}

export function apiServerNotes(
  f: ApiServerFigures,
  r: ScenarioResult,
  o: { plan: ScenarioPlan; holdSeconds: number; positionsEveryMs: number; raised: Record<string, string>; nodeOptions?: string; friendsErrors: Tally },
): string[] {
  const { last } = f;
  const perStep = f.steps.map((s) => {
    const w = s.result.window;
    const c = w.cores;
    return (
      `${s.apps} apps${s.reachedRates ? '' : ' (SHORT OF ITS RATES: the server answered too little for its CPU to count)'}: ${n2(s.batchesPerAppMinute)} batches and ${n2(s.answersPerAppMinute)} sync answers answered an app-minute; server ${n2(c.server)} cores (${n2(s.cpuMsPerAppMinute)} ms/app-min, ${n0(w.serverSystemShare * 100)} % of it in the kernel; its event loop waited for a core ${n2(w.serverWaitShare)} s a second), PostgreSQL ${n2(c.postgres)}, apps ${n2(c.fleet)}, converting stand-in ${n2(c.converting)}, bench process ${n2(c.bench)}, others ${n2(c.others)} of ${n2(c.machine)} busy (load average ${n1(w.load1)}); ` +
      `loop p50/p99/max ${n0(w.loop.p50)}/${n0(w.loop.p99)}/${n0(w.loop.max)} ms; sync p95 ${n0(s.syncP95)} ms over ${s.result.wakes.length} notes (server's own wake→answer p95 ${n0(w.wake.value)} ms); ` +
      `positions p95 ${n0(s.positionsP95)} ms (server ${n0(w.route('POST', '/api/entries/:id/positions', '200').value)} ms), upload p95 ${n0(s.uploadP95)} ms, sign-in p95 ${n0(s.signInP95)} ms; ` +
      `${n0(s.commitsPerSecond)} commits/s, ${n0(s.walBytesPerSecond / 1024)} KB WAL/s (${n0(w.pg.walFpi)} full-page images); RSS ${n0(w.rssMB)} MB, heap ${n0(w.heapMB)} MB, garbage collection ${n1(w.gcShare * 100)} % of the server's CPU, ${w.sockets} sockets, ${w.held} held; ` +
      `PostgreSQL connections ${JSON.stringify(w.pgConnections)}; the apps' processes' loop p99 ${n0(s.result.fleet.loop.p99)} ms, the friends' thread's ${n0(s.result.friendsLoop.p99)} ms.`
    );
  });
  const top = (rows: Array<[number, number, string]>) => rows.slice(0, 8).map(([calls, ms, q]) => `${n2(calls)} × ${n2(ms)} ms: ${q}`);
  const lastStatements = last.result.window.pg.statements
    .slice(0, 10)
    .map((s) => `${n1(s.calls / last.result.window.seconds)}/s, ${n2(s.ms / s.calls)} ms each: ${s.query.slice(0, 120)}`);
  return [
    `Load (each app its own account and entry, sharing progress): a sync held with after=<cursor>&wait=${o.holdSeconds}&until=playable and asked again at once; a batch of 6 fixes every ${o.positionsEveryMs / 1000} s (the first at a random point of it; one placed at sign-up, as the app does once the race is live); the session refreshed every 14 min (the first at a random point); each note that arrives converted downloaded and reported played. ` +
      `Friends' notes (10-60 s of speech) to the apps' links at the race's peak a runner (13/s over 50,000 apps), runners signing in and entering at ${n1(o.plan.entrantsPerSecond)}/s whatever the step. Each step: new apps signed in, ${o.plan.settleMs / 1000} s settling, ${o.plan.windowMs / 1000} s measured, up to ${o.plan.drainMs / 1000} s for the window's notes to reach their apps.`,
    `Who does what: the API server (CONVERT_WORKER=off, one process) takes every request: sign-ins, entries, syncs, positions, the friends' uploads (stored and queued for conversion), audio downloads, plays; it converts nothing. The converting servers are one stand-in process running the server's own conversion worker (lease, store, mark converted, NOTIFY) with ffmpeg's run replaced by a copy of one real conversion: its commit wakes the API server's held requests through PostgreSQL's LISTEN/NOTIFY as a converting server elsewhere would.`,
    `The load runs in other processes: the apps in child processes (node:http, kept-alive connections, br/gzip asked for), the friends and entrants in a thread of the bench process, the converting stand-in in its own; their CPU is read from /proc and shown per step, with PostgreSQL's (the postmaster and its backends) and the machine's busy time, so "others" is what other people's work took meanwhile.`,
    `Sync answer p95: from the converting stand-in's commit returning to the app holding the runner's entry having the answer that carries the note (NOTIFY, the server's re-read, its answer, the app's parse): what a runner's phone waits past the conversion. Event-loop p99: prom-client's nodejs_eventloop_lag_p99_seconds over the window (10 ms resolution, so it reads 10 ms at rest).`,
    `Apps per core: the largest step within both limits (loop p99 < ${LOOP_P99_LIMIT_MS} ms, sync p95 < ${SYNC_P95_LIMIT_MS / 1000} s, every note delivered, its batches answered at their rate and no request failed) is ${f.passing ? `${f.passing.apps} apps at ${n2(f.passing.serverCores)} of the server's cores` : `none (the apps-per-core row then divides the smallest step's apps by its cores)`}; ${f.crossed ? `the first past a limit ${f.crossed.apps} apps (loop p99 ${n0(f.crossed.loopP99)} ms, sync p95 ${n0(f.crossed.syncP95)} ms)` : 'no step crossed a limit'}. ` +
      `Per core = that step's apps over its server's measured CPU (utime+stime from /proc): an extrapolation to a whole core that assumes the cost an app stays as measured and the loop keeps its limit near a full core, which only a larger step can confirm. ` +
      `From the fit over the steps (server cores = ${n2(f.fit.intercept)} + ${(f.fit.slope * 1000).toFixed(4)} × apps/1000): ${n2(f.marginalMsPerAppMinute)} ms an app-minute at the margin, ${n0(f.appsPerCoreMarginal)} apps per core beyond the fixed part (idle server ${n2(f.idleCores)} cores, entrants, polls).`,
    `Unit costs, over the idle server (${n2(f.idleCores)} cores idle, ${r.components[0]?.apps} apps signed in), each from a ${o.plan.componentMs / 1000} s window of that work alone: a positions batch (${f.batch.units} batches) and a held answer with the ask that follows (${f.answer.units} answers, after the first, simultaneous hold had ended). ` +
      `Statements a batch (calls × ms each): ${top(f.batch.statements).join(' | ')}. Statements a held answer: ${top(f.answer.statements).join(' | ')}.`,
    `PostgreSQL (the throwaway cluster: fsync off, pg_stat_statements loaded; every statement outside a transaction is a transaction of its own, so reads count in the commits). Largest step, most time first: ${lastStatements.join(' | ')}.`,
    ...perStep,
    `Memory per held app: the slope of the server's RSS (sampled at each window's end) against apps held, ${n1(f.rssKBPerApp)} KB, V8 heap ${n1(f.heapKBPerApp)} KB; RSS moves with the garbage collector, so a slope over few steps is rough.`,
    `Settings raised for the bench (all the load comes from 127.0.0.1): ${Object.entries(o.raised)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}; the rest as shipped${o.nodeOptions ? `; the server's Node ran with ${o.nodeOptions}` : ''}.`,
    `Errors: apps ${r.setupFailed} failed to set up${r.setupErrors.length ? ` (${r.setupErrors.join(' | ')})` : ''}; in the windows ${JSON.stringify(Object.fromEntries(r.steps.map((s) => [s.apps, s.fleet.errors])))}${
      r.steps.some((s) => s.fleet.errorSamples.length)
        ? `, first: ${r.steps
            .flatMap((s) => s.fleet.errorSamples)
            .slice(0, 4)
            .join(' | ')}`
        : ''
    }; friends and entrants ${o.friendsErrors.total()}${o.friendsErrors.samples.length ? ` (${o.friendsErrors.samples.slice(0, 4).join(' | ')})` : ''}.`,
    ...[...r.components, ...r.steps].flatMap((m) => {
      const label = 'kind' in m ? `${m.kind} alone, ${m.apps} apps` : `${m.apps} apps`;
      return (m.profiles ?? []).map((p) => profileNote(label, p, m.apps * (m.window.seconds / 60)));
    }),
  ];
}
