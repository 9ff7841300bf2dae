/**
 * Race day's pushes: a race at its peak with thousands of subscribed phones, against
 * the loopback push service (bench/load/push-service.ts: some answers slow, some subscriptions gone
 * with 410, a 429 storm with Retry-After mid-run), while the converter converts one note after
 * another. Heard pushes come at twice the peak rate notes are played; each spectator's marker alert
 * at the time the server's estimate makes it due as the pack comes (race time compressed; delivery
 * latency is real time). Ours: the push worker's queue (server/push/deliveries.ts). Baseline, in
 * the same run: the naive server that sends inside the played report, once.
 */
import os from 'node:os';
import { alertCases, alertErrorMinutes } from '../load/pushRace.js';
import { runPushes, type PushEvent, type PushRunResult } from '../load/pushRun.js';
import type { Section } from '../report.js';
import { median, percentile, type BenchContext } from './context.js';

/**
 * The peak of heard pushes in a 50,000-runner race (docs/capacity.md): notes are played at most
 * about 16 a second in the mid-race hour, and each played note tells its sender's phone once.
 */
export const PEAK_HEARD_PER_SECOND = 16;
const ALERT_MARKERS = ['mi-13', 'mi-20', 'mi-24'];

function schedule(smoke: boolean) {
  const seconds = smoke ? 4 : 40;
  const heardRate = 2 * PEAK_HEARD_PER_SECOND;
  const perMarker = smoke ? 10 : 400;
  const heardPhones = smoke ? 60 : 3000;
  const alerts = alertCases(ALERT_MARKERS, perMarker);
  const first = Math.min(...alerts.map((a) => a.fireAt));
  const span = Math.max(...alerts.map((a) => a.fireAt)) - first;
  const compression = span / (seconds * 1000);
  const events: PushEvent[] = [];
  for (let i = 0; i < seconds * heardRate; i++) events.push({ at: (i * 1000) / heardRate, kind: 'heard', to: i % heardPhones });
  alerts.forEach((a, i) => {
    events.push({ at: (a.fireAt - first) / compression, kind: 'soon', to: heardPhones + i, alert: i });
  });
  events.sort((a, b) => a.at - b.at);
  return {
    seconds,
    heardRate,
    alerts,
    compression,
    events,
    subscriptions: heardPhones + alerts.length,
    // Six seconds of a 40 s run; two of the smoke run's four, so that its few pushes meet the storm too.
    stormAt: (smoke ? [1000, 3000] : [12_000, 18_000]) as [number, number],
  };
}

/** Queued within this long before the storm, a push may still be waiting when it breaks. */
const STORM_REACH_MS = 2000;

function figures(result: PushRunResult, events: PushEvent[], alerts: ReturnType<typeof alertCases>, stormAt: [number, number]) {
  const heard = [...result.latency].filter(([i]) => events[i]!.kind === 'heard').map(([, ms]) => ms / 1000);
  const calm = [...result.latency]
    .filter(([i]) => events[i]!.kind === 'heard' && (events[i]!.at < stormAt[0] - STORM_REACH_MS || events[i]!.at >= stormAt[1]))
    .map(([, ms]) => ms / 1000);
  const errors = [...result.latency].filter(([i]) => events[i]!.kind === 'soon').map(([i, ms]) => Math.abs(alertErrorMinutes(alerts[events[i]!.alert!]!, ms)));
  const alertCount = events.filter((e) => e.kind === 'soon').length;
  const sent = result.latency.size;
  return {
    sent,
    heardP50: median(heard),
    heardP95: percentile(heard, 95),
    calmP95: percentile(calm, 95),
    errorMedian: median(errors),
    errorP90: percentile(errors, 90),
    // An alert lost counts as missed.
    within3: errors.filter((e) => e <= 3).length / alertCount,
    cpuPerPush: result.cpuMs / Math.max(1, sent),
    perCore: (sent * 1000) / Math.max(1, result.cpuMs),
  };
}

export async function pushSection(ctx: BenchContext): Promise<Section> {
  const plan = schedule(ctx.smoke);
  const drainLimitMs = ctx.smoke ? 120_000 : 240_000;
  ctx.log(
    `push: ${plan.events.length} pushes over ${plan.seconds} s (${plan.heardRate}/s heard, ${plan.alerts.length} alerts, race time x${plan.compression.toFixed(0)}), ${plan.subscriptions} phones`,
  );
  const ours = await runPushes('queued', plan.events, { subscriptions: plan.subscriptions, stormAt: plan.stormAt, drainLimitMs, smoke: ctx.smoke });
  ctx.log(`push: queued: ${ours.latency.size} sent, ${ours.lost} lost, ${ours.twice} twice, drained ${(ours.drainMs / 1000).toFixed(1)} s after the load`);
  const naive = await runPushes('inline', plan.events, { subscriptions: plan.subscriptions, stormAt: plan.stormAt, drainLimitMs, smoke: ctx.smoke });
  const o = figures(ours, plan.events, plan.alerts, plan.stormAt);
  const b = figures(naive, plan.events, plan.alerts, plan.stormAt);
  const maxDepth = Math.max(0, ...ours.depth.map(([, n]) => n));
  const step = Math.max(1, Math.ceil(ours.depth.length / 40));
  const sampled = ours.depth.filter((_, i) => i % step === 0);
  const naiveDepth = (t: number) => naive.depth.reduce<number | null>((found, [s, n]) => (s <= t ? n : found), null);
  return {
    id: 'push',
    title: `Race day's pushes: ${plan.events.length} pushes to ${plan.subscriptions} phones in ${plan.seconds} s (heard at ${plan.heardRate}/s, twice the peak; ${plan.alerts.length} marker alerts at ${ALERT_MARKERS.join(', ')}), 429 storm, converting`,
    baseline: 'the naive server: each push encrypted and sent inside the played report (or the alert pass), once, no queue and no retry',
    rows: [
      { metric: 'pushes accepted by the push service', ours: o.sent, baseline: b.sent, unit: '', digits: 0 },
      {
        metric: 'pushes lost (not accepted, subscription not gone)',
        ours: ours.lost,
        baseline: naive.lost,
        unit: '',
        digits: 0,
        aim: { text: '0, the 429 storm drained', met: ours.lost === 0 },
      },
      { metric: 'pushes accepted twice', ours: ours.twice, baseline: naive.twice, unit: '', digits: 0, aim: { text: '0', met: ours.twice === 0 } },
      { metric: 'heard: played to push service p50', ours: o.heardP50, baseline: b.heardP50, unit: 's', digits: 2 },
      {
        metric: 'heard: played to push service p95, outside the 429 storm',
        ours: o.calmP95,
        baseline: b.calmP95,
        unit: 's',
        digits: 2,
        aim: { text: '< 5 s at twice the peak, converting', met: o.calmP95 < 5 },
      },
      { metric: "heard: played to push service p95, the storm's retries included", ours: o.heardP95, baseline: b.heardP95, unit: 's', digits: 2 },
      { metric: 'alert error against the real pass, median', ours: o.errorMedian, baseline: b.errorMedian, unit: 'min', digits: 2 },
      { metric: 'alert error against the real pass, p90', ours: o.errorP90, baseline: b.errorP90, unit: 'min', digits: 2 },
      {
        metric: 'alerts within 3 min of "10 minutes before"',
        ours: o.within3 * 100,
        baseline: b.within3 * 100,
        unit: '%',
        digits: 0,
        aim: { text: '≥ 90 %', met: o.within3 >= 0.9 },
      },
      { metric: 'CPU per push (encrypt, sign, send, queue)', ours: o.cpuPerPush, baseline: b.cpuPerPush, unit: 'ms', digits: 2 },
      { metric: 'pushes a second per core', ours: o.perCore, baseline: b.perCore, unit: '/s', digits: 0 },
      { metric: 'queue depth at most', ours: maxDepth, baseline: Math.max(0, ...naive.depth.map(([, n]) => n)), unit: '', digits: 0 },
      { metric: 'drained after the load ended', ours: ours.drainMs / 1000, baseline: naive.drainMs / 1000, unit: 's', digits: 1 },
    ],
    chart: {
      kind: 'lines',
      title: 'Pushes waiting (ours: the queue; baseline: reports still sending)',
      unit: 'pushes',
      xLabels: sampled.map(([s]) => `${s.toFixed(0)} s`),
      series: [
        { label: 'ours (queue)', values: sampled.map(([, n]) => n) },
        { label: 'baseline (inline)', values: sampled.map(([s]) => naiveDepth(s)) },
      ],
    },
    notes: [
      `Heard pushes at ${plan.heardRate}/s (twice the peak of ${PEAK_HEARD_PER_SECOND}/s, docs/capacity.md) to ${plan.subscriptions - plan.alerts.length} phones; ${plan.alerts.length} spectators' alerts, each following a runner of the pack whose pace drifts and fades (bench/load/pushRace.ts), due by the server's estimate (server/races/eta.ts) from a position batch a minute; race time runs ${plan.compression.toFixed(0)}x, delivery time is real.`,
      `Push service (own process, not counted): 5 % of answers 200-1500 ms slow, 1 % of subscriptions 410, and from ${plan.stormAt[0] / 1000} s to ${plan.stormAt[1] / 1000} s 80 % of answers 429 with Retry-After 1-3 s. Answers ours: ${JSON.stringify(ours.statuses)}; baseline: ${JSON.stringify(naive.statuses)}.`,
      `CPU: this process (push worker, SQLite, the load), process.cpuUsage over the run; the converter process converted ${ours.conversions} notes meanwhile (${naive.conversions} in the baseline run) on the same ${os.cpus().length} cores (load average ${os.loadavg()[0]!.toFixed(1)} at the end: wall-clock latencies swing with what else runs, CPU figures less). Alert error: |(pass - delivered) - 10 min|; a lost alert counts as missed.`,
      `Queue depth over time (ours): ${ours.depth
        .filter((_, i) => i % Math.max(1, Math.ceil(ours.depth.length / 12)) === 0)
        .map(([s, n]) => `${s.toFixed(0)} s: ${n}`)
        .join(', ')}.`,
    ],
  };
}
