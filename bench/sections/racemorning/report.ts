/** Race morning's section of the report: its rows, chart and notes, from the measured figures. */
import type { LoopDelay } from '../../load/loopDelay.js';
import type { Section } from '../../report.js';
import type { RaceMorningFigures } from './measurement.js';
import { ENTRANTS_PER_SECOND, FRIEND_NOTES_PER_SECOND, HOLD_SECONDS, RAISED, type DrainPhase, type RaceMorning, type WindowPhase } from './scenario.js';

const ms0 = (n: number) => n.toFixed(0);
const loopText = (l: LoopDelay) => `${ms0(l.p50)}/${ms0(l.p99)}/${ms0(l.max)} ms`;

function racemorningRows(run: RaceMorning, m: RaceMorningFigures, drain: DrainPhase): Section['rows'] {
  const { DRAIN_MS } = run.plan;
  return [
    ...m.figures.map((f) => ({
      ...f,
      unit: 'ms',
      digits: 0,
      aim: { text: '≤ 3x no load', met: Number.isFinite(f.ours) && Number.isFinite(f.baseline) && f.ours <= 3 * f.baseline },
    })),
    {
      metric: "held answer carrying the note converted, from the upload's 201 (conversion queue included), p95",
      ours: m.heldP95.loaded,
      baseline: m.heldP95.unloaded,
      unit: 'ms',
      digits: 0,
    },
    { metric: 'server memory (RSS, with its converter process), peak', ours: m.rss.loaded.total, baseline: m.rss.unloaded.total, unit: 'MB', digits: 0 },
    {
      metric: 'errors (failed or refused requests)',
      ours: m.errorCount.loaded,
      baseline: m.errorCount.unloaded,
      unit: '',
      digits: 0,
      aim: { text: 'no error', met: m.errorCount.loaded === 0 && m.errorCount.unloaded === 0 },
    },
    {
      metric: `notes not yet converted ${DRAIN_MS / 1000} s after the window`,
      ours: drain.undelivered.loaded,
      baseline: drain.undelivered.unloaded,
      unit: '',
      digits: 0,
      aim: { text: 'none', met: drain.undelivered.loaded === 0 && drain.undelivered.unloaded === 0 },
    },
    {
      metric: `notes converted a second under load (friends send ${FRIEND_NOTES_PER_SECOND}/s)`,
      ours: drain.convertedPerSecond,
      baseline: null,
      unit: '/s',
      digits: 1,
    },
    { metric: 'sync requests held open at once, peak', ours: run.heldPeak, baseline: null, unit: '', digits: 0 },
  ];
}

function racemorningNotes(run: RaceMorning, m: RaceMorningFigures, window: WindowPhase, drain: DrainPhase): string[] {
  const { DRAIN_MS, QUIET_PROBES, WARM_UPS, PROBES } = run.plan;
  const { errors, samples } = run;
  const { held, wake, rss, benchLoop, serverLoop, serverTimed } = m;
  const { undelivered, convertedPerSecond } = drain;
  const { entrants, friendNotes } = window;
  return [
    `Load: ${run.ready.length} apps (one account and entry each) holding GET /api/entries/:id/notes?after=…&wait=${HOLD_SECONDS}&until=playable and posting 6 positions every 30 s (spread over the 30 s); ` +
      `runners signing in and entering at ${ENTRANTS_PER_SECOND.toFixed(1)}/s (2,000 in 10 min; ${entrants} here); friends' notes (10-60 s of speech, Opus 24 kbit/s) at ${FRIEND_NOTES_PER_SECOND}/s to the apps' links (${friendNotes} here), each app downloading its notes' audio. ` +
      `The window ran ${window.seconds.toFixed(0)} s, then ${drain.seconds.toFixed(0)} s waiting for held answers to carry the window's notes converted (at most ${DRAIN_MS / 1000} s).`,
    `Samples: no load ${QUIET_PROBES} probes one after another (sign-in, note upload, held answer; 10-60 s notes as the friends send), after ${WARM_UPS} warm-up probes; under load ${PROBES} of the same probes spread over the window plus every entrant's sign-in (${samples.loaded.signIn.length}) and every friend's upload (${samples.loaded.upload.length}) and held answer (${held.loaded.length}).`,
    `Held answer after a conversion: timed by the server, from the conversion waking a held request to its answer sent (the apps ask with until=playable, as docs/app-contract.md says, so a note only received does not end their hold) (milenotes_sync_wake_seconds, p95 read from its buckets as Prometheus does; ${wake.unloaded.count} wakes with no load, ${wake.loaded.count} under load). ` +
      `From the upload's 201: to the held sync answer whose note is converted (the conversion, ffmpeg with CONVERT_CONCURRENCY as shipped, and its queue are inside it). ` +
      `A note no answer carried by the end counts as the time it had waited then (a lower bound)${undelivered.loaded ? `: ${undelivered.loaded} of ${held.loaded.length} under load, so that p95 is at least the figure shown` : ''}. ` +
      `Conversions under load: ${convertedPerSecond.toFixed(1)} a second from the window's start to its end plus the wait after, against ${FRIEND_NOTES_PER_SECOND} a second sent.`,
    `Memory: VmRSS of the server process and its converter process (server/audio/converter.ts; not their ffmpeg runs), sampled every 250 ms: ${rss.idle.total.toFixed(0)} MB idle after the warm-up, ` +
      `peak ${rss.unloaded.total.toFixed(0)} MB with the probes alone, ${rss.loaded.total.toFixed(0)} MB from the crowd's sign-in to the end of the window; of which the converter ${rss.idle.converter.toFixed(0)}, ${rss.unloaded.converter.toFixed(0)} and ${rss.loaded.converter.toFixed(0)} MB.`,
    `Limits raised for the bench (${Object.entries(RAISED)
      .map(([k, v]) => `${k}=${v}`)
      .join(
        ', ',
      )}): all the load comes from 127.0.0.1 here, in the field from thousands of addresses. Left as shipped: SYNC_MAX_HELD (5,000 a process), 4 held per account, each link's quota, RATE_LIMIT_PER_MINUTE (per address and link).`,
    `The apps run in the bench process's main thread; the clients timed here (friends' uploads, entrants' sign-ins and entries, the probes) in a thread of their own with its own event loop, ` +
      `as a friend's phone is not also busy running a thousand runners' apps (in one thread their answers waited behind the apps' JavaScript). All share the machine's 2 cores with the server and its ffmpeg conversions.`,
    `Event loops, delay p50/p99/max: the bench's main thread (the apps; monitorEventLoopDelay) ${loopText(benchLoop.unloaded)} during the probes with no load, ${loopText(benchLoop.loaded)} in the window; the timed clients' thread ${loopText(window.friendsLoop)} in the window; ` +
      `the server's (prom-client's nodejs_eventloop_lag_*) ${loopText(serverLoop.unloaded)} and ${loopText(serverLoop.loaded)} (each figure includes the sampling interval, 5 ms in the bench, 10 ms in prom-client). ` +
      `The server's own timing, p95 from its buckets (milenotes_http_request_duration_seconds, request to answer sent): note upload ${ms0(serverTimed.upload.unloaded.value * 1000)} ms with no load (${serverTimed.upload.unloaded.count}), ` +
      `${ms0(serverTimed.upload.loaded.value * 1000)} ms under load (${serverTimed.upload.loaded.count}); sign-in ${ms0(serverTimed.signIn.unloaded.value * 1000)} ms (${serverTimed.signIn.unloaded.count}) and ${ms0(serverTimed.signIn.loaded.value * 1000)} ms (${serverTimed.signIn.loaded.count}).`,
    `Errors: ${errors.total() === 0 ? 'none' : [...errors.counts].map(([k, v]) => `${k} ×${v}`).join(', ')}${errors.samples.length ? `; first: ${errors.samples.slice(0, 4).join(' | ')}` : ''}.`,
  ];
}

export function racemorningReport(run: RaceMorning, m: RaceMorningFigures, window: WindowPhase, drain: DrainPhase): Section {
  return {
    id: 'racemorning',
    title: `Race morning under load: ${run.ready.length} apps holding sync, ${window.entrants} sign-ins, ${window.friendNotes} friends' notes in ${window.seconds.toFixed(0)} s, one server`,
    baseline: 'the same probes on the same server with nothing else going on, earlier in the same run',
    rows: racemorningRows(run, m, drain),
    chart: {
      kind: 'bars',
      title: 'Race morning: p95 with no load and under load',
      unit: 'ms',
      series: ['no load', 'under load'],
      groups: m.figures.map((f) => ({ label: f.metric.replace(/, p95$/, '').replace(/ \(.*\)/, ''), values: [f.baseline, f.ours] })),
    },
    notes: racemorningNotes(run, m, window, drain),
  };
}
