/**
 * A profile of the server over one measured window, by either sampler: V8's (through the server's
 * inspector: JavaScript in detail, but a thread waiting for a core counts as busy) or Linux perf's
 * (only the time the process ran, the kernel's part included). Each window's raw profile is kept
 * in the folder asked for, for DevTools or `perf report`; the summary goes in the report.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CpuProfiler } from './cpuProfiler.js';
import { PERF_NODE_OPTIONS, PerfRecording, perfSummary } from './perfProfile.js';
import { summarize, summaryText, type ProfileSummary } from './profileSummary.js';

export type ProfilerKind = 'v8' | 'perf';

export interface WindowProfiler {
  /** Starts the window's profile, to be kept as `<dir>/apiserver-<label>.cpuprofile` (V8) or `.perf.data` (perf). */
  start(label: string): Promise<void>;
  /** Ends it and answers its summary, also written beside it (`….txt`). */
  stop(): Promise<ProfileSummary>;
  close(): void;
}

/** What the server's NODE_OPTIONS need for the sampler (V8's inspector on `inspectPort`, or perf's JavaScript names). */
export const profilerNodeOptions = (kind: ProfilerKind, inspectPort: number) => (kind === 'v8' ? `--inspect=127.0.0.1:${inspectPort}` : PERF_NODE_OPTIONS);

export async function startWindowProfiler(
  kind: ProfilerKind,
  dir: string,
  server: { inspectPort: number; pid(): number | undefined },
): Promise<WindowProfiler> {
  let file = '';
  const kept = async (summary: ProfileSummary) => {
    await writeFile(`${file}.txt`, `${summaryText(summary)}\n`);
    return summary;
  };
  if (kind === 'v8') {
    const inspector = await CpuProfiler.connect(server.inspectPort);
    return {
      async start(label) {
        file = path.join(dir, `apiserver-${label}.cpuprofile`);
        await inspector.start();
      },
      stop: async () => kept(summarize(await inspector.stop(file))),
      close: () => inspector.close(),
    };
  }
  let recording: PerfRecording | undefined;
  return {
    async start(label) {
      const pid = server.pid();
      if (pid === undefined) throw new Error('the server is not running: nothing to profile');
      file = path.join(dir, `apiserver-${label}.perf.data`);
      recording = PerfRecording.start(pid, file);
    },
    async stop() {
      if (!recording) throw new Error('no perf recording was started');
      await recording.stop();
      recording = undefined;
      return kept(perfSummary(file));
    },
    close: () => void recording?.stop(),
  };
}
