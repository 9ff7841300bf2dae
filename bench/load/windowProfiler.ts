/**
 * Profiles of the server over one measured window, by V8's sampler (through the server's
 * inspector: which JavaScript the time went to, exactly, but a thread waiting for a core counts as
 * busy), by Linux perf's (only the time the process ran, the kernel's part and the collector's
 * included, JavaScript names approximate: ./perfProfile.ts), or both at once on the same window.
 * Each window's raw profile is kept in the folder asked for, for DevTools or `perf report`, with
 * its summary beside it (….txt); the summaries go in the report.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CpuProfiler } from './cpuProfiler.js';
import { PERF_NODE_OPTIONS, PerfRecording, perfSummary } from './perfProfile.js';
import { summarize, summaryText, type ProfileSummary } from './profileSummary.js';

export type ProfilerKind = 'v8' | 'perf' | 'both';

/** A window's summary by one sampler. */
export interface WindowProfile {
  by: 'v8' | 'perf';
  summary: ProfileSummary;
}

export interface WindowProfiler {
  /** Starts the window's profiles, to be kept as `<dir>/apiserver-<label>.cpuprofile` (V8) and `.perf.data` (perf). */
  start(label: string): Promise<void>;
  /** Ends them and answers their summaries. */
  stop(): Promise<WindowProfile[]>;
  close(): void;
}

/** What the server's NODE_OPTIONS need for the samplers: V8's inspector on `inspectPort`, perf's JavaScript names. */
export function profilerNodeOptions(kind: ProfilerKind, inspectPort: number): string {
  const v8 = kind === 'perf' ? [] : [`--inspect=127.0.0.1:${inspectPort}`];
  return [...v8, ...(kind === 'v8' ? [] : [PERF_NODE_OPTIONS])].join(' ');
}

async function kept(file: string, by: WindowProfile['by'], summary: ProfileSummary): Promise<WindowProfile> {
  await writeFile(`${file}.txt`, `${summaryText(summary)}\n`);
  return { by, summary };
}

function v8Sampler(inspector: CpuProfiler, dir: string) {
  let file = '';
  return {
    async start(label: string) {
      file = path.join(dir, `apiserver-${label}.cpuprofile`);
      await inspector.start();
    },
    stop: async () => kept(file, 'v8', summarize(await inspector.stop(file))),
  };
}

function perfSampler(pid: () => number | undefined, dir: string) {
  let file = '';
  let recording: PerfRecording | undefined;
  return {
    async start(label: string) {
      const running = pid();
      if (running === undefined) throw new Error('the server is not running: nothing to profile');
      file = path.join(dir, `apiserver-${label}.perf.data`);
      recording = PerfRecording.start(running, file);
    },
    async stop() {
      if (!recording) throw new Error('no perf recording was started');
      await recording.stop();
      recording = undefined;
      return kept(file, 'perf', perfSummary(file));
    },
    close: () => void recording?.stop(),
  };
}

export async function startWindowProfiler(
  kind: ProfilerKind,
  dir: string,
  server: { inspectPort: number; pid(): number | undefined },
): Promise<WindowProfiler> {
  const inspector = kind === 'perf' ? undefined : await CpuProfiler.connect(server.inspectPort);
  const onCpu = kind === 'v8' ? [] : [perfSampler(() => server.pid(), dir)];
  const samplers = [...(inspector ? [v8Sampler(inspector, dir)] : []), ...onCpu];
  return {
    async start(label) {
      for (const s of samplers) await s.start(label);
    },
    async stop() {
      const profiles: WindowProfile[] = [];
      for (const s of samplers) profiles.push(await s.stop());
      return profiles;
    },
    close() {
      for (const s of onCpu) s.close();
      inspector?.close();
    },
  };
}
